#include "schedule/cpu_conv_border.h"

#include <algorithm>
#include <set>

namespace polyfuse {

std::pair<std::int64_t, std::int64_t> taps_inside(const CpuTapBorder& border, std::int64_t extent, std::int64_t b) {
  const auto inside = [&](std::int64_t tap) {
    const std::int64_t at = border.batch_coefficient * b + border.tap_coefficient * tap + border.constant;
    return at >= 0 && at < border.input_extent;
  };
  std::int64_t first = 0, last = extent;
  while (first < last && !inside(first)) ++first;
  while (last > first && !inside(last - 1)) --last;
  return {first, last};
}

std::optional<CpuTapBorder> conv_tap_border(const Access& input, const std::vector<std::int64_t>& input_shape,
                                            const std::string& tap, const std::vector<std::string>& batch,
                                            const std::map<std::string, std::int64_t>& extents) {
  std::optional<std::size_t> dim;
  for (std::size_t d = 0; d < input.subscripts.size(); ++d)
    if (input.subscripts[d].coefficient(tap) != 0) {
      if (dim) return std::nullopt;  // the tap in two subscripts
      dim = d;
    }
  if (!dim || *dim >= input_shape.size()) return std::nullopt;
  const AffineIndex& subscript = input.subscripts[*dim];
  if (subscript.is_gather() || subscript.terms.size() != 2) return std::nullopt;
  CpuTapBorder border;
  border.tap_coefficient = subscript.coefficient(tap);
  border.constant = subscript.constant;
  border.input_extent = input_shape[*dim];
  bool found = false;
  for (const auto& [index, coefficient] : subscript.terms) {
    if (index == tap) continue;
    const auto position = std::find(batch.begin(), batch.end(), index);
    if (position == batch.end()) return std::nullopt;  // the column, a channel: not per block
    border.batch = static_cast<std::size_t>(position - batch.begin());
    border.batch_coefficient = coefficient;
    found = true;
  }
  if (!found || border.tap_coefficient <= 0) return std::nullopt;
  const std::int64_t extent = extents.at(tap);
  if (extent > 32) return std::nullopt;
  std::set<std::int64_t> counts;
  border.inner_first = 0;
  border.inner_last = extent;
  for (std::int64_t b = 0; b < extents.at(batch[border.batch]); ++b) {
    const auto [first, last] = taps_inside(border, extent, b);
    // (a block with no tap inside keeps every tap: its zeros computed, rare and simple)
    if (last > first && last - first < extent) {
      counts.insert(last - first);
      border.inner_first = std::max(border.inner_first, first);
      border.inner_last = std::min(border.inner_last, last);
    }
  }
  if (counts.empty()) return std::nullopt;
  border.inner_last = std::max(border.inner_last, border.inner_first);
  border.counts.assign(counts.begin(), counts.end());
  return border;
}

}  // namespace polyfuse
