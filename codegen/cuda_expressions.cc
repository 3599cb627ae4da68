#include "codegen/cuda_expressions.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace polyfuse {

std::string c_expression(const Expr& e, const std::function<std::string(int read)>& element) {
  switch (e.kind) {
    case ExprKind::constant: {
      std::string number = format_number(e.value);  // a float literal: "2" -> "2.0f"
      if (number.find_first_of(".e") == std::string::npos) number += ".0";
      return number + "f";
    }
    case ExprKind::read: return element(e.read);
    case ExprKind::negate: return "-(" + c_expression(e.operands[0], element) + ")";
    case ExprKind::binary:
      return fmt::format("({} {} {})", c_expression(e.operands[0], element), to_string(e.op),
                         c_expression(e.operands[1], element));
    case ExprKind::call: {
      std::vector<std::string> args;
      for (const Expr& operand : e.operands) args.push_back(c_expression(operand, element));
      return fmt::format("pf::op::{}({})", to_string(e.function), fmt::join(args, ", "));
    }
  }
  PF_INTERNAL_CHECK(false, "unknown expression kind");
}

}  // namespace polyfuse
