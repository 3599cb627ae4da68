// `?:`, comparisons and index values (frontend/condition.h) on the CPU target: a def without
// a matmul runs them as loop nests (codegen/cpu_loop_nest.h), and a def with one as loop-nest
// stages beside its blocked ones, checked against the exact reference; a matmul's own
// right-hand side with them (a prologue inside the product) is refused, at the statement.
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "runtime/api/run_program.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

RunReport run_cpu(const std::string& text, const SizeBindings& sizes) { return run_text_on_cpu(text, sizes, "conditions.tc"); }

std::string cpu_error(const std::string& text, const SizeBindings& sizes) {
  try {
    run_cpu(text, sizes);
  } catch (const UserError& e) {
    const Diagnostic& d = e.diagnostics().front();
    return std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
  }
  return "";
}

TEST(ConditionsCpu, LoopNestsWithoutAMatmul) {
  const RunReport report = run_cpu(R"(def f(float(N) X, float(N, N) Y) -> (O, R) {
  O(i) = (i < 2 && X(i) > 0) || !(i == 3) ? float(i + 1) : -X(i)
  R(i) +=! r_k < i ? Y(i, r_k)
      : r_k + 1
})", {{"N", 7}});
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

TEST(ConditionsCpu, LoopNestStageBesideAMatmul) {
  const RunReport report = run_cpu(R"(def f(f16(M, K) A, f16(K, N) B) -> (O) {
  C(m, n) +=! A(m, k) * B(k, n)
  O(m, n) = m == n ? C(m, n) : 0
})", {{"M", 17}, {"N", 13}, {"K", 9}});
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

TEST(ConditionsCpu, RefusedInAMatmulsRightHandSide) {
  EXPECT_EQ(cpu_error(R"(def f(f16(M, K) A, f16(K, N) B) -> (O) {
  O(m, n) +=! (A(m, k) > 0 ? A(m, k) : 0) * B(k, n)
})", {{"M", 16}, {"N", 16}, {"K", 16}}),
            "2:3: the CPU target does not support statement S0 'O(m, n) +=! (A(m, k) > 0 ? A(m, k) : 0) * B(k, n)': "
            "a matmul's right-hand side with '?:' or index variables used as values is not supported yet (the "
            "BRGEMM takes neither)");
}

}  // namespace
}  // namespace polyfuse::testing
