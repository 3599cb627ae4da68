// Row chains on the CPU target (schedule/cpu_row_chains.h): softmax, a layer norm and the like run
// row block by row block through all of their stages. Which stages chain (a stage that reads what
// the chain writes at another row ends it: a planted transposed read, a loop nest reading a row
// statistic by column), the block size, and that a chain computes the same bits as the stages
// one after the other, on 1 and 3 threads, against the reference.
#include <gtest/gtest.h>

#include <optional>

#include "codegen/cpu_emit.h"
#include "schedule/cpu_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

// The outputs of `program` on the CPU target, checked against the reference.
reference::TensorData run_checked(const Program& program, int threads, bool chains, std::int64_t rows_hint = 0) {
  RunRequest request = cpu_run_request(7);
  request.cpu_schedule.threads = threads;
  request.cpu_schedule.min_parallel_flops = 0;
  request.cpu_schedule.row_chains = chains;
  if (rows_hint > 0) request.cpu_schedule.blocking = {rows_hint, 24, 32};
  const RunReport report = run_program(program, request);
  EXPECT_TRUE(report.check.ok) << threads << " threads, chains " << chains << ": " << report.check.to_string();
  return report.outputs;
}

// The plan of `program` on 3 threads, every stage of more than one block on them.
CpuPlan plan_on_three_threads(const Program& program) {
  CpuScheduleOptions options;
  options.threads = 3;
  options.min_parallel_flops = 0;
  return plan_cpu(program, options);
}

// A hazard after stages 0 and 1: they are the one chain, the rest not in it, and the results are
// the bits of the stages one after the other (a chain over the hazard reads rows not yet written).
void expect_a_chain_of_the_first_two_stages(const Program& program) {
  const CpuPlan plan = plan_on_three_threads(program);
  ASSERT_EQ(plan.row_chains.size(), 1u) << to_string(plan);
  EXPECT_EQ(plan.row_chains.front().first, 0u) << to_string(plan);
  EXPECT_EQ(plan.row_chains.front().last, 1u) << to_string(plan);
  EXPECT_FALSE(plan.stages.back().row_chain.has_value()) << to_string(plan);
  const reference::TensorData plain = run_checked(program, 1, false);
  EXPECT_TRUE(run_checked(program, 3, true) == plain);
}

TEST(RowChains, SoftmaxRunsRowBlockByRowBlockWithTheSameBits) {
  const Program program = compile_text(example_text("softmax"), {{"M", 100}, {"N", 37}}, "softmax.tc");
  const CpuPlan plan = plan_on_three_threads(program);
  ASSERT_EQ(plan.row_chains.size(), 1u) << to_string(plan);
  const CpuRowChain& chain = plan.row_chains.front();
  EXPECT_EQ(chain.first, 0u);
  EXPECT_EQ(chain.last, 3u);
  // 100 rows / (4 x 3 threads) = 8 (the L2 holds far more): 13 blocks, evened out to 15 (5 a
  // thread) of 7 rows
  EXPECT_EQ(chain.rows, 7) << to_string(plan);
  EXPECT_NE(to_string(plan).find("row chain stage0..stage3: m < 100 in blocks of 7 rows"), std::string::npos)
      << to_string(plan);
  // e, written and read only in the chain, is a block of 7 rows per thread, not 100 x 37
  EXPECT_EQ(chain.temporaries, std::vector<std::string>{"e"});
  EXPECT_EQ(plan.tensor("e").storage, CpuStorage::chain_local);
  const std::string code = emit_cpu(plan, program);
  EXPECT_NE(code.find("for (int64_t m0 = 0; m0 < 100; m0 += 7) {"), std::string::npos) << code;
  EXPECT_NE(code.find("alignas(64) static thread_local float e_storage[7 * 37];"), std::string::npos) << code;
  EXPECT_NE(code.find("float* const e = kept(e_storage);"), std::string::npos) << code;
  EXPECT_NE(code.find("reduce_row(RowReduction::sum, e + m * 37 - m0 * 37, 37)"), std::string::npos) << code;
  EXPECT_NE(code.find("for (int64_t m = m0; m < m0_end; ++m) {"), std::string::npos) << code;
  // the same bits as stage after stage, on 1 and 3 threads
  const reference::TensorData plain = run_checked(program, 1, false);
  EXPECT_TRUE(run_checked(program, 1, true) == plain);
  EXPECT_TRUE(run_checked(program, 3, true) == plain);
}

// A temporary that a stage after the chain reads (here by column: the chain ends before it) stays
// whole; the one only the chain touches is the chain's (checked: with `t` the chain's as well, the
// stage after the chain has no `t` to read, and the generated code does not build).
// The blocks are evened out over the threads: each thread runs as many blocks of as many rows
// (a layer norm at 1024 x 1024 on 2 threads: 63 rows fit half of L2, 17 blocks would give one
// thread 567 rows and the other 457; 18 blocks of 57 rows give them 513 and 511).
TEST(RowChains, BlocksAreEvenedOutOverTheThreads) {
  const Program program = compile_text(
      "def layernorm_rows(f32(M, N) X, f32(N) gamma, f32(N) beta) -> (f32(M, N) Y) {\n"
      "  mean(m) +=! X(m, n) / N\n"
      "  d(m, n) = X(m, n) - mean(m)\n"
      "  var(m) +=! d(m, n) * d(m, n) / N\n"
      "  Y(m, n) = d(m, n) * rsqrt(var(m) + 1e-5) * gamma(n) + beta(n)\n}\n",
      {{"M", 1024}, {"N", 1024}}, "layernorm_f32.tc");
  for (int threads : {1, 2, 3, 4}) {
    CpuScheduleOptions options;
    options.threads = threads;
    options.target.l2_bytes = 1 << 20;
    const CpuPlan plan = plan_cpu(cpu_program(program, options), options);  // d inlined, as the bench's
    ASSERT_EQ(plan.row_chains.size(), 1u) << to_string(plan);
    const std::int64_t rows = plan.row_chains.front().rows, blocks = (1024 + rows - 1) / rows;
    EXPECT_EQ(blocks % threads, 0) << threads << " threads, blocks of " << rows << " rows";
    EXPECT_GE(rows * blocks, 1024);
    EXPECT_LT(rows * (blocks - 1), 1024) << "every block has rows";
    if (threads == 2) {
      EXPECT_EQ(rows, 57) << to_string(plan);
    }
  }
}

TEST(RowChains, ATemporaryReadAfterTheChainStaysWhole) {
  const Program program = compile_text(R"(def f(f32(M, N) X) -> (f32(M, N) Y, f32(N, M) T) {
  mx(m) max=! X(m, n)
  t(m, n) = X(m, n) - mx(m)
  e(m, n) = exp(t(m, n))
  s(m) +=! e(m, n)
  Y(m, n) = e(m, n) / s(m)
  T(n, m) = t(m, n)
})",
                                       {{"M", 41}, {"N", 23}}, "after_the_chain.tc");
  const CpuPlan plan = plan_on_three_threads(program);
  ASSERT_EQ(plan.row_chains.size(), 1u) << to_string(plan);
  EXPECT_EQ(plan.row_chains.front().last, 3u) << to_string(plan);
  EXPECT_EQ(plan.tensor("t").storage, CpuStorage::full_temporary) << to_string(plan);
  EXPECT_EQ(plan.tensor("e").storage, CpuStorage::chain_local) << to_string(plan);
  const reference::TensorData plain = run_checked(program, 1, false);
  EXPECT_TRUE(run_checked(program, 3, true) == plain);
}

// Two chain temporaries (q, u), min and sum statistics between them, one-pass arithmetic (the
// generated code's loops) on the chain's block, odd blocks and three threads: the same bits as
// stage after stage.
TEST(RowChains, TwoTemporariesBetweenStatistics) {
  const Program program = compile_text(R"(def c(f32(M, N) X, f32(M, N) Z) -> (f32(M, N) Y) {
  q(m, n) = X(m, n) * Z(m, n) + X(m, n)
  r(m) min=! q(m, n)
  u(m, n) = q(m, n) - r(m) * 2.0 + Z(m, n) / (1.0 + X(m, n) * X(m, n))
  w(m) +=! u(m, n) * q(m, n)
  Y(m, n) = u(m, n) * w(m) - q(m, n)
})",
                                       {{"M", 130}, {"N", 41}}, "two_temporaries.tc");
  const CpuPlan plan = plan_on_three_threads(program);
  ASSERT_EQ(plan.row_chains.size(), 1u) << to_string(plan);
  EXPECT_EQ(plan.row_chains.front().temporaries, (std::vector<std::string>{"q", "u"})) << to_string(plan);
  EXPECT_NE(emit_cpu(plan, program).find("// the arithmetic, one pass"), std::string::npos);
  const reference::TensorData plain = run_checked(program, 1, false);
  EXPECT_TRUE(run_checked(program, 3, true) == plain);
  EXPECT_TRUE(run_checked(program, 2, true, 5) == plain);
}

// Every example with row statistics, f16 and f32, odd sizes: chained, checked, the same bits.
TEST(RowChains, ExamplesGiveTheBitsOfTheStagesOneAfterTheOther) {
  for (const std::string example : {"softmax", "layernorm_rows", "gemm_softmax", "layernorm", "rmsnorm", "cross_entropy"}) {
    SCOPED_TRACE(example);
    const Program program = compile_text(example_text(example), {{"M", 37}, {"N", 53}, {"K", 20}}, example + ".tc");
    const CpuPlan plan = plan_on_three_threads(program);
    EXPECT_FALSE(plan.row_chains.empty()) << to_string(plan);
    const reference::TensorData plain = run_checked(program, 1, false);
    EXPECT_TRUE(run_checked(program, 3, true) == plain);
    EXPECT_TRUE(run_checked(program, 2, true, 5) == plain) << "blocks of 5 rows";
  }
}

// A pointwise statement writing one value per row (a stage whose only index is its n) is a stage
// of the chain too: cross_entropy's max, sum, lse and loss are one chain.
TEST(RowChains, AValuePerRowJoinsTheChain) {
  const Program program = compile_text(example_text("cross_entropy"), {{"M", 100}, {"N", 37}}, "cross_entropy.tc");
  const CpuPlan plan = plan_on_three_threads(program);
  ASSERT_EQ(plan.row_chains.size(), 1u) << to_string(plan);
  EXPECT_EQ(plan.row_chains.front().first, 0u);
  EXPECT_EQ(plan.row_chains.front().last, 3u) << to_string(plan);
  EXPECT_NE(to_string(plan).find("stage2: the block's rows (a value per row)"), std::string::npos) << to_string(plan);
  const reference::TensorData plain = run_checked(program, 1, false);
  EXPECT_TRUE(run_checked(program, 3, true) == plain);
}

// A stage whose rows are another index of the same extent joins a chain; its columns may be the
// index the chain's block loop is named after (random program 31678: `int64_t i0` twice).
TEST(RowChains, TheBlockVariableAvoidsTheStagesLoopVariables) {
  const Program program = compile_text(R"(
def t(f32(M, N) C, f32(K, M) A5, f32(K, N) W6) -> (f32(M, N) W4, f32(M, N) C7) {
  W4(i, j) max=! C(i + r, j) where i in 0:M, j in 0:N, r in 0:3, C = 0 outside
  C7(i, j) +=! relu(A5(k, i)) * W6(k, j)
}
)",
                                       {{"K", 2}, {"M", 2}, {"N", 22}}, "t.tc");
  const CpuPlan plan = plan_cpu(program, CpuScheduleOptions{});
  ASSERT_EQ(plan.row_chains.size(), 1u) << to_string(plan);
  EXPECT_NE(emit_cpu(plan, program).find("int64_t i0_, int64_t i0)"), std::string::npos) << emit_cpu(plan, program);
  run_checked(program, 2, true);
}

// A pointwise statement reading e at another row (transposed) ends the chain before it: block by
// block it would read rows of e that no block has written yet.
TEST(RowChains, AReadOfTheChainsTensorAtAnotherRowEndsIt) {
  const Program program = compile_text(R"(
def t(f32(N, N) X) -> (f32(N, N) Y) {
  mx(m) max=! X(m, n)
  e(m, n) = exp(X(m, n) - mx(m))
  Y(m, n) = e(n, m) * 2
}
)",
                                       {{"N", 29}}, "t.tc");
  expect_a_chain_of_the_first_two_stages(program);
}

// A loop nest reading a row statistic along its columns (mx(n)) is not in the chain that writes it.
TEST(RowChains, ALoopNestReadingTheChainsTensorByColumnIsNotInIt) {
  const Program program = compile_text(R"(
def t(f32(N, N) X) -> (f32(N) S) {
  mx(m) max=! X(m, n)
  e(m, n) = X(m, n) - mx(m)
  S(m) +=! e(m, n) * mx(n)
}
)",
                                       {{"N", 31}}, "t.tc");
  expect_a_chain_of_the_first_two_stages(program);
}

}  // namespace
}  // namespace polyfuse::testing
