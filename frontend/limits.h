// Hard limits on the input, so that no input can exhaust the stack, memory or time.
// Each limit, when exceeded, produces a located user error that names it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace polyfuse::limits {

// Deepest nesting of an expression (parentheses, unary minus, operator chains, calls).
inline constexpr int max_expression_depth = 256;
// Largest source file accepted, in bytes.
inline constexpr std::size_t max_source_bytes = 16u << 20;
// Most statements in one def.
inline constexpr std::size_t max_statements_per_def = 256;
// Most tensor references (reads) in one statement.
inline constexpr std::size_t max_reads_per_statement = 64;
// Most dimensions of one tensor.
inline constexpr std::size_t max_tensor_rank = 8;
// Most tensors declared in one def's signature.
inline constexpr std::size_t max_parameters_per_def = 64;
// Most defs in one file.
inline constexpr std::size_t max_defs_per_file = 64;
// Largest size (literal or -D value) of a dimension.
inline constexpr std::int64_t max_size_value = 2147483647;

}  // namespace polyfuse::limits
