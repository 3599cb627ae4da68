#include "frontend/condition.h"

namespace polyfuse {

std::string_view to_string(Comparison comparison) {
  switch (comparison) {
    case Comparison::lt: return "<";
    case Comparison::le: return "<=";
    case Comparison::gt: return ">";
    case Comparison::ge: return ">=";
    case Comparison::eq: return "==";
    case Comparison::ne: return "!=";
  }
  return "?";
}

}  // namespace polyfuse
