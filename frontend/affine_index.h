// Affine index expressions of tensor references: `h`, `2*h + r`, `h + r - 1`.
//
// A tensor reference's subscript in dimension d is an integer combination of the
// statement's index variables plus a constant. Plain references (`A(m, k)`) have
// subscripts that are exactly one index with coefficient 1; convolutions have sums.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace polyfuse {

// sum(coefficient * index) + constant.
struct AffineIndex {
  // (index, coefficient) pairs, coefficients nonzero, each index once, in order of first
  // appearance in the source.
  std::vector<std::pair<std::string, std::int64_t>> terms;
  std::int64_t constant = 0;

  // The plain index `i` (one term, coefficient 1, constant 0).
  static AffineIndex plain(std::string index);
  // The index when the expression is exactly one index with coefficient 1 and no
  // constant, else the empty string.
  std::string plain_index() const;
  // The coefficient of `index` (0 when absent).
  std::int64_t coefficient(const std::string& index) const;
  // Adds `coefficient * index` (merging with an existing term; a zero sum drops it).
  void add(const std::string& index, std::int64_t coefficient);
  // `this + factor * other`.
  void add(const AffineIndex& other, std::int64_t factor);
  // Source text: "h", "2*h + r - 1", "-r", "3".
  std::string to_string() const;
  bool operator==(const AffineIndex& other) const = default;
};

}  // namespace polyfuse
