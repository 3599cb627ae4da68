// The CPU schedule: Goto blocking from cache sizes, fusion into stages, storage of
// temporaries, and the programs the CPU target refuses (a UserError naming the statement).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "frontend/diagnostics.h"
#include "support/golden.h"
#include "schedule/cpu_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

TEST(CpuBlocking, GotoBlockingFromCacheSizes) {
  EXPECT_EQ(goto_blocking(default_cpu_target()), (CpuBlocking{256, 256, 512}));
  CpuTarget small;
  small.l1d_bytes = 16 * 1024;  // kc: 8 KiB / (6 * 4) = 341 -> 256
  small.l2_bytes = 256 * 1024;  // mc: 128 KiB / (256 * 4) = 128; nc: 64 KiB / (128 * 4) = 128
  EXPECT_EQ(goto_blocking(small), (CpuBlocking{128, 128, 256}));
  CpuTarget tiny;
  tiny.l1d_bytes = 1024;
  tiny.l2_bytes = 8 * 1024;
  EXPECT_EQ(goto_blocking(tiny), (CpuBlocking{32, 32, 64}));  // clamped
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

TEST(CpuPlanErrors, ReductionThatIsNotAMatmul) {
  EXPECT_EQ(cpu_error(R"(def rowsum(f32(M, K) A) -> (f32(M) s) {
  s(m) +=! A(m, k)
})", {{"M", 4}, {"K", 4}}),
            "2:3: the CPU target does not support statement S0 's(m) +=! A(m, k)': this reduction is not a matmul "
            "(the right-hand side is not a product); reductions that are not matmuls (row reductions: softmax, "
            "layer norm, ...) are not supported yet on the CPU target: they wait for issue 20's kernel plans");
}

// Every example is compiled by the CPU tests (example_names, loop_nest_examples) or waits
// for kernel plans and is refused with the rule's message: none is silently left out.
TEST(CpuExamples, EveryExampleIsListed) {
  namespace fs = std::filesystem;
  std::set<std::string> listed(example_names().begin(), example_names().end());
  for (const std::string& name : loop_nest_examples()) EXPECT_TRUE(listed.insert(name).second) << name;
  for (const std::string& name : examples_waiting_for_kernel_plans()) EXPECT_TRUE(listed.insert(name).second) << name;
  for (const std::string& name : convolution_examples()) EXPECT_TRUE(listed.insert(name).second) << name;
  for (const std::string& name : contraction_examples()) EXPECT_TRUE(listed.insert(name).second) << name;
  std::set<std::string> found;
  for (const auto& entry : fs::directory_iterator(source_path("examples")))
    if (entry.path().extension() == ".tc") found.insert(entry.path().stem().string());
  EXPECT_EQ(found, listed);
  for (const std::string& name : examples_waiting_for_kernel_plans()) {
    SCOPED_TRACE(name);
    const std::string error = cpu_error(example_text(name), {{"M", 8}, {"N", 8}, {"K", 8}});
    EXPECT_NE(error.find("are not supported yet on the CPU target: they wait for issue 20's kernel plans"),
              std::string::npos)
        << error;
  }
}

// A def with a matmul and a statement reading through index expressions (issue 24) is
// refused at that statement; a def without a matmul runs it (conv_examples_test.cc).
TEST(CpuPlanErrors, IndexExpressionsBesideAMatmul) {
  EXPECT_EQ(cpu_error(R"(def gemm_shift(f16(M, K) A, f16(K, N) B, f16(M, N) X) -> (f16(M, N) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = relu(C(m, n) + X(m, n + 1)) where X = 0 outside
})",
                      {{"M", 8}, {"N", 8}, {"K", 8}}),
            "3:3: the CPU target does not support statement S1 'D(m, n) = relu(C(m, n) + X(m, n + 1)) where X = 0 "
            "outside': this statement reads through index expressions (a convolution, a shift or a padded read); "
            "beside a matmul such statements are not supported yet on the CPU target (a def without a matmul runs "
            "them)");
}

TEST(CpuPlanErrors, UnboundSize) {
  EXPECT_EQ(cpu_error(example_text("gemm"), {{"M", 4}, {"K", 4}}),
            "3:5: the CPU target needs every size bound: size 'N' of def 'gemm' is not (bind it "
            "with -D N=VALUE)");
}

TEST(CpuPlanErrors, ReadThatIsNotAnElementRowColumnOrScalar) {
  const std::string error = cpu_error(R"(def batch_last(f32(M, N, B) X) -> (f32(B, M, N) D) {
  D(b, m, n) = X(m, n, b)
})", {{"M", 4}, {"N", 4}, {"B", 2}});
  EXPECT_EQ(error, "2:3: the CPU target does not support statement S0 'D(b, m, n) = X(m, n, b)': "
                   "its read of 'X' is not an element, a row, a column or a scalar of the block it writes");
}

}  // namespace
}  // namespace polyfuse::testing
