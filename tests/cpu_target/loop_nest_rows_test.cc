// Row reductions in the CPU target's loop nests (codegen/cpu_loop_nest.cc): a sum, max or min over
// one index reduces on vectors (kernels/cpu's reduce_row for a plain contiguous read,
// reduce_terms computing the terms where they are reduced for any other right-hand side), checked
// against the reference at lengths around the partials' multiples; and the loop nests' locals never take an index's name (an index
// called row, count or acc compiled to a local shadowing it: a wrong sum, or no build).
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "runtime/api/run_program.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

TEST(LoopNestRows, RowsReduceOnVectorsAtEveryLength) {
  for (const std::int64_t n : {1, 31, 32, 37, 256, 300}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    for (const std::string example : {"softmax", "layernorm_rows", "cross_entropy"}) {
      SCOPED_TRACE(example);
      const Program program = compile_text(example_text(example), {{"M", 5}, {"N", n}}, example + ".tc");
      const RunRequest request = cpu_run_request(7);
      const std::string code = emit_cpu(program, request.cpu_schedule);
      if (example == "softmax") {
        EXPECT_NE(code.find("reduce_row(RowReduction::max, X + "), std::string::npos) << code;
      }
      if (example == "layernorm_rows") {
        EXPECT_NE(code.find("reduce_terms<RowReduction::sum>(" + std::to_string(n) + ", [&](int64_t n) { return "), std::string::npos) << code;
      }
      const RunReport report = run_program(program, request);
      EXPECT_TRUE(report.check.ok) << report.check.to_string();
    }
  }
}

// relu, abs, max and min in a loop nest's terms are written inline as kernels/cpu defines them
// (binary_max, binary_min, unary_abs: no call of apply per term), and keep the reference's values.
TEST(LoopNestRows, ExactOperationsAreWrittenInline) {
  const Program program = compile_text(R"(def f(f32(M, N) X, f32(M, N) Y) -> (f32(M) a, f32(M) r, f32(M) c) {
  a(m) max=! abs(X(m, n))
  r(m) +=! relu(X(m, n) - 0.25) * Y(m, n)
  c(m) min=! max(X(m, n), Y(m, n)) + min(X(m, n), 0.5)
})",
                                       {{"M", 6}, {"N", 45}}, "exact.tc");
  const RunRequest request = cpu_run_request(5);
  const std::string code = emit_cpu(program, request.cpu_schedule);
  for (const char* inline_text : {"unary_abs(X[", "binary_max((X[", "binary_max(X[", "binary_min(X["})
    EXPECT_NE(code.find(inline_text), std::string::npos) << inline_text << " missing:\n" << code;
  EXPECT_EQ(code.find("apply(UnaryOp::"), std::string::npos) << code;
  const RunReport report = run_program(program, request);
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
  EXPECT_EQ(report.check.unchecked(), 0);
}

TEST(LoopNestRows, LocalsNeverTakeAnIndexName) {
  const std::vector<std::string> programs = {
      // through the blocked plan: a loop nest stage (no matmul), and after a BRGEMM stage
      "def clash(f32(M, N) X) -> (f32(M) S) {\n  S(row) +=! exp(X(row, count)) * 2\n}\n",
      "def clash_max(f32(M, N) X) -> (f32(M) S) {\n  S(acc) max=! X(acc, term)\n}\n",
      "def clash_api(f32(M, N) reduce_terms) -> (f32(M) S) {\n  S(reduce_row) +=! reduce_terms(reduce_row, RowReduction) / 2\n}\n",
      "def clash_gemm(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C, f32(M) S) {\n"
      "  C(term, start) +=! A(term, k) * B(k, start)\n  S(term) +=! C(term, count) * 3\n}\n",
      // a def run entirely as loop nests (an integer tensor)
      "def clash_int(f32(M, N) X, int32(M) L) -> (f32(M) S) {\n  S(terms) +=! X(terms, acc) * L(terms)\n}\n"};
  for (const std::string& text : programs) {
    SCOPED_TRACE(text);
    const Program program = compile_text(text, {{"M", 5}, {"N", 300}, {"K", 7}}, "clash.tc");
    const RunReport report = run_program(program, cpu_run_request(3));
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

}  // namespace
}  // namespace polyfuse::testing
