#include "frontend/affine_index.h"

#include <algorithm>

namespace polyfuse {

AffineIndex AffineIndex::plain(std::string index) {
  AffineIndex expression;
  expression.terms.emplace_back(std::move(index), 1);
  return expression;
}

std::string AffineIndex::plain_index() const {
  return terms.size() == 1 && terms[0].second == 1 && constant == 0 && !is_gather() ? terms[0].first : "";
}

std::int64_t AffineIndex::coefficient(const std::string& index) const {
  for (const auto& [name, coefficient] : terms)
    if (name == index) return coefficient;
  return 0;
}

void AffineIndex::add(const std::string& index, std::int64_t coefficient) {
  auto term = std::find_if(terms.begin(), terms.end(), [&](const auto& t) { return t.first == index; });
  if (term == terms.end()) {
    if (coefficient != 0) terms.emplace_back(index, coefficient);
    return;
  }
  term->second += coefficient;
  if (term->second == 0) terms.erase(term);
}

void AffineIndex::add(const AffineIndex& other, std::int64_t factor) {
  for (const auto& [name, coefficient] : other.terms) add(name, coefficient * factor);
  constant += other.constant * factor;
}

std::string AffineIndex::to_string() const {
  std::string text;
  auto append = [&](std::int64_t value, const std::string& name) {
    const std::int64_t magnitude = value < 0 ? -value : value;
    std::string term = name.empty() ? std::to_string(magnitude)
                     : magnitude == 1 ? name
                                      : std::to_string(magnitude) + "*" + name;
    text += text.empty() ? (value < 0 ? "-" : "") : (value < 0 ? " - " : " + ");
    text += term;
  };
  if (is_gather()) text = gather_text;
  for (const auto& [name, coefficient] : terms) append(coefficient, name);
  if (constant != 0 || text.empty()) append(constant, "");
  return text;
}

}  // namespace polyfuse
