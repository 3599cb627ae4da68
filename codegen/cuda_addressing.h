// C text for addressing tensors in generated kernels: element offsets of an index
// (64-bit, row-major), the remaining extent from an origin, and the store of a warp's
// register tile to a tensor's block tile.
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda_statements.h"

namespace polyfuse {

// `text` in parentheses unless it is a plain name or number.
std::string grouped(const std::string& text);

// Extents of `tensor`'s dimensions as C expressions (bound values or size names).
std::vector<std::string> tensor_extents(const Program& program, const std::string& tensor);

// Row-major element offset of `origin` in a tensor with `extents`, in 64-bit arithmetic
// ("0" for the origin).
std::string element_offset(const std::vector<std::string>& origin, const std::vector<std::string>& extents);

// `extent - origin`: the valid rows or columns from `origin` on.
std::string remaining(const std::string& extent, const std::string& origin);

// `pointer + offset`, or the pointer alone for a zero offset.
std::string address(const std::string& pointer, const std::string& offset);

// Stores the warp's register tile `tile` into `tensor` (pf::store_accumulators: reorder
// through shared memory, convert, 128-bit stores); `args` are the block tile's first
// element, then the pf::Check code of the store (statement_rewrites.h).
std::string print_tile_store(const CudaStatementContext& context, const std::string& tile, const std::string& tensor,
                             const std::vector<std::string>& args);

// The accumulator reorder scratch in dynamic shared memory ("smem + offset").
std::string scratch_address(const CudaStatementContext& context);

// The index of the warp tile's first element inside a block tile starting at `block_origin`.
std::vector<std::string> warp_tile_origin(const CudaStatementContext& context, const std::vector<std::string>& block_origin);

}  // namespace polyfuse
