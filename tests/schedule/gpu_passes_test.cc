// Each GPU schedule pass on hand-built plans, diffed against golden dumps in
// tests/golden/schedule/ (UPDATE_GOLDEN=1 rewrites them).
#include <gtest/gtest.h>

#include <sstream>

#include "frontend/diagnostics.h"
#include "plans.h"
#include "schedule/gpu_pipeline.h"
#include "schedule/schedule_printer.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using testing::matches_golden;

GpuOptions small_options() {
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32};
  o.mma = MmaShape::m16n8k16;
  o.stages = 1;
  return o;
}

// Dumps after every pass, one golden file per pass.
void expect_golden_passes(const KernelPlan& plan, const GpuOptions& options, const std::string& prefix) {
  for (const std::string& pass : gpu_pass_names()) {
    std::ostringstream dump;
    build_gpu_schedule(plan, options, PassDumps{{pass}, &dump});
    EXPECT_TRUE(matches_golden(dump.str(), "schedule/" + prefix + "." + pass + ".yaml")) << "pass " << pass;
  }
}

TEST(GpuPasses, GemmEveryPass) {
  auto context = make_isl_context();
  expect_golden_passes(testing::gemm_plan(context.ctx()), small_options(), "gemm");
}

TEST(GpuPasses, GemmSplitK2DoubleBuffered) {
  auto context = make_isl_context();
  GpuOptions o = small_options();
  o.split_k = 2;
  o.warp.k = 16;
  o.stages = 2;
  expect_golden_passes(testing::gemm_plan(context.ctx()), o, "gemm_splitk2_stages2");
}

// A ring of 4 shared stages (issue 19): the pipeline_prologue loop over the first 3
// k-steps' copies and commit groups, then per k-step the wait (2 pending), the copies of
// k-step i+3 into buffer (i+3) mod 4 and their commit; the fragments read buffer i mod 4;
// one drain barrier after the loop.
TEST(GpuPasses, GemmRingOf4Stages) {
  auto context = make_isl_context();
  GpuOptions o = small_options();
  o.stages = 4;
  for (const std::string pass : {"insert_copies", "map_to_gpu"}) {
    std::ostringstream dump;
    build_gpu_schedule(testing::gemm_plan(context.ctx()), o, PassDumps{{pass}, &dump});
    EXPECT_TRUE(matches_golden(dump.str(), "schedule/gemm_stages4." + pass + ".yaml")) << "pass " << pass;
  }
}

TEST(GpuPasses, GemmColumnMajorOperands) {
  auto context = make_isl_context();
  KernelPlan plan = testing::gemm_plan(context.ctx(), OperandLayout::col_major, OperandLayout::col_major);
  std::ostringstream dump;
  build_gpu_schedule(plan, small_options(), PassDumps{{"insert_copies"}, &dump});
  EXPECT_TRUE(matches_golden(dump.str(), "schedule/gemm_colcol.insert_copies.yaml"));
}

TEST(GpuPasses, GemmBiasReluEpilogue) {
  auto context = make_isl_context();
  expect_golden_passes(testing::gemm_epilogue_plan(context.ctx()), small_options(), "gemm_epilogue");
}

// Two matmuls that share their A tile (issue 21): one k band with both statements, one
// warp band, a sequence of the two macro-MMA statements below the k-slices; the leader's
// extension copies X and its own B, the other only its B; one commit, wait and drain.
TEST(GpuPasses, SharedOperandTileEveryPass) {
  auto context = make_isl_context();
  GpuOptions o = small_options();
  o.stages = 2;
  expect_golden_passes(testing::swiglu_plan(context.ctx()), o, "swiglu");
}

TEST(GpuPasses, BatchedGemm) {
  auto context = make_isl_context();
  std::ostringstream dump;
  build_gpu_schedule(testing::batched_gemm_plan(context.ctx()), small_options(), PassDumps{{"map_to_gpu"}, &dump});
  EXPECT_TRUE(matches_golden(dump.str(), "schedule/batched_gemm.map_to_gpu.yaml"));
}

// Two batch dimensions: the block band's first two members map to batch_0 and batch_1,
// which the kernel computes from blockIdx.z.
TEST(GpuPasses, MultiheadBatchedGemm) {
  auto context = make_isl_context();
  std::ostringstream dump;
  build_gpu_schedule(testing::multihead_batched_gemm_plan(context.ctx()), small_options(), PassDumps{{"map_to_gpu"}, &dump});
  EXPECT_TRUE(matches_golden(dump.str(), "schedule/multihead_batched_gemm.map_to_gpu.yaml"));
}

TEST(GpuPasses, UnknownDumpPassIsAnError) {
  EXPECT_THROW(validate_dump_request({"block_tile", "tile_everything"}), UserError);
  EXPECT_NO_THROW(validate_dump_request({"all", "prefetch"}));
}

}  // namespace
}  // namespace polyfuse
