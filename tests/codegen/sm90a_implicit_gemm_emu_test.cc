// Convolutions as implicit GEMMs on sm_90a's TMA + wgmma kernel (codegen/hopper_implicit_gemm.h):
// the producer warpgroup's threads gather A (the input's im2col matrix) by cp.async into the
// 128-byte-swizzled K-major stages, several k-blocks in flight, TMA loads the filter, the consumers
// run wgmma and the fused epilogues. On the emulator against the exact reference, f16 and bf16, at odd shapes (M, the output channels and
// R*S*C multiples of none of the 128 x 128 x 64 tiles; padding; stride 2; a dilated RSCK filter),
// both consumer schedules, few SMs (each block walks several tiles); only the output is stored.
// What stays on the mma.sync implicit-GEMM kernel says why; planted bugs in the gather fail.
#include <gtest/gtest.h>

#include <regex>

#include "codegen/cuda_plan.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "polyfuse/errors.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

Program typed_example(const std::string& example, const std::string& type, const SizeBindings& sizes) {
  return compile_program(std::regex_replace(example_source(example), std::regex(R"(\bf32\()"), type + "("), sizes);
}

GpuOptions sm90a() { return default_gpu_options(Arch::sm_90a); }

// The plan's kernels' CUDA text for sm_90a.
std::string sm90a_text(const Program& program, const GpuOptions& options = sm90a()) {
  CudaEmitRequest request;
  request.options = options;
  return emit_cuda_plan(program, plan_program(program, recognize_idioms(program)), request).source;
}

// Runs `program` (one implicit-GEMM kernel) on sm_90a: the reference check, the TMA + wgmma loop
// (wgmma and TMA counted) and only `stored` bytes written.
void expect_wgmma_ok(const Program& program, std::uint64_t stored, const std::string& what,
                     const GpuOptions& options = sm90a()) {
  SCOPED_TRACE(what);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(plan.kernels.size(), 1u) << to_string(plan, program);
  EXPECT_EQ(plan.kernels[0].kind, PlannedKernelKind::implicit_gemm) << to_string(plan, program);
  const std::string text = sm90a_text(program, options);
  EXPECT_NE(text.find("A copied by threads (the im2col matrix of"), std::string::npos) << text;
  EXPECT_NE(text.find("cp_async_gather_tile<"), std::string::npos) << text;
  const EmulatedSms sms(2);  // few blocks: each walks several tiles, the ring's parities carry over
  const EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u);
  EXPECT_GT(run.stats.counter("tma_bytes"), 0u);
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), stored) << "only the output is stored";
}

const SizeBindings image{{"N", 2}, {"H", 9}, {"W", 7}};
SizeBindings with(SizeBindings sizes, const SizeBindings& more) {
  for (const auto& binding : more) sizes[binding.first] = binding.second;
  return sizes;
}

TEST(Sm90aImplicitGemmEmu, ConvolutionsAtOddShapes) {
  for (const char* type : {"f16", "bf16"}) {
    // no padding: M = 2 * 7 * 5 = 70 (cooperative 128-row tiles), 5 output channels, R*S*C = 216 (4 k-blocks, a tail)
    expect_wgmma_ok(typed_example("conv2d", type, with(image, {{"C", 24}, {"K", 5}, {"R", 3}, {"S", 3}})), 70 * 5 * 2,
                    std::string(type) + " conv2d C=24 K=5");
    // stride 2 and padding 1: P = 5, Q = 4; 136 output channels: two column tiles
    expect_wgmma_ok(typed_example("conv2d_strided", type,
                                  with(image, {{"C", 8}, {"K", 136}, {"R", 3}, {"S", 3}, {"P", 5}, {"Q", 4}})),
                    2 * 5 * 4 * 136 * 2, std::string(type) + " strided C=8 K=136");
  }
}

TEST(Sm90aImplicitGemmEmu, FusedEpiloguesOnBothConsumerSchedules) {
  // bias + ReLU, M = 126 > 64: cooperative by default, and ping-pong; the residual (a ResNet block's tail)
  const Program bias_relu = typed_example("conv2d_bias_relu", "f16", with(image, {{"C", 16}, {"K", 24}, {"R", 3}, {"S", 3}}));
  GpuOptions pingpong = sm90a();
  pingpong.consumer_schedule = ConsumerSchedule::pingpong;
  EXPECT_NE(sm90a_text(bias_relu).find("cooperative"), std::string::npos);
  EXPECT_NE(sm90a_text(bias_relu, pingpong).find("pingpong"), std::string::npos);
  expect_wgmma_ok(bias_relu, 126 * 24 * 2, "bias_relu");
  expect_wgmma_ok(bias_relu, 126 * 24 * 2, "bias_relu, ping-pong", pingpong);
  expect_wgmma_ok(typed_example("conv2d_residual", "bf16", {{"N", 1}, {"H", 5}, {"W", 11}, {"C", 16}, {"R", 3}, {"S", 3}}),
                  55 * 16 * 2, "residual");
  // one output row of 7 pixels (M = 7 < 64): cooperative, one consumer
  const Program small = typed_example("conv2d_bias_relu", "f16",
                                      {{"N", 1}, {"H", 1}, {"W", 7}, {"C", 8}, {"K", 8}, {"R", 3}, {"S", 3}});
  EXPECT_NE(sm90a_text(small).find("cooperative"), std::string::npos);
  expect_wgmma_ok(small, 7 * 8 * 2, "one row");
}

TEST(Sm90aImplicitGemmEmu, DilatedWithAnRsckFilter) {
  // B = F as [K][N] (N-major tiles by TMA: 16 output channels, rows of 32 bytes)
  const Program program = compile_program(R"(def conv_rsck(f16(N, H, W, C) I, f16(R, S, C, K) F) -> (f16(N, H, W, K) O) {
  O(n, p, q, k) +=! I(n, p + 2*r - 2, q + 2*s - 2, c) * F(r, s, c, k) where p in 0:H, q in 0:W, I = 0 outside
})",
                                          with(image, {{"C", 8}, {"K", 16}, {"R", 3}, {"S", 3}}));
  expect_wgmma_ok(program, 126 * 16 * 2, "dilated RSCK");
}

// Grouped convolutions, channels that are not whole chunks (C = 3) and f32 operands stay on the
// mma.sync implicit-GEMM kernel, whose header says why; it still runs on sm_90a.
TEST(Sm90aImplicitGemmEmu, WhatStaysOnMmaSyncSaysWhy) {
  const struct {
    Program program;
    std::string reason;
  } cases[] = {
      {typed_example("conv2d_grouped", "f16", with(image, {{"G", 2}, {"C", 8}, {"K", 8}, {"R", 3}, {"S", 3}})),
       "Main loop: mma.sync, the sm_80 path (the TMA + wgmma main loop does not run grouped convolutions"},
      {typed_example("conv2d", "f16", with(image, {{"C", 3}, {"K", 8}, {"R", 3}, {"S", 3}})),
       "Main loop: mma.sync, the sm_80 path (channels that are not whole 16-byte chunks"},
      {compile_program(example_source("conv2d"), with(image, {{"C", 8}, {"K", 8}, {"R", 3}, {"S", 3}})),
       "Main loop: mma.sync, the sm_80 path (f32 convolutions (the gather into the TMA + wgmma tiles moves 16-bit "
       "elements"},
  };
  for (const auto& c : cases) {
    const std::string text = sm90a_text(c.program);
    EXPECT_NE(text.find(c.reason), std::string::npos) << text.substr(0, 3000);
    const EmuRun run = run_on_emulator(c.program, sm90a());
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
    EXPECT_EQ(run.stats.counter("wgmma_instructions"), 0u);
  }
}

// Planted bugs: the gather's padding test, the proxy fence before the arrive, the gather itself,
// the wait for a k-block's copies before its arrive, the last k-blocks' arrives, each removed; every
// one must fail the run (wrong values, a read outside I, an async-proxy read of generic writes not
// fenced, a stage read while cp.async still writes it, or a consumer that never sees its stage).
// N = 4 and C = 32 with a 3 x 3 filter: 252 rows (two tiles) of 288 columns (five k-blocks) on one
// SM, so one block walks ten k-blocks through the 5 stages and arrives on most of them in the loop
// (three k-blocks behind its copies), on the last three after it, across the tiles.
TEST(Sm90aImplicitGemmEmu, PlantedGatherBugsAreCaught) {
  const Program program =
      typed_example("conv2d_bias_relu", "f16", with(image, {{"N", 4}, {"C", 32}, {"K", 8}, {"R", 3}, {"S", 3}}));
  const EmulatedSms sms(1);
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"if (in1 < 0 || in1 >= 9 || in2 < 0 || in2 >= 7) return nullptr;", ""},
      {"          fence_proxy_async();\n          mbarrier_arrive(full + (it - 3) % 5);", "          mbarrier_arrive(full + (it - 3) % 5);"},
      {"cp_async_gather_tile<128>(stage, I_rows, I_tap, I_at, kb * 64, I, threadIdx.x);", ""},
      {"          pf::cp_async_wait<3>();\n", ""},
      {"    for (int j = it > 3 ? it - 3 : 0; j < it; ++j) mbarrier_arrive(full + j % 5);\n", ""},
  };
  for (const auto& [line, replacement] : edits) {
    SCOPED_TRACE(line);
    EmuRunOptions how;
    int edited = 0;
    how.edit = [&](const std::string& source) {
      std::string text = source;
      const std::size_t at = text.find(line);
      if (at != std::string::npos) {
        text.replace(at, line.size(), replacement);
        ++edited;
      }
      return text;
    };
    std::string failure;
    try {
      const EmuRun run = run_on_emulator(program, sm90a(), how);
      if (!run.check.ok) failure = run.check.to_string();
    } catch (const Error& e) {
      failure = e.what();
    }
    EXPECT_GT(edited, 0) << "the planted line is not in the kernel";
    EXPECT_FALSE(failure.empty()) << "the planted bug was not caught";
    std::printf("  planted: %s\n    caught: %s\n", line.substr(0, 60).c_str(), failure.substr(0, 110).c_str());
  }
}

}  // namespace
}  // namespace polyfuse
