// The CPU schedule: Goto blocking from cache sizes, fusion into stages, storage of
// temporaries, and the programs the CPU target refuses (a UserError naming the statement).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "codegen/cpu_emit.h"
#include "frontend/diagnostics.h"
#include "support/golden.h"
#include "schedule/cpu_parallel_stages.h"
#include "schedule/cpu_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

TEST(CpuBlocking, GotoBlockingFromCacheSizes) {
  EXPECT_EQ(goto_blocking(default_cpu_target()), (CpuBlocking{256, 1024, 512}));
  CpuTarget small;
  small.l1d_bytes = 16 * 1024;  // kc: 8 KiB / (6 * 4) = 341 -> 256
  small.l2_bytes = 256 * 1024;  // mc: 128 KiB / (256 * 4) = 128; nc: 256 KiB / (128 * 4) = 512
  EXPECT_EQ(goto_blocking(small), (CpuBlocking{128, 512, 256}));
  CpuTarget tiny;
  tiny.l1d_bytes = 1024;
  tiny.l2_bytes = 8 * 1024;
  EXPECT_EQ(goto_blocking(tiny), (CpuBlocking{32, 64, 64}));  // kc and mc clamped; nc: 8 KiB / (32 * 4)
  CpuTarget large;
  large.l2_bytes = 4 << 20;
  EXPECT_EQ(goto_blocking(large).nc, 1024);  // clamped
  const CpuTarget detected = detect_cpu_target();
  EXPECT_GT(detected.l1d_bytes, 0);
  EXPECT_GT(detected.l2_bytes, 0);
}

CpuPlan plan_of(const std::string& text, const SizeBindings& sizes, CpuBlocking blocking = {}) {
  CpuScheduleOptions options;
  options.blocking = blocking;
  return plan_cpu(compile_text(text, sizes), options);
}

const SizeBindings k64 = {{"M", 64}, {"N", 64}, {"K", 64}};

// A stage below min_parallel_flops runs on the calling thread: no OpenMP region.
TEST(CpuPlan, SmallStagesRunOnOneThread) {
  const Program program = compile_text(example_text("gemm_bias_relu"), k64);
  CpuScheduleOptions options;
  options.blocking = {32, 32, 32};  // 4 blocks
  CpuPlan plan = plan_cpu(program, options);
  ASSERT_EQ(plan.stages.size(), 1u);
  EXPECT_EQ(plan.stages[0].flops, 2 * 64 * 64 * 64 + 2 * 64 * 64);  // the matmul; bias add and relu
  EXPECT_FALSE(plan.stages[0].parallel);
  EXPECT_NE(to_string(plan).find("stage0: one thread over m < 64 in blocks of 32"), std::string::npos) << to_string(plan);
  EXPECT_EQ(emit_cpu(plan, program).find("#pragma omp"), std::string::npos);
  options.min_parallel_flops = plan.stages[0].flops;  // at the threshold: parallel
  plan = plan_cpu(program, options);
  EXPECT_TRUE(plan.stages[0].parallel);
  // (B shared by the row blocks: packed inside the region, each thread its share, then the loops)
  const std::string code = emit_cpu(plan, program);
  EXPECT_NE(code.find("#pragma omp parallel\n"), std::string::npos) << code;
  EXPECT_NE(code.find(", omp_get_thread_num(), omp_get_num_threads());\n    #pragma omp barrier\n"
                      "    #pragma omp for collapse(2) schedule(static)"),
            std::string::npos)
      << code;
}

// A parallel stage with fewer output blocks than its threads splits its column block, then its
// row block, until each thread has one (ResNet's res4 1x1 layer at batch 1: M = 196, N = 256,
// one 256 x 1024 block); with the thread count unset (OpenMP's default) nothing changes. The
// split leaves the results' bits alone (CpuThreads.* runs 1, 2 and 3 threads).
TEST(CpuPlan, FewBlocksSplitForTheThreads) {
  const Program program = compile_text(example_text("gemm"), {{"M", 196}, {"N", 256}, {"K", 1024}});
  CpuScheduleOptions options;
  const CpuPlan unset = plan_cpu(program, options);
  EXPECT_EQ(stage_blocks(unset.stages.at(0)), 1);
  options.threads = 2;
  const CpuPlan two = plan_cpu(program, options);
  EXPECT_EQ(two.stages.at(0).blocking.nc, 128);
  EXPECT_EQ(stage_blocks(two.stages.at(0)), 2);
  options.threads = 3;  // N first, down to 32 columns a block
  const CpuPlan three = plan_cpu(program, options);
  EXPECT_EQ(three.stages.at(0).blocking.nc, 64);
  EXPECT_EQ(stage_blocks(three.stages.at(0)), 4);
  options.threads = 16;  // then M (128 + 68 rows, balanced: 98 + 98)
  const CpuPlan sixteen = plan_cpu(program, options);
  EXPECT_EQ(sixteen.stages.at(0).blocking.nc, 32);
  EXPECT_EQ(sixteen.stages.at(0).blocking.mc, 98);
  EXPECT_EQ(stage_blocks(sixteen.stages.at(0)), 16);
  // a stage that runs on one thread (below min_parallel_flops) keeps its blocks
  const CpuPlan small = plan_cpu(compile_text(example_text("gemm"), {{"M", 64}, {"N", 64}, {"K", 64}}), options);
  EXPECT_FALSE(small.stages.at(0).parallel);
  EXPECT_EQ(stage_blocks(small.stages.at(0)), 1);
}

// Row blocks of one size, and as many as make the blocks a multiple of the threads when that
// takes a few more: M = 392 in 196 + 196 (not 256 + 136), M = 1568 in 8 of 196 (not 7 of 256,
// 4 + 3 on 2 threads); a copy stage below the threshold runs on the calling thread.
TEST(CpuPlan, RowBlocksBalancedForTheThreads) {
  CpuScheduleOptions options;
  options.threads = 2;
  const CpuPlan two_blocks = plan_cpu(compile_text(example_text("gemm"), {{"M", 392}, {"N", 256}, {"K", 1024}}), options);
  EXPECT_EQ(two_blocks.stages.at(0).blocking.mc, 196);
  EXPECT_EQ(stage_blocks(two_blocks.stages.at(0)), 2);
  const CpuPlan eight = plan_cpu(compile_text(example_text("gemm"), {{"M", 1568}, {"N", 128}, {"K", 512}}), options);
  EXPECT_EQ(eight.stages.at(0).blocking.mc, 196);
  EXPECT_EQ(stage_blocks(eight.stages.at(0)), 8);
  options.threads = 1;  // sizes balanced, no more blocks
  const CpuPlan one = plan_cpu(compile_text(example_text("gemm"), {{"M", 1568}, {"N", 128}, {"K", 512}}), options);
  EXPECT_EQ(one.stages.at(0).blocking.mc, 224);
  EXPECT_EQ(stage_blocks(one.stages.at(0)), 7);
  const Program conv = compile_text(
      "def conv(f32(N, H, W, C) I, f32(K, R, S, C) F) -> (f32(N, H, W, K) O) {\n"
      "  O(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c) where I = 0 outside\n}\n",
      {{"N", 1}, {"H", 6}, {"W", 5}, {"C", 3}, {"K", 4}, {"R", 3}, {"S", 3}});
  const CpuPlan padded = plan_cpu(conv, options);
  ASSERT_TRUE(padded.stages.at(0).pad) << to_string(padded);
  EXPECT_FALSE(padded.stages.at(0).parallel);
  EXPECT_NE(to_string(padded).find("one thread (168 elements, below the parallel threshold)"), std::string::npos)
      << to_string(padded);
  const std::string code = emit_cpu(padded, conv);
  const std::size_t copy = code.find("  // stage0:"), blocks = code.find("  // stage1:");
  ASSERT_NE(copy, std::string::npos);
  ASSERT_NE(blocks, std::string::npos);
  EXPECT_EQ(code.substr(copy, blocks - copy).find("#pragma omp"), std::string::npos) << code.substr(copy, blocks - copy);
}

// A copy below the threshold that a parallel stage reads runs on the threads from
// kCpuMinParallelCopyElements (ResNeXt-50's grouped 3x3 at 28 x 28: its padded input); a smaller
// one (its packed filter), or one whose reader runs on one thread, stays on the calling thread.
TEST(CpuPlan, CopiesThatAParallelStageReadsShareItsThreads) {
  const std::string grouped =
      "def conv(f32(N, H, W, G, C) I, f32(G, K, R, S, C) F) -> (f32(N, H, W, G, K) O) {\n"
      "  O(n, h, w, g, k) +=! I(n, h + r - 1, w + s - 1, g, c) * F(g, k, r, s, c) where I = 0 outside\n}\n";
  CpuScheduleOptions options;
  options.threads = 2;
  const CpuPlan plan = plan_cpu(
      compile_text(grouped, {{"N", 1}, {"H", 28}, {"W", 28}, {"G", 32}, {"C", 8}, {"K", 8}, {"R", 3}, {"S", 3}}), options);
  ASSERT_EQ(plan.stages.size(), 3u) << to_string(plan);
  ASSERT_TRUE(plan.stages[0].permute) << to_string(plan);
  ASSERT_TRUE(plan.stages[1].pad) << to_string(plan);
  EXPECT_LT(plan.stages[1].flops, options.min_parallel_flops);  // 230,400 elements
  EXPECT_TRUE(plan.stages[2].parallel);
  EXPECT_TRUE(plan.stages[1].parallel) << to_string(plan);
  EXPECT_FALSE(plan.stages[0].parallel) << to_string(plan);  // 18,432 elements
  EXPECT_NE(to_string(plan).find("one thread (18432 elements, below the parallel threshold)"), std::string::npos)
      << to_string(plan);
  // the same copy before a convolution below the threshold: one thread
  const CpuPlan small = plan_cpu(
      compile_text(grouped, {{"N", 1}, {"H", 28}, {"W", 28}, {"G", 32}, {"C", 8}, {"K", 1}, {"R", 1}, {"S", 1}}), options);
  ASSERT_TRUE(small.stages.size() >= 2u && small.stages[small.stages.size() - 2].pad) << to_string(small);
  EXPECT_FALSE(small.stages.back().parallel) << to_string(small);
  EXPECT_FALSE(small.stages[small.stages.size() - 2].parallel) << to_string(small);
}

TEST(CpuPlan, EpilogueFusesIntoTheMatmulStage) {
  const CpuPlan plan = plan_of(example_text("gemm_bias_relu"), k64);
  ASSERT_EQ(plan.stages.size(), 1u);
  EXPECT_EQ(plan.stages[0].matmuls.size(), 1u);
  EXPECT_EQ(plan.stages[0].pointwise.size(), 1u);
  EXPECT_EQ(plan.tensor("C").storage, CpuStorage::block_local);
  EXPECT_EQ(plan.tensor("D").storage, CpuStorage::parameter);
}

TEST(CpuPlan, TwoMatmulsAndTheirSumShareOneStage) {
  const CpuPlan plan = plan_of(example_text("add_gemms"), k64);
  ASSERT_EQ(plan.stages.size(), 1u);
  EXPECT_EQ(plan.stages[0].matmuls.size(), 2u);
  EXPECT_EQ(plan.tensor("C1").storage, CpuStorage::block_local);
  EXPECT_EQ(plan.tensor("C2").storage, CpuStorage::block_local);
}

TEST(CpuPlan, PrologueStatementIsItsOwnStageWithAFullTemporary) {
  const CpuPlan plan = plan_of(example_text("relu_gemm"), k64);
  ASSERT_EQ(plan.stages.size(), 2u);
  EXPECT_EQ(plan.stages[0].pointwise.size(), 1u);
  EXPECT_EQ(plan.stages[1].matmuls.size(), 1u);
  EXPECT_EQ(plan.tensor("Ar").storage, CpuStorage::full_temporary);
  EXPECT_EQ(plan.stages[1].matmuls[0].dtype, ElementType::f16);
}

TEST(CpuPlan, FactorPrologueAndMixedTypesBecomePrologueStages) {
  const CpuPlan plan = plan_of(R"(
def f(f16(M, K) A, f32(K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! sigmoid(A(m, k)) * B(k, n)
})", k64);
  ASSERT_EQ(plan.stages.size(), 2u);
  const CpuTensor& converted = plan.tensor("S0_A");
  EXPECT_TRUE(converted.synthetic);
  EXPECT_EQ(converted.type, ElementType::f32);  // common type of f16 and f32
  EXPECT_EQ(converted.storage, CpuStorage::full_temporary);
  EXPECT_EQ(plan.stages[1].matmuls[0].a.tensor, "S0_A");
  EXPECT_EQ(plan.stages[1].matmuls[0].b.tensor, "B");
}

TEST(CpuPlan, KSlicesAndBatchReduce) {
  const CpuPlan gemm = plan_of(example_text("gemm"), {{"M", 8}, {"N", 8}, {"K", 100}}, {32, 32, 32});
  const CpuMatmul& matmul = gemm.stages.at(0).matmuls.at(0);
  EXPECT_EQ(matmul.kc, 32);
  EXPECT_EQ(matmul.k_slices, 3);
  EXPECT_EQ(matmul.k_tail, 4);
  const CpuPlan brgemm =
      plan_of(example_text("brgemm"), {{"R", 3}, {"M", 8}, {"N", 8}, {"K", 100}}, {32, 32, 32});
  const CpuMatmul& reduce = brgemm.stages.at(0).matmuls.at(0);
  EXPECT_EQ(reduce.reduce_batch, 3);
  EXPECT_EQ(reduce.kc, 100);
  EXPECT_EQ(reduce.k_slices, 1);
}

TEST(CpuPlan, TransposedReadOfAMatmulResultStartsANewStage) {
  const CpuPlan plan = plan_of(R"(
def t(f32(M, K) A, f32(K, M) B) -> (f32(M, M) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = C(m, n) + C(n, m)
})", {{"M", 16}, {"K", 16}});
  ASSERT_EQ(plan.stages.size(), 2u);
  EXPECT_EQ(plan.tensor("C").storage, CpuStorage::full_temporary);
}

// The message of the UserError that compiling `text` for the CPU throws.
std::string cpu_error(const std::string& text, const SizeBindings& sizes) {
  try {
    plan_of(text, sizes);
  } catch (const UserError& error) {
    const Diagnostic& first = error.diagnostics().at(0);
    return std::to_string(first.line) + ":" + std::to_string(first.col) + ": " + first.message;
  }
  return "";
}

// A reduction that is not a matmul, beside a matmul, is a loop-nest stage between blocked ones,
// on whole tensors.
TEST(CpuPlan, RowReductionAfterAMatmulIsALoopNestStage) {
  const CpuPlan plan = plan_of(R"(def rows(f32(M, K) A, f32(K, N) B) -> (f32(M) s) {
  C(m, n) +=! A(m, k) * B(k, n)
  s(m) +=! C(m, n)
})", {{"M", 8}, {"N", 8}, {"K", 8}});
  ASSERT_EQ(plan.stages.size(), 2u);
  EXPECT_EQ(plan.stages[0].matmuls.size(), 1u);
  ASSERT_TRUE(plan.stages[1].loop_nest.has_value());
  EXPECT_EQ(plan.stages[1].loop_nest->statement, "S1");
  EXPECT_EQ(plan.stages[1].loop_nest->why, "not a matmul: the right-hand side is not a product");
  EXPECT_EQ(plan.tensor("C").storage, CpuStorage::full_temporary);
}

// Every example is compiled by the CPU tests (example_names, loop_nest_examples, ...): none is
// silently left out.
TEST(CpuExamples, EveryExampleIsListed) {
  namespace fs = std::filesystem;
  std::set<std::string> listed(example_names().begin(), example_names().end());
  for (const std::string& name : loop_nest_examples()) EXPECT_TRUE(listed.insert(name).second) << name;
  for (const std::string& name : convolution_examples()) EXPECT_TRUE(listed.insert(name).second) << name;
  for (const std::string& name : contraction_examples()) EXPECT_TRUE(listed.insert(name).second) << name;
  for (const std::string& name : attention_examples()) EXPECT_TRUE(listed.insert(name).second) << name;
  std::set<std::string> found;
  for (const auto& entry : fs::directory_iterator(source_path("examples")))
    if (entry.path().extension() == ".tc") found.insert(entry.path().stem().string());
  EXPECT_EQ(found, listed);
}

// A statement reading through index expressions (issue 24) beside a matmul is a loop-nest stage
// (a padded read: the loop nest's bounds check); run against the reference in
// run_examples_test.cc's CpuLoopNestStages.
TEST(CpuPlan, IndexExpressionsBesideAMatmulAreALoopNestStage) {
  const CpuPlan plan = plan_of(R"(def gemm_shift(f16(M, K) A, f16(K, N) B, f16(M, N) X) -> (f16(M, N) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = relu(C(m, n) + X(m, n + 1)) where X = 0 outside
})", {{"M", 8}, {"N", 8}, {"K", 8}});
  ASSERT_EQ(plan.stages.size(), 2u);
  ASSERT_TRUE(plan.stages[1].loop_nest.has_value());
  EXPECT_NE(plan.stages[1].loop_nest->why.find("index expressions"), std::string::npos) << plan.stages[1].loop_nest->why;
}

TEST(CpuPlanErrors, UnboundSize) {
  EXPECT_EQ(cpu_error(example_text("gemm"), {{"M", 4}, {"K", 4}}),
            "3:5: the CPU target needs every size bound: size 'N' of def 'gemm' is not (bind it "
            "with -D N=VALUE)");
}

// A pointwise read that no block primitive takes (three indices permuted) was refused; found by
// scripts/random-programs after a batched matmul. It is a loop-nest stage now, between the
// blocked ones, and runs against the reference.
TEST(CpuPlan, PermutedReadsOfThreeIndicesAreALoopNestStage) {
  const std::string text = R"(def permuted(f32(B, M, K) A, f32(B, K, N) W, f32(M, N, B) X) -> (f32(N, M, B) P, f32(B, M, N) D) {
  C(b, m, n) +=! A(b, m, k) * W(b, k, n)
  P(n, m, b) = C(b, m, n) * 2
  D(b, m, n) = X(m, n, b) + C(b, m, n)
})";
  const SizeBindings sizes{{"M", 5}, {"N", 7}, {"K", 3}, {"B", 3}};
  const CpuPlan plan = plan_of(text, sizes);
  int nests = 0;
  for (const CpuStage& stage : plan.stages)
    if (stage.loop_nest) {
      ++nests;
      EXPECT_NE(stage.loop_nest->why.find("is not an element, a row, a column or a scalar of the block it writes"),
                std::string::npos)
          << stage.loop_nest->why;
    }
  EXPECT_EQ(nests, 2);
  const RunReport report = run_text_on_cpu(text, sizes, "permuted.tc");
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

}  // namespace
}  // namespace polyfuse::testing
