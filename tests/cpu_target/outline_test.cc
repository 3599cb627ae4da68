// Transcendental terms of row reductions computed on vectors first on the CPU target
// (schedule/cpu_outline.h): a cross-entropy's exp(X - mx) becomes a pointwise statement of a
// row chain; terms outside the rule (each broken once) stay in their loop; every program runs
// against the reference on 1 and 3 threads, with the pass and without it.
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "frontend/ir_printer.h"
#include "schedule/cpu_outline.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

// Checked against the reference on 1 and 3 threads, the terms outlined and not.
void expect_runs_either_way(const Program& program) {
  for (bool outline : {true, false})
    for (int threads : {1, 3}) {
      RunRequest request = cpu_run_request(17);
      request.cpu_schedule.threads = threads;
      request.cpu_schedule.min_parallel_flops = 0;
      request.cpu_schedule.outline_transcendental_terms = outline;
      const RunReport report = run_program(program, request);
      EXPECT_TRUE(report.check.ok) << (outline ? "outlined, " : "in the loop, ") << threads << " threads: "
                                   << report.check.to_string();
    }
}

TEST(CpuOutline, CrossEntropysExponentialIsAPointwiseStageOfTheRowChain) {
  for (const auto& [m, n] : {std::pair<std::int64_t, std::int64_t>{37, 29}, {3, 300}, {1, 1}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
    const Program program = compile_text(example_text("cross_entropy"), {{"M", m}, {"N", n}}, "cross_entropy.tc");
    const Program outlined = outline_transcendental_terms(program);
    ASSERT_EQ(outlined.statements.size(), 5u);
    EXPECT_EQ(print_statement_source(outlined.statements[1]), "S1_exp(m, n) = exp(X(m, n) - mx(m))");
    EXPECT_EQ(print_statement_source(outlined.statements[2]), "s(m) +=! S1_exp(m, n)");
    CpuScheduleOptions options;
    options.threads = 3;
    options.min_parallel_flops = 0;
    const std::string schedule = to_string(plan_cpu(cpu_program(program, options), options));
    EXPECT_NE(schedule.find("pointwise S1_exp: S1_exp(m, n) = exp(X(m, n) - mx(m))"), std::string::npos) << schedule;
    EXPECT_NE(schedule.find("S1_exp only a block of rows (per thread)"), std::string::npos) << schedule;
    const std::string code = emit_cpu(program, options);
    EXPECT_NE(code.find(".post = UnaryOp::exp"), std::string::npos) << code;
    EXPECT_EQ(code.find("apply(UnaryOp::exp"), std::string::npos) << "no scalar exponential left:\n" << code;
    options.outline_transcendental_terms = false;
    EXPECT_NE(emit_cpu(program, options).find("apply(UnaryOp::exp"), std::string::npos);
    expect_runs_either_way(program);
  }
}

// Each function with vector code, anywhere in a term, with a max and a min; a name taken; a
// matrix-vector product's (a loop nest's) terms.
TEST(CpuOutline, TermsOfEveryVectorFunction) {
  const Program program = compile_text(R"(def f(f32(M, N) X, f32(N) b, f32(M, N) S1_tanh) -> (f32(M) a, f32(M) c, f32(M) d) {
  a(m) +=! S1_tanh(m, n) * sigmoid(X(m, n) + b(n)) / N
  c(m) max=! 1 - tanh(X(m, n) * 0.5 - S1_tanh(m, n))
  d(m) min=! gelu(X(m, n)) + silu(b(n) - X(m, n))
})",
                                       {{"M", 19}, {"N", 45}}, "functions.tc");
  const Program outlined = outline_transcendental_terms(program);
  // the first of two calls, then the other
  EXPECT_EQ(statement_sources(outlined),
            (std::vector<std::string>{"S0_sigmoid(m, n) = sigmoid(X(m, n) + b(n))",
                                      "a(m) +=! S1_tanh(m, n) * S0_sigmoid(m, n) / 45",
                                      "S1_tanh_(m, n) = tanh(X(m, n) * 0.5 - S1_tanh(m, n))",
                                      "c(m) max=! 1 - S1_tanh_(m, n)",
                                      "S2_gelu_erf(m, n) = gelu_erf(X(m, n))",
                                      "S2_silu(m, n) = silu(b(n) - X(m, n))",
                                      "d(m) min=! S2_gelu_erf(m, n) + S2_silu(m, n)"}));
  expect_runs_either_way(program);

  // An entropy's log; sqrt, rsqrt and gelu_tanh (their arguments positive where they must be).
  const Program more = compile_text(R"(def f(f32(M, N) X) -> (f32(M) h, f32(M) r, f32(M) g) {
  h(m) +=! -abs(X(m, n)) * log(abs(X(m, n)) + 0.001)
  r(m) +=! sqrt(1 + X(m, n) * X(m, n)) - rsqrt(2 + X(m, n))
  g(m) max=! gelu_tanh(X(m, n) * 3)
})",
                                    {{"M", 7}, {"N", 53}}, "more.tc");
  const Program more_outlined = outline_transcendental_terms(more);
  EXPECT_EQ(statement_sources(more_outlined),
            (std::vector<std::string>{"S0_log(m, n) = log(abs(X(m, n)) + 0.001)", "h(m) +=! -abs(X(m, n)) * S0_log(m, n)",
                                      "S1_sqrt(m, n) = sqrt(1 + X(m, n) * X(m, n))", "S1_rsqrt(m, n) = rsqrt(2 + X(m, n))",
                                      "r(m) +=! S1_sqrt(m, n) - S1_rsqrt(m, n)",
                                      "S2_gelu_tanh(m, n) = gelu_tanh(X(m, n) * 3)", "g(m) max=! S2_gelu_tanh(m, n)"}));

  // A KL divergence's two logs: two temporaries, the second name taken once.
  const Program kl = compile_text(R"(def kl(f32(M, N) P, f32(M, N) Q) -> (f32(M) D) {
  D(m) +=! (abs(P(m, n)) + 0.01) * (log(abs(P(m, n)) + 0.01) - log(abs(Q(m, n)) + 0.01))
})",
                                  {{"M", 5}, {"N", 70}}, "kl.tc");
  const Program kl_outlined = outline_transcendental_terms(kl);
  EXPECT_EQ(statement_sources(kl_outlined),
            (std::vector<std::string>{"S0_log(m, n) = log(abs(P(m, n)) + 0.01)", "S0_log_(m, n) = log(abs(Q(m, n)) + 0.01)",
                                      "D(m) +=! (abs(P(m, n)) + 0.01) * (S0_log(m, n) - S0_log_(m, n))"}));
  expect_runs_either_way(kl);
  expect_runs_either_way(more);

  const Program gemv = compile_text("def f(f32(M, K) A, f32(K) v) -> (f32(M) y) {\n  y(m) +=! exp(A(m, k)) * v(k)\n}",
                                    {{"M", 9}, {"K", 70}}, "gemv.tc");
  const Program gemv_outlined = outline_transcendental_terms(gemv);
  ASSERT_EQ(gemv_outlined.statements.size(), 2u);
  EXPECT_EQ(print_statement_source(gemv_outlined.statements[1]), "y(m) +=! S0_exp(m, k) * v(k)");
  expect_runs_either_way(gemv);
}

// Each rule broken once: the reduction keeps its call, and the program still runs right.
TEST(CpuOutline, TermsOutsideTheRuleStay) {
  struct Case {
    const char* why;
    const char* text;
  };
  const Case cases[] = {
      {"a matmul's terms (its prologue computes exp(A) on vectors already)",
       "def f(f32(M, K) A, f32(K, N) B) -> (f32(M, N) y) {\n  y(m, n) +=! exp(A(m, k)) * B(k, n)\n}"},
      {"a column reduction (r not the contiguous index)", "def f(f32(M, N) X) -> (f32(N) y) {\n  y(n) +=! exp(X(m, n))\n}"},
      {"a product", "def f(f32(M, N) X) -> (f32(M) y) {\n  y(m) *=! exp(X(m, n))\n}"},
      {"two reduction indices", "def f(f32(M, N, K) X) -> (f32(M) y) {\n  y(m) +=! exp(X(m, n, k))\n}"},
      {"abs (as cheap as a read)", "def f(f32(M, N) X) -> (f32(M) y) {\n  y(m) +=! abs(X(m, n) - 0.5)\n}"},
      {"a call not depending on r", "def f(f32(M, N) X, f32(M) b) -> (f32(M) y) {\n  y(m) +=! X(m, n) * exp(b(m))\n}"},
      {"a `?:` in the argument", "def f(f32(M, N) X) -> (f32(M) y) {\n  y(m) +=! exp(n < 3 ? X(m, n) : 0)\n}"},
      {"a shifted read", "def f(f32(M, N) X) -> (f32(M) y) {\n  y(m) +=! exp(X(m, n + 1)) where n in 0:N-1\n}"},
      {"a boundary value", "def f(f32(M, N) X) -> (f32(M) y) {\n  y(m) +=! exp(X(m, n - 1)) where n in 0:N, X = 0 outside\n}"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    const Program program = compile_text(c.text, {{"M", 6}, {"N", 11}, {"K", 5}}, "stays.tc");
    const Program outlined = outline_transcendental_terms(program);
    ASSERT_EQ(outlined.statements.size(), program.statements.size());
    for (std::size_t i = 0; i < program.statements.size(); ++i)
      EXPECT_EQ(print_statement_source(outlined.statements[i]), print_statement_source(program.statements[i]));
    expect_runs_either_way(program);
  }
}

}  // namespace
}  // namespace polyfuse::testing
