// C/C++/CUDA text of a tensor access in generated code: its row-major element offset
// from the loop variables (plain `i_m * 64 + i_k`, or with index expressions
// `(2 * i_h + i_r - 1) * 24 + ...`), and for a read with a value outside its tensor
// (`where I = 0 outside`) the condition that it is inside. Shared by the CPU loop nests
// and the CUDA memory kernels, which name index variables and sizes their own way.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frontend/statement.h"

namespace polyfuse {

// The loop variable of an index ("m" -> "i_m").
using IndexName = std::function<std::string(const std::string&)>;

// `subscript` over the loop variables: "i_h", "2 * i_h + i_r - 1", "3".
std::string subscript_text(const AffineIndex& subscript, const IndexName& name);

// The subscripts of `access` (its plain indices when it has none recorded).
std::vector<AffineIndex> access_subscripts(const Access& access);

// How a backend writes a gathered position (AffineIndex::gather): the checked position is
// `check(static_cast<integer>(ELEMENT) + affine, extent, "TENSOR", dim)`, ELEMENT being
// `element(read)`, the text of the index tensor's element (read `read` of the statement).
struct GatherSyntax {
  std::string check;    // the checking helper: "gather_index", "pf::gather_index"
  std::string integer;  // the position's type: "int64_t", "long long"
  std::function<std::string(int read)> element;
};

// The row-major element offset of `access` into a tensor of `shape` (bound extents),
// e.g. "i_m * 64 + i_k" or "(i_h + i_r) * 24 + i_c"; "0" for a scalar. A gathered dimension's
// position is written with `gather` (required then).
std::string row_major_offset(const Access& access, const std::vector<std::int64_t>& shape, const IndexName& name,
                             const GatherSyntax* gather = nullptr);

// The condition that `access` is inside a tensor of `shape`, one pair of comparisons
// per subscript that can leave it ("0 <= i_h + i_r - 1 && i_h + i_r - 1 < 8"); empty when
// `access` has no outside value.
std::string inside_condition(const Access& access, const std::vector<std::int64_t>& shape, const IndexName& name);

}  // namespace polyfuse
