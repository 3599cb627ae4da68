// Index ranges of affine tensor references, computed with isl.
//
// A statement's indices range over boxes `0 <= i < extent`. An index that appears
// alone in some subscript takes that dimension's size; an index that appears only in
// sums (`h + r`) gets the largest range that keeps every such subscript inside its
// tensor for all values of the other indices (`0 <= h < H - R + 1`). Reads are then
// checked: every subscript stays inside its tensor, unless the statement states the
// value read outside it (`where I = 0 outside`).
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

#include "frontend/affine_index.h"
#include "frontend/program.h"

namespace polyfuse {

// The values of `index` (a 1-D set `{ [index] }`) for which `subscript` lies in
// [0, `extent`) for every value of its other indices in their ranges `known` (which
// must hold every other index of `subscript`).
isl::set subscript_range(const Program& program, const std::vector<IterationIndex>& known,
                         const std::string& index, const AffineIndex& subscript, const Size& extent);

// The size `s` with `range` = `{ [i] : 0 <= i < s }` (a literal, or a size name when it is
// a parameter), or nullopt when `range` is not of that form.
std::optional<Size> range_size(const Program& program, const isl::set& range);

// A 1-D set for messages: "0..9" ("3" for one value) when its bounds are constants, else
// isl's text.
std::string range_text(const isl::set& range);

// One dimension of a read that leaves its tensor.
struct OutsideDimension {
  std::size_t dim = 0;  // 0-based
  isl::set values;      // the subscript's values over the statement's domain (1-D)
  isl::set allowed;     // the dimension's positions 0..size-1 (1-D)
};

// The dimensions in which `access` (restricted to its statement's domain) leaves the
// extent of `tensor`, in order, for the sizes that satisfy `assumptions`
// (Program::assumptions: every size at least 1).
std::vector<OutsideDimension> dimensions_outside(const Access& access, const Tensor& tensor,
                                                 const isl::set& assumptions);

}  // namespace polyfuse
