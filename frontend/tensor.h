// Tensors of a program: declared inputs and outputs, and inferred temporaries.
#pragma once

#include <isl/cpp.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/element_type.h"

namespace polyfuse {

// The extent of one dimension: a size name (an isl parameter, or a constant when bound
// with -D) or an integer literal.
struct Size {
  std::string symbol;       // the size's name; empty for a literal
  std::int64_t value = 0;   // the literal, when symbol is empty

  // True for a named size.
  bool is_symbolic() const { return !symbol.empty(); }
  // "M" or "64".
  std::string to_string() const;
  // Same name, or same literal (bindings are not considered: M and N differ even when
  // both are bound to 64).
  bool operator==(const Size& other) const = default;
};

// Where a tensor comes from.
enum class TensorRole {
  input,      // declared before '->': read-only
  output,     // declared after '->': must be written
  temporary,  // written but not declared: lives inside the generated code only
};

// The spelling of `role` ("input", "output", "temporary").
std::string_view to_string(TensorRole role);

// One tensor. Temporaries get their shape from the indices of their first write and
// their element type from that statement: f32 when it is a reduction (+=! or +=, which
// accumulate in f32), otherwise Statement::accumulate_type of that statement (the common
// type of what it reads).
struct Tensor {
  std::string name;
  ElementType type = ElementType::f32;
  std::vector<Size> dims;               // outermost first; the last one is contiguous
  TensorRole role = TensorRole::input;
  SourceLocation location;              // declaration, or first write for temporaries
  isl::set extent;  // `[params] -> { name[i0, ...] : 0 <= i0 < dims[0] and ... }`

  // Number of dimensions.
  std::size_t rank() const { return dims.size(); }
};

}  // namespace polyfuse
