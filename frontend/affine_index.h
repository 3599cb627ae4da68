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

// sum(coefficient * index) + constant, plus the value of an index tensor's element when
// `gather` says so (`I(b)` in `W(I(b), d)`, `Idx(k) + l`: a gather).
struct AffineIndex {
  // (index, coefficient) pairs, coefficients nonzero, each index once, in order of first
  // appearance in the source.
  std::vector<std::pair<std::string, std::int64_t>> terms;
  std::int64_t constant = 0;
  // The read (Statement::reads) of an integer index tensor whose value is added; -1: none.
  // Such a subscript is not affine: its access relation holds the whole dimension.
  int gather = -1;
  std::string gather_text;  // that read as written ("I(b, r_l)"), for messages

  // True when an index tensor's value is part of the subscript.
  bool is_gather() const { return gather >= 0; }
  // The plain index `i` (one term, coefficient 1, constant 0).
  static AffineIndex plain(std::string index);
  // The index when the expression is exactly one index with coefficient 1, no constant
  // and no gather, else the empty string.
  std::string plain_index() const;
  // The coefficient of `index` (0 when absent).
  std::int64_t coefficient(const std::string& index) const;
  // Adds `coefficient * index` (merging with an existing term; a zero sum drops it).
  void add(const std::string& index, std::int64_t coefficient);
  // `this + factor * other`.
  void add(const AffineIndex& other, std::int64_t factor);
  // Source text: "h", "2*h + r - 1", "-r", "3", "I(b) + l".
  std::string to_string() const;
  bool operator==(const AffineIndex& other) const = default;
};

}  // namespace polyfuse
