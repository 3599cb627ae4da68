// The cp.async ring of 3..5 shared stages (issue 19 item 1), and one stage, on the emulator against the
// exact reference: every A/B layout and every sm_80 idiom of examples/ (the batched GEMM for
// the batch dimensions), on small odd shapes —
// 1x1x1, primes, one tile ± 1 — and K shorter than the ring (the prologue commits empty
// groups, the k-step loop waits for them all the same). Kernels with symbolic sizes (one
// build per stage count and program, launched on every shape) and with bound sizes (the
// full k-steps isolated from the K tail that the ring prefetches). The emulator lands a
// cp.async only at the wait that covers it and flags shared-memory races, so a wrong wait
// depth or a missing barrier fails here (see also MutationEmu.GemmRingOf3And4Stages).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

GpuOptions ring_of(int stages) {
  GpuOptions o = small_tiles();  // 64x64x32 blocks: a 32-deep k-step
  o.stages = stages;
  return o;
}

// 1x1x1; primes (K = 97: four k-steps, the last partial); one tile minus and plus one in
// M and N; K = 40: two k-steps, fewer than a ring of 4 or 5 keeps in flight.
const std::vector<std::array<int, 3>> shapes = {{1, 1, 1}, {67, 131, 97}, {63, 65, 40}};

void check(const std::string& what, const std::string& source, bool batched, int stages,
           const std::vector<std::array<int, 3>>& on = shapes) {
  const Program kernel_program = compile_program(source);
  const KernelSweep kernel{kernel_program};
  for (const std::array<int, 3>& shape : on) {
    Program program = compile_program(source, odd_shape_sizes(shape, batched));
    EmuRun run = kernel.run(program, ring_of(stages));
    EXPECT_TRUE(run.check.ok) << fmt::format("{}, {} stage(s), M={} N={} K={}: ", what, stages, shape[0], shape[1],
                                             shape[2])
                              << run.check.to_string();
  }
}

class StagesEmu : public ::testing::TestWithParam<int> {};

// One odd shape for the single stage (copy, wait, barrier, MMAs, barrier: no ring), CI time.
std::vector<std::array<int, 3>> shapes_for(int stages, const std::vector<std::array<int, 3>>& on) {
  return stages == 1 ? std::vector<std::array<int, 3>>{shapes[1]} : on;
}

TEST_P(StagesEmu, EveryLayout) {
  for (bool a_row : {true, false})
    for (bool b_row : {true, false})
      check(fmt::format("gemm A {} B {}", a_row ? "row" : "col", b_row ? "row" : "col"), gemm_source("f16", a_row, b_row),
            false, GetParam(), shapes_for(GetParam(), shapes));
}

TEST_P(StagesEmu, EveryIdiom) {
  // add_gemms as one accumulator (codegen/added_matmuls.h)
  for (const char* name : {"gemm_bias_relu", "relu_gemm", "add_gemms"})
    check(name, example_source(name), false, GetParam(), shapes_for(GetParam(), {shapes[1], shapes[2]}));
  // swiglu's shared A tile, the dequantising prologue's operand, f32 on TF32 tensor cores:
  // one stage and rings of 3 and 4, one shape each (CI time)
  if (GetParam() <= 4)
    for (const char* name : {"swiglu", "dequant_gemm", "gemm_f32"})
      check(name, example_source(name), false, GetParam(), {shapes[GetParam() == 4 ? 2 : 1]});
  check("batched_gemm", example_source("batched_gemm"), true, GetParam(), shapes_for(GetParam(), {shapes[1], shapes[2]}));
}

// Bound sizes: K = 7 k-steps + 5 isolates the full k-steps whose prefetched tile is full
// too; K = 2 k-steps has no full-k-step loop under a ring of 3 or more.
TEST_P(StagesEmu, BoundSizes) {
  if (GetParam() == 1) return;  // no ring to prefetch a K tail
  for (auto [m, n, k] : std::vector<std::array<int, 3>>{{128, 64, 229}, {64, 128, 64}}) {
    Program program = compile_program(example_source("gemm_bias_relu"), SizeBindings{{"M", m}, {"N", n}, {"K", k}});
    EmuRun run = run_on_emulator(program, ring_of(GetParam()), 1);
    EXPECT_TRUE(run.check.ok) << fmt::format("{} stage(s), M={} N={} K={}: ", GetParam(), m, n, k) << run.check.to_string();
  }
}

// Rings of 2 stages (the default) run in every other emulator suite (OddShapesEmu's 54 shapes
// per idiom); here one stage (CudaGemmEmu.SingleStage has one even shape) and the deeper rings.
INSTANTIATE_TEST_SUITE_P(Ring, StagesEmu, ::testing::Values(1, 3, 4, 5),
                         [](const ::testing::TestParamInfo<int>& info) { return fmt::format("stages{}", info.param); });

}  // namespace
}  // namespace polyfuse
