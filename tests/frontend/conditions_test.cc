// TC's syntax for conditions (frontend/condition.h): `?:`, `||`, `&&`, comparisons and `!`
// with TC's precedence, index variables as values, `float(x)`, and statements that span
// lines (frontend/line_continuation.h). The errors are in errors/*.tc too.
#include <gtest/gtest.h>

#include "frontend/ir_printer.h"
#include "test_util.h"

namespace polyfuse::testing {
namespace {

// The statements of `body` in def f(float(N) X, float(N, N) Y) -> (O), printed back.
std::vector<std::string> printed(const std::string& body) {
  const Program program = compile_one("def f(float(N) X, float(N, N) Y) -> (O) {\n" + body + "\n}\n", {{"N", 4}});
  std::vector<std::string> lines;
  for (const Statement& s : program.statements) lines.push_back(print_statement_source(s));
  return lines;
}

TEST(Conditions, PrecedenceAsInTc) {
  // ?: lowest, then ||, &&, comparisons, + -, * /, unary; parentheses only where needed.
  EXPECT_EQ(printed("  O(i) = i == 0 || i > 2 && X(i) < 1 ? X(i) : -X(i) * 2"),
            std::vector<std::string>{"O(i) = i == 0 || i > 2 && X(i) < 1 ? X(i) : -X(i) * 2"});
  EXPECT_EQ(printed("  O(i) = (i == 0 || i > 2) && !(X(i) + 1 >= 2 * i) ? X(i) : 0"),
            std::vector<std::string>{"O(i) = (i == 0 || i > 2) && !(X(i) + 1 >= 2 * i) ? X(i) : 0"});
  // Right-associative: a ? b : (c ? d : e).
  const Program program = compile_one("def f(float(N) X) -> (O) {\n  O(i) = i < 1 ? 1 : i < 2 ? 2 : 3 where i in 0:N\n}\n", {{"N", 4}});
  const Expr& select = program.statements[0].expr;
  ASSERT_EQ(select.kind, ExprKind::select);
  EXPECT_EQ(select.operands[2].kind, ExprKind::select);
  EXPECT_EQ(select.operands[0].kind, ExprKind::compare);
  EXPECT_EQ(select.operands[0].operands[0].kind, ExprKind::index);
}

TEST(Conditions, IndexValuesAndCasts) {
  // A reduction index with a range from its subscript, and one from a `where` clause only.
  EXPECT_EQ(printed("  O(i) +=! r_k < i ? Y(i, r_k) : float(r_k + 1)"),
            std::vector<std::string>{"O(i) +=! r_k < i ? Y(i, r_k) : f32(r_k + 1)"});
  const Program program = compile_one("def f(float(N) X) -> (O) {\n  O(i) +=! X(i) * k where k in 0:3\n}\n", {{"N", 4}});
  EXPECT_EQ(program.statements[0].reduction_indices(), std::vector<std::string>{"k"});
  EXPECT_EQ(first_error("def f(float(N) X) -> (O) {\n  O(i) = float(X(i), 1)\n}\n"),
            "2:10: error: function 'float' takes 1 argument, got 2");
  EXPECT_EQ(first_error("def f(float(N) X) -> (O) {\n  O(i) = !X(i) ? 1 : 0\n}\n"),
            "2:11: error: 'X(i)' is a value, not a condition: the operand of '!' is a comparison ('<', '<=', '>', "
            "'>=', '==', '!=') or a combination of comparisons with '&&', '||' and '!'");
  EXPECT_EQ(first_error("def f(float(N) X) -> (O) {\n  O(i) = X(i) < (i < 1) ? 1 : 0\n}\n"),
            "2:18: error: 'i < 1' is a condition (true or false), not a value: a condition is the first operand of "
            "'?:' (write 'i < 1 ? 1 : 0' for a number)");
  EXPECT_EQ(first_error("def f(float(N) X) -> (O) {\n  O(i) = relu(i > 1)\n}\n"),
            "2:15: error: 'i > 1' is a condition (true or false), not a value: a condition is the first operand of "
            "'?:' (write 'i > 1 ? 1 : 0' for a number)");
}

TEST(LineContinuation, LinesThatStartWithAnOperatorOrWhere) {
  // TC's group normalization, a `where` clause on its own line, comment and blank lines between.
  EXPECT_EQ(printed("  O(i) = X(i)\n    * (X(i) - 1)\n    # a comment\n\n    + i\n"
                    "  O(i) = O(i) / 2\n    where i in 0:N"),
            (std::vector<std::string>{"O(i) = X(i) * (X(i) - 1) + i", "O(i) = O(i) / 2"}));
  // '-', comparisons, '?' and ':' continue a statement too; a tensor named `where` starts one
  // (read by the output after it: a temporary nothing returned reads would be dropped).
  EXPECT_EQ(printed("  O(i) = X(i)\n  - 1\n  > 0\n  ? 1\n  : 2\n  where(i) = O(i)\n  O(i) = O(i) + where(i)"),
            (std::vector<std::string>{"O(i) = X(i) - 1 > 0 ? 1 : 2", "where(i) = O(i)", "O(i) = O(i) + where(i)"}));
  // ';' always ends the statement: the next line cannot continue it.
  EXPECT_EQ(first_error("def f(float(N) X) -> (O) {\n  O(i) = X(i);\n  + 1\n}\n", {{"N", 4}}),
            "3:3: error: expected a statement like 'C(m, n) = ...', found '+'");
  // A line that starts with a name is a new statement.
  EXPECT_EQ(printed("  O(i) = X(i)\n  O(i) = O(i) + 1").size(), 2u);
}

}  // namespace
}  // namespace polyfuse::testing
