// Parser: valid programs give the expected trees; every syntax error has its exact
// message and place; recovery reports several errors; deep nesting is an error.
#include <gtest/gtest.h>

#include "frontend/parser.h"
#include "test_util.h"

namespace polyfuse {
namespace {

using testing::errors_of;
using testing::first_error;

ast::File parse_ok(std::string_view text) {
  DiagnosticSink sink("t.tc");
  ast::File file = parse(text, sink);
  EXPECT_FALSE(sink.has_errors()) << (sink.diagnostics().empty() ? "" : sink.diagnostics()[0].message);
  return file;
}

TEST(Parser, SignatureAndStatements) {
  ast::File file = parse_ok(
      "def f(f16(M, 8) A, bf16(8) v) -> (f32(M) y) {\n"
      "  y(m) +=! A(m, k) * v(k)\n"
      "}\n");
  ASSERT_EQ(file.defs.size(), 1u);
  const ast::Def& def = file.defs[0];
  EXPECT_EQ(def.name, "f");
  ASSERT_EQ(def.inputs.size(), 2u);
  EXPECT_EQ(def.inputs[0].type, ElementType::f16);
  EXPECT_EQ(def.inputs[0].dims[0].name, "M");
  EXPECT_EQ(def.inputs[0].dims[1].value, 8);
  EXPECT_EQ(def.inputs[1].type, ElementType::bf16);
  EXPECT_EQ(def.outputs[0].type, ElementType::f32);
  ASSERT_EQ(def.statements.size(), 1u);
  EXPECT_EQ(def.statements[0].op, ast::AssignOp::reduce_init);
  EXPECT_EQ(ast::to_source(def.statements[0].rhs), "A(m, k) * v(k)");
}

// Index expressions stay expressions in the tree (sema makes them affine); where clauses
// are ranges and values outside tensors, in order, over several lines after commas.
TEST(Parser, IndexExpressionsAndWhereClauses) {
  ast::File file = parse_ok(
      "def c(f32(N, H, C) I, f32(R, C) F) -> (f32(N, P) O) {\n"
      "  O(n, h) +=! I(n, 2*h + r - 1, c) * F(r, c) where h in 0:P,\n"
      "    I = 0 outside, r in 0:H - 1, in = -1.5 outside\n"
      "}\n");
  ASSERT_EQ(file.defs.at(0).statements.size(), 1u);
  const ast::Statement& s = file.defs[0].statements[0];
  EXPECT_EQ(ast::to_source(s.rhs.args.at(0).args.at(1)), "((2 * h) + r) - 1");
  ASSERT_EQ(s.ranges.size(), 2u);
  EXPECT_EQ(s.ranges[0].index, "h");
  EXPECT_EQ(ast::to_source(s.ranges[0].lower), "0");
  EXPECT_EQ(ast::to_source(s.ranges[0].upper), "P");
  EXPECT_EQ(s.ranges[1].index, "r");
  EXPECT_EQ(ast::to_source(s.ranges[1].upper), "H - 1");
  ASSERT_EQ(s.boundaries.size(), 2u);
  EXPECT_EQ(s.boundaries[0].tensor, "I");
  EXPECT_EQ(s.boundaries[0].value, 0);
  EXPECT_EQ(s.boundaries[1].tensor, "in");
  EXPECT_EQ(s.boundaries[1].value, -1.5);
}

TEST(Parser, WhereClauseErrors) {
  const std::string head = "def c(f32(N) I) -> (f32(N) O) {\n  O(h) = I(h) where ";
  EXPECT_EQ(first_error(head + "h in 0 P\n}\n"),
            "2:28: error: expected ':' in the range of 'h' (written 'where h in 0:N'), found 'P'");
  EXPECT_EQ(first_error(head + "I = x outside\n}\n"),
            "2:25: error: expected the number read outside 'I' (written 'where I = 0 outside'), found 'x'");
  EXPECT_EQ(first_error(head + "I = 0\n}\n"),
            "2:26: error: expected 'outside' after the boundary value of 'I' (written 'where I = 0 outside'), found "
            "a newline");
}

TEST(Parser, EveryReductionOperator) {
  ast::File file = parse_ok(
      "def f(f32(M, N) x) -> (f32(M) a, f32(M) b, f32(M) c, f32(M) d) {\n"
      "  a(m) +=! x(m, n); a(m) += x(m, n)\n"
      "  b(m) *=! x(m, n); b(m) *= x(m, n)\n"
      "  c(m) max=! x(m, n); c(m) max= x(m, n)\n"
      "  d(m) min=! x(m, n); d(m) min= x(m, n)\n"
      "}\n");
  const std::vector<ast::Statement>& s = file.defs.at(0).statements;
  ASSERT_EQ(s.size(), 8u);
  const std::string spelled[] = {"+=!", "+=", "*=!", "*=", "max=!", "max=", "min=!", "min="};
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(ast::spelling(s[i].op, s[i].reduction), spelled[i]);
    EXPECT_EQ(s[i].op, i % 2 == 0 ? ast::AssignOp::reduce_init : ast::AssignOp::reduce);
  }
  EXPECT_EQ(s[4].reduction, ReductionOp::max);
  EXPECT_EQ(s[4].op_location.col, 8);
  EXPECT_EQ(s[6].reduction, ReductionOp::min);
  EXPECT_EQ(s[2].reduction, ReductionOp::product);
}

TEST(Parser, PrecedenceAndAssociativity) {
  ast::File file = parse_ok("def f(f32(N) a) -> (f32(N) b) { b(i) = -a(i) + 2 * a(i) / 3 - a(i) }");
  EXPECT_EQ(ast::to_source(file.defs[0].statements[0].rhs), "(-a(i) + ((2 * a(i)) / 3)) - a(i)");
}

TEST(Parser, SeveralDefsSeparatorsAndContinuations) {
  ast::File file = parse_ok(
      "# header\n\n"
      "def one(f32(N) a) -> (f32(N) b) { b(i) = a(i); }\n"
      "def two(f32(N) a) -> (f32(N) b, f32(N) c)\n"
      "{\n"
      "  b(i) = a(i) +\n"
      "         a(i); c(i) = max(a(i),\n"
      "                          b(i))\n"
      "}\n");
  ASSERT_EQ(file.defs.size(), 2u);
  EXPECT_EQ(file.defs[1].statements.size(), 2u);
  EXPECT_EQ(file.defs[1].outputs.size(), 2u);
}

TEST(Parser, ScalarTensorsHaveNoSizes) {
  ast::File file = parse_ok("def s(f32(N) x) -> (f32() total) { total() +=! x(n) }");
  EXPECT_TRUE(file.defs[0].outputs[0].dims.empty());
}

// TC's spellings of tensors with no dimensions: a scalar parameter `float alpha`, a written
// scalar named alone (`v min=! ...`), and a single output named without parentheses (`-> A`).
TEST(Parser, ScalarParametersAndNamesAlone) {
  ast::File file = parse_ok("def s(float alpha, f32(N) x) -> v { v min=! alpha * x(n) }");
  const ast::Def& def = file.defs[0];
  ASSERT_EQ(def.inputs.size(), 2u);
  EXPECT_EQ(def.inputs[0].name, "alpha");
  EXPECT_EQ(def.inputs[0].type, ElementType::f32);
  EXPECT_TRUE(def.inputs[0].dims.empty());
  ASSERT_EQ(def.outputs.size(), 1u);
  EXPECT_EQ(def.outputs[0].name, "v");
  EXPECT_TRUE(def.outputs[0].inferred);
  EXPECT_EQ(def.statements[0].lhs.kind, ast::Expr::Kind::call);
  EXPECT_TRUE(def.statements[0].lhs.args.empty());
  EXPECT_EQ(ast::to_source(def.statements[0].rhs), "alpha * x(n)");
}

TEST(Parser, Errors) {
  EXPECT_EQ(first_error("gemm"), "1:1: error: expected 'def', found 'gemm'");
  EXPECT_EQ(first_error("def (f32(N) a) -> (f32(N) b) {}"),
            "1:5: error: expected a name after 'def', found '('");
  EXPECT_EQ(first_error("def f(f32(N) a) (f32(N) b) {}"),
            "1:17: error: expected '->' after the inputs, found '('");
  EXPECT_EQ(first_error("def f(f64(N) a) -> (f32(N) b) { b(i) = a(i) }"),
            "1:7: error: unknown type 'f64' (expected f16, bf16, f32, float, float32, half, float16, e4m3, e5m2, int32, int64 or uint8)");
  EXPECT_EQ(first_error("def f(f32 a) -> b, c { b = a }"),
            "1:18: error: several outputs are listed in parentheses: '-> (b, ...)'");
  EXPECT_EQ(first_error("def f(f32(N) a) -> f32(N) b { b(i) = a(i) }"),
            "1:23: error: an output declared with its type and sizes is listed in parentheses: '-> (f32 ...)' (only a "
            "name alone may go without them)");
  EXPECT_EQ(first_error("def f(f32(N, 0) a) -> (f32(N) b) { b(i) = a(i, j) }"),
            "1:14: error: size must be at least 1");
  EXPECT_EQ(first_error("def f(f32(N, 3000000000) a) -> (f32(N) b) { b(i) = a(i, j) }"),
            "1:14: error: size 3000000000 is too large (the limit is 2147483647)");
  EXPECT_EQ(first_error("def f(f32(N, +) a) -> (f32(N) b) {}"),
            "1:14: error: expected a size (a name or an integer), found '+'");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) { b(i) a(i) }"),
            "1:38: error: expected '=' or a reduction operator ('+=!', '+=', '*=!', '*=', 'max=!', 'max=', 'min=!', "
            "'min=') after 'b(i)', found 'a'");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) { b = a(i) }"),
            "1:33: error: tensor 'b' has 1 dimension but is indexed with 0 indices");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) { 3 = a(i) }"),
            "1:33: error: expected a statement like 'C(m, n) = ...', found '3'");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) { b(i) = a(i) a(i) }"),
            "1:45: error: expected a newline or ';' after the statement, found 'a'");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) { b(i) = * a(i) }"),
            "1:40: error: expected an expression, found '*'");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) { b(i) = (a(i) }"),
            "1:46: error: expected ')', found '}'");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) { b(i) = a(i\n}"),
            "2:1: error: expected ',' or ')' in the arguments of 'a', found '}'");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) {\n b(i) = a(i)\n"),
            "3:1: error: expected '}' to end def 'f', found the end of the file");
  EXPECT_EQ(first_error("def f(f32(N) a) -> (f32(N) b) {\n b(i) = a(i)\ndef g"),
            "3:1: error: expected '}' to end def 'f', found 'def'");
}

TEST(Parser, RecoversToReportSeveralErrors) {
  std::vector<std::string> errors = errors_of(
      "def f(f32(N) a) -> (f32(N) b) {\n"
      "  b(i) = a(i) +\n"
      "  ;\n"
      "  b(i) = (a(i)\n"
      "  b(i) = a(i)\n"
      "}\n"
      "def g(f99(N) a) -> (f32(N) b) { b(i) = a(i) }\n"
      "def h(f32(N) a) -> (f32(N) b) { b(i) = a(i) ) }\n");
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0], "3:3: error: expected an expression, found ';'");
  EXPECT_EQ(errors[1], "5:3: error: expected ')', found 'b'");
  EXPECT_EQ(errors[2], "7:7: error: unknown type 'f99' (expected f16, bf16, f32, float, float32, half, float16, e4m3, e5m2, int32, int64 or uint8)");
  EXPECT_EQ(errors[3], "8:45: error: expected a newline or ';' after the statement, found ')'");
}

TEST(Parser, DeepParenthesesAreAnErrorNotACrash) {
  std::string source = "def f(f32(N) a) -> (f32(N) b) { b(i) = " + std::string(100000, '(') +
                       "a(i)" + std::string(100000, ')') + " }";
  EXPECT_EQ(first_error(source), "1:296: error: expression is nested too deeply (more than 256 levels)");
}

TEST(Parser, DeepUnaryMinusAndLongChainsAreErrors) {
  std::string minus = "def f(f32(N) a) -> (f32(N) b) { b(i) = " + std::string(100000, '-') + "a(i) }";
  EXPECT_EQ(first_error(minus), "1:296: error: expression is nested too deeply (more than 256 levels)");
  std::string chain = "def f(f32(N) a) -> (f32(N) b) { b(i) = a(i)";
  for (int i = 0; i < 100000; ++i) chain += " + a(i)";
  chain += " }";
  EXPECT_EQ(first_error(chain), "1:1823: error: expression is nested too deeply (more than 256 levels)");
}

TEST(Parser, NestingJustUnderTheLimitIsFine) {
  std::string source = "def f(f32(N) a) -> (f32(N) b) { b(i) = " + std::string(200, '(') + "a(i)" +
                       std::string(200, ')') + " }";
  EXPECT_EQ(first_error(source), "");
}

TEST(Parser, TooManyStatements) {
  std::string source = "def f(f32(N) a) -> (f32(N) b) {\n";
  for (int i = 0; i < 300; ++i) source += "  b(i) = a(i)\n";
  source += "}\n";
  EXPECT_EQ(first_error(source), "258:3: error: too many statements in def 'f' (the limit is 256)");
}

}  // namespace
}  // namespace polyfuse
