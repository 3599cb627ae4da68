// A convolution's filter taps that read only the zero border (schedule/cpu_conv.h's padding).
//
// With `where I = 0 outside`, the block of output row p = 0 of a 3x3 convolution with padding 1
// reads input row p + r - 1 = -1 at tap r = 0: a row of the padded copy's zeros, whose products
// with the filter add nothing. oneDNN's direct convolutions skip such taps; on ResNet-50's last
// 3x3 layer (7 x 7 pixels) they are 2 of every 21 rows of taps. The CPU target skips them for the
// outer of two taps (CpuConvTap::border): a block computes the taps in [first, last) that read the
// input proper — f32: the BRGEMM's outer batch, by a kernel made for that many taps; f16 and bf16:
// the loop of calls over that tap, from first to last — when its filter panel holds only finite
// values at the skipped taps. A product of zero and a finite value is a
// zero, and adding a zero leaves any sum but -0 as it was (-0 + 0 is +0: only the sign of a zero
// result can differ), so the result is the same value. With an infinity or a NaN there the block
// computes every tap, and 0 * inf is NaN, as the program says.
//
// Taken when the tap's input subscript is `a * b + t * tap + constant` with b one of the stage's
// batch indices (the output row), nothing else, and some but not all of the tap's values fall
// outside the input for some value of b.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "frontend/program.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// The border of `tap` (a reduction index of extent extents.at(tap)) in `input`, the
// convolution's input read (`input_shape` its bound extents), whose batch indices are `batch`
// in the stage's order; nullopt when the rule above does not hold or no block skips a tap.
std::optional<CpuTapBorder> conv_tap_border(const Access& input, const std::vector<std::int64_t>& input_shape,
                                            const std::string& tap, const std::vector<std::string>& batch,
                                            const std::map<std::string, std::int64_t>& extents);

// The taps [first, last) of a tap with this border and `extent` that read the input proper at
// batch index value `b` (first == last: none).
std::pair<std::int64_t, std::int64_t> taps_inside(const CpuTapBorder& border, std::int64_t extent, std::int64_t b);

}  // namespace polyfuse
