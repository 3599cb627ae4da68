// Statements nothing the def returns depends on (frontend/dead_statements.h): dropped with a
// warning at the temporary's first write; statements that feed an output, through temporaries
// and in-place updates, stay; the sizes a dropped statement used still count as used.
#include <gtest/gtest.h>

#include "frontend/frontend.h"
#include "frontend/ir_printer.h"

namespace polyfuse {
namespace {

FrontendResult compile(const std::string& text, const SizeBindings& sizes = {}) {
  return compile_source(SourceFile{"d.tc", text}, sizes);
}

std::vector<std::string> ids(const Program& program) {
  std::vector<std::string> result;
  for (const Statement& statement : program.statements) result.push_back(statement.id);
  return result;
}

TEST(DeadStatements, ATemporaryNoOutputReadsIsDroppedWithAWarning) {
  const FrontendResult result = compile(
      "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
      "  T(m, n) +=! A(m, k) * B(k, n)\n"
      "  U(m, n) = relu(T(m, n))\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n"
      "}\n");
  const Program& program = result.programs.at(0);
  EXPECT_EQ(ids(program), std::vector<std::string>{"S2"});
  EXPECT_EQ(program.find_tensor("T"), nullptr);
  EXPECT_EQ(program.find_tensor("U"), nullptr);
  ASSERT_NE(program.find_tensor("A"), nullptr);  // inputs stay, read or not
  ASSERT_EQ(result.warnings.size(), 2u);
  EXPECT_EQ(result.warnings[0].message, "T is computed but nothing def 'f' returns depends on it: S0 dropped");
  EXPECT_EQ(result.warnings[0].line, 2);
  EXPECT_EQ(result.warnings[1].message, "U is computed but nothing def 'f' returns depends on it: S1 dropped");
  EXPECT_EQ(result.warnings[1].line, 3);
}

TEST(DeadStatements, WhatFeedsAnOutputStays) {
  // through temporaries, an in-place update, and a temporary written twice
  const FrontendResult result = compile(
      "def g(f32(M, N) X) -> (f32(M) s, f32(M, N) Y) {\n"
      "  T(m, n) = X(m, n) * 2\n"
      "  T(m, n) = T(m, n) + 1\n"
      "  s(m) +=! T(m, n)\n"
      "  Y(m, n) = X(m, n)\n"
      "  Y(m, n) = Y(m, n) * 3\n"
      "}\n");
  EXPECT_EQ(ids(result.programs.at(0)), (std::vector<std::string>{"S0", "S1", "S2", "S3", "S4"}));
  EXPECT_TRUE(result.warnings.empty());
}

TEST(DeadStatements, AChainOfDeadTemporariesAndItsSizes) {
  // P and Q feed only each other; the size H that only they use is still a size of the def
  const FrontendResult result = compile(
      "def h(f32(M, H) X, f32(M) b) -> (f32(M) y) {\n"
      "  P(m, j) = X(m, j) * 2\n"
      "  Q(m) +=! P(m, j)\n"
      "  y(m) = b(m) + 1\n"
      "}\n",
      {{"H", 5}});
  EXPECT_EQ(ids(result.programs.at(0)), std::vector<std::string>{"S2"});
  ASSERT_EQ(result.warnings.size(), 2u);
  EXPECT_EQ(result.warnings[0].message, "P is computed but nothing def 'h' returns depends on it: S0 dropped");
  EXPECT_EQ(result.warnings[1].message, "Q is computed but nothing def 'h' returns depends on it: S1 dropped");
}

}  // namespace
}  // namespace polyfuse
