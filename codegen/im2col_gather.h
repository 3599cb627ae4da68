// The im2col gather of an implicit GEMM's A tile (schedule/implicit_gemm.h): a convolution's input
// read at its affine subscripts, row by row (output pixels) and column by column (filter taps and
// channels), as the C text of three functions the generated kernels call (the sm_80 kernel's
// pf::cp_async_gather_tile, codegen/implicit_gemm_kernel.h; the sm_90a kernel's copying producer,
// codegen/hopper_implicit_gemm.h):
//
//   <I>_row(row)        a GEMM row's output pixel, decomposed once: its input coordinates at tap
//                       and channel 0 and their offset in I
//   <I>_tap(col)        a GEMM column's filter tap and channel: its share of the coordinates and of
//                       the offset
//   <I>_at(row, tap)    the address of the chunk's `per_chunk` channels there, or nullptr past the
//                       GEMM's end and where a coordinate leaves I (padding: zeros)
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/program.h"
#include "schedule/contraction_to_gemm.h"

namespace polyfuse {

// What the gather needs of the convolution: its statement, roles and index extents.
// What the gather needs of the convolution: its statement, roles and index extents.
struct Im2colGather {
  const Statement& statement;
  const Access& input;
  ContractionGrouping grouping;
  std::map<std::string, std::int64_t> extent;     // of every index of the statement
  std::vector<std::int64_t> input_dims;           // I's bound sizes
  std::vector<std::int64_t> pad_before, pad_after;
  std::map<std::string, std::string> variable;    // index -> its C variable
  std::set<std::string> taken;                     // tensor names and index variables
};

// The gather of convolution `conv` (an implicit GEMM the grouping takes, sizes bound), its index
// variables named apart from the tensors' names, the gather functions' own and `kernel_names`
// (the kernel's variables the functions are defined beside).
Im2colGather im2col_gather(const Program& program, const Statement& conv, const std::vector<std::string>& kernel_names);

// The product of the extents of `group`'s indices.
std::int64_t product(const Im2colGather& g, const std::vector<std::string>& group);

// "const int n = row / 63, h = row / 7 % 9, w = row % 7;": `group`'s indices from the flat index
// `flat` (the group's first index outermost).
std::string decompose(const Im2colGather& g, const std::vector<std::string>& group, const std::string& flat);

// The three functions' C text for elements of C type `type`, `per_chunk` channels an address (1:
// element by element).
std::string gather_functions(const Im2colGather& g, const std::string& type, int per_chunk);

}  // namespace polyfuse
