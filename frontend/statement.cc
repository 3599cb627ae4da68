#include "frontend/statement.h"

#include <algorithm>

namespace polyfuse {

bool Access::is_plain() const {
  return std::all_of(subscripts.begin(), subscripts.end(),
                     [](const AffineIndex& subscript) { return !subscript.plain_index().empty(); });
}

std::string_view to_string(StatementKind kind) {
  switch (kind) {
    case StatementKind::assign: return "assign";
    case StatementKind::reduce_init: return "reduce_init";
    case StatementKind::reduce: return "reduce";
  }
  return "?";
}

std::string operator_spelling(const Statement& statement) {
  if (statement.kind == StatementKind::assign) return "=";
  return std::string(operator_prefix(statement.reduction)) + (statement.kind == StatementKind::reduce_init ? "=!" : "=");
}

std::vector<std::string> Statement::reduction_indices() const {
  std::vector<std::string> names;
  for (const IterationIndex& index : indices)
    if (index.is_reduction) names.push_back(index.name);
  return names;
}

std::vector<std::string> Statement::index_names() const {
  std::vector<std::string> names;
  for (const IterationIndex& index : indices) names.push_back(index.name);
  return names;
}

}  // namespace polyfuse
