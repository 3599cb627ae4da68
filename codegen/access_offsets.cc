#include "codegen/access_offsets.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"

namespace polyfuse {

std::string subscript_text(const AffineIndex& subscript, const IndexName& name) {
  std::string text;
  auto append = [&](std::int64_t value, const std::string& term) {
    const std::int64_t magnitude = value < 0 ? -value : value;
    const std::string written = term.empty() ? std::to_string(magnitude)
                              : magnitude == 1 ? term
                                               : fmt::format("{} * {}", magnitude, term);
    text += text.empty() ? (value < 0 ? "-" : "") : (value < 0 ? " - " : " + ");
    text += written;
  };
  for (const auto& [index, coefficient] : subscript.terms) append(coefficient, name(index));
  if (subscript.constant != 0 || text.empty()) append(subscript.constant, "");
  return text;
}

std::vector<AffineIndex> access_subscripts(const Access& access) {
  if (!access.subscripts.empty()) return access.subscripts;
  std::vector<AffineIndex> subscripts;
  for (const std::string& index : access.indices) subscripts.push_back(AffineIndex::plain(index));
  return subscripts;
}

std::string row_major_offset(const Access& access, const std::vector<std::int64_t>& shape, const IndexName& name,
                             const GatherSyntax* gather_syntax) {
  const std::vector<AffineIndex> subscripts = access_subscripts(access);
  std::string text;
  for (std::size_t d = 0; d < subscripts.size(); ++d) {
    std::int64_t stride = 1;
    for (std::size_t e = d + 1; e < shape.size(); ++e) stride *= shape[e];
    const bool gather = subscripts[d].is_gather();
    PF_INTERNAL_CHECK(!gather || gather_syntax, "row_major_offset: a gather of " + access.tensor + " without its syntax");
    const bool affine = !subscripts[d].terms.empty() || subscripts[d].constant != 0;
    std::string term = subscript_text(subscripts[d], name);
    if (gather)
      term = fmt::format("{}(static_cast<{}>({}){}, {}, \"{}\", {})", gather_syntax->check, gather_syntax->integer,
                         gather_syntax->element(subscripts[d].gather), affine ? " + " + term : "", shape[d],
                         access.tensor, d + 1);
    if (gather) term = stride != 1 ? fmt::format("{} * {}", term, stride) : term;
    else if (stride != 1 && subscripts[d].plain_index().empty()) term = fmt::format("({}) * {}", term, stride);
    else if (stride != 1) term = fmt::format("{} * {}", term, stride);
    if (!text.empty()) text += " + ";
    text += term;
  }
  return text.empty() ? "0" : text;
}

std::string inside_condition(const Access& access, const std::vector<std::int64_t>& shape, const IndexName& name) {
  if (!access.outside_value) return "";
  const std::vector<AffineIndex> subscripts = access_subscripts(access);
  std::string text;
  for (std::size_t d = 0; d < subscripts.size(); ++d) {
    if (!subscripts[d].plain_index().empty() || subscripts[d].is_gather()) continue;  // inside (a gather: checked)
    const std::string value = subscript_text(subscripts[d], name);
    text += fmt::format("{}0 <= {} && {} < {}", text.empty() ? "" : " && ", value, value, shape[d]);
  }
  return text;
}

}  // namespace polyfuse
