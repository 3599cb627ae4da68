// What a tile access in generated code must check, decided when the kernel is generated:
//   * the bounds (pf::Check): which statement instances access a tile that crosses the
//     tensor's last row or column — as isl sets, so that the AST generator tells each
//     printed call whether its instances need predicates (statement_rewrites.h);
//   * the width (pf::Width): the widest global access every row of the tensor allows,
//     from its leading dimension when that is a number (a 16-byte aligned tensor whose
//     rows start at multiples of 16, 8, 4 or 2 bytes), else decided per access at run time.
#pragma once

#include <string>

#include "codegen/statement_rewrites.h"
#include "frontend/program.h"

namespace polyfuse {

// The instances of `statement` whose `rows` x `cols` tile of `tensor` crosses the tensor's
// end. The statement's arguments are `leading` values (e.g. a buffer index) followed by
// the tile origin in the tensor's index order; `row_offset` / `col_offset` are added to the
// origin (e.g. "64*warp_y", parameters of the kernel's context).
TileBounds tile_bounds(const Program& program, const std::string& statement, int leading, const std::string& tensor,
                       int rows, int cols, const std::string& row_offset = "", const std::string& col_offset = "");

// "pf::Check::none" ... "pf::Check::all" for the code the AST generator appended.
std::string check_argument(const std::string& code);

// "pf::Width::b128" ... "pf::Width::b16", or "pf::Width::by_address" when the leading
// dimension of `tensor` is not a number.
std::string row_width(const Program& program, const std::string& tensor);

// The widest access ("pf::Width::b128" ... "pf::Width::b16") at addresses `bytes` apart.
std::string width_of_stride(long long bytes);

}  // namespace polyfuse
