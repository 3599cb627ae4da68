#include "codegen/cuda_expressions.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace polyfuse {

std::string c_expression(const Expr& e, const std::function<std::string(int read)>& element,
                         const std::function<std::string(const std::string& name)>& index) {
  const auto operand = [&](std::size_t i) { return c_expression(e.operands[i], element, index); };
  switch (e.kind) {
    case ExprKind::constant: {
      std::string number = format_number(e.value);  // a float literal: "2" -> "2.0f"
      if (number.find_first_of(".e") == std::string::npos) number += ".0";
      return number + "f";
    }
    case ExprKind::read: return element(e.read);
    case ExprKind::negate: return "-(" + operand(0) + ")";
    case ExprKind::binary: return fmt::format("({} {} {})", operand(0), to_string(e.op), operand(1));
    case ExprKind::call: {
      std::vector<std::string> args;
      for (std::size_t i = 0; i < e.operands.size(); ++i) args.push_back(operand(i));
      return fmt::format("pf::op::{}({})", to_string(e.function), fmt::join(args, ", "));
    }
    case ExprKind::index:
      PF_INTERNAL_CHECK(static_cast<bool>(index), "the value of index " + e.index + " in a kernel without index variables");
      return fmt::format("static_cast<float>({})", index(e.index));
    case ExprKind::compare: return fmt::format("({} {} {})", operand(0), to_string(e.comparison), operand(1));
    case ExprKind::logical_and: return fmt::format("({} && {})", operand(0), operand(1));
    case ExprKind::logical_or: return fmt::format("({} || {})", operand(0), operand(1));
    case ExprKind::logical_not: return fmt::format("!{}", operand(0));
    case ExprKind::select: return fmt::format("({} ? {} : {})", operand(0), operand(1), operand(2));
  }
  PF_INTERNAL_CHECK(false, "unknown expression kind");
}

}  // namespace polyfuse
