// Integer tensors in generated CPU code: stores from f32 (nearest integer, ties to even,
// saturated at the type's range, 0 for NaN: the reference's rule and PTX's cvt.rni.sat), and
// the checked position of a gather (`LUT(I(b, l), d)`: the value of I is a row of LUT).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace polyfuse::cpu {

// `value` stored to the integer type T (int32_t, int64_t or uint8_t).
template <class T>
inline T f32_to_integer(float value) {
  if (std::isnan(value)) return 0;
  const double rounded = std::nearbyint(static_cast<double>(value));
  if (rounded <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (rounded >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(rounded);
}

// `position` when 0 <= position < extent; otherwise throws std::out_of_range naming the
// tensor, its dimension (1-based) and the position: a gather never reads outside its tensor.
inline int64_t gather_index(int64_t position, int64_t extent, const char* tensor, int dimension) {
  if (position >= 0 && position < extent) return position;
  throw std::out_of_range("gather out of range: position " + std::to_string(position) + " of dimension " +
                          std::to_string(dimension) + " of " + tensor + ", which holds 0.." +
                          std::to_string(extent - 1));
}

}  // namespace polyfuse::cpu
