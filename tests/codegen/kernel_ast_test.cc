// The isl AST of whole kernels, as isl prints it (golden files): the loop structure the
// CUDA printer walks.
#include <gtest/gtest.h>

#include "codegen/kernel_ast.h"
#include "plans.h"
#include "schedule/gpu_pipeline.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

GpuOptions options(int split_k, int stages) {
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32 / split_k};
  o.split_k = split_k;
  o.stages = stages;
  return o;
}

std::string ast_text(const KernelPlan& plan, const GpuOptions& o) {
  return kernel_ast_text(build_kernel_ast(build_gpu_schedule(plan, o), plan, o));
}

TEST(KernelAst, Gemm) {
  auto context = make_isl_context();
  EXPECT_TRUE(testing::matches_golden(ast_text(testing::gemm_plan(context.ctx()), options(1, 1)), "codegen/gemm.ast.c"));
}

TEST(KernelAst, GemmSplitK2DoubleBuffered) {
  auto context = make_isl_context();
  EXPECT_TRUE(testing::matches_golden(ast_text(testing::gemm_plan(context.ctx()), options(2, 2)), "codegen/gemm_splitk2_stages2.ast.c"));
}

TEST(KernelAst, GemmEpilogue) {
  auto context = make_isl_context();
  EXPECT_TRUE(testing::matches_golden(ast_text(testing::gemm_epilogue_plan(context.ctx()), options(1, 2)), "codegen/gemm_epilogue.ast.c"));
}

TEST(KernelAst, BatchedGemm) {
  auto context = make_isl_context();
  EXPECT_TRUE(testing::matches_golden(ast_text(testing::batched_gemm_plan(context.ctx()), options(1, 2)), "codegen/batched_gemm.ast.c"));
}

}  // namespace
}  // namespace polyfuse
