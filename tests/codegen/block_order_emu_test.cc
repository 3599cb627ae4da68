// The grouped block order (kernel_grid.h, pf::grouped_tile) on the emulator: every output
// tile computed once and right, for groups that do not divide the tile rows, group 1
// (row-major) and groups larger than the grid; with a batch (blockIdx.z), split-K over
// warps and a fused epilogue; kernels built for unbound sizes and launched on odd shapes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// 64x64 tiles: 300 rows are 5 tile rows (the last partial), 200 columns 4 tile columns.
const std::vector<std::array<int, 3>> kShapes = {{300, 200, 40}, {449, 65, 33}, {65, 449, 9}, {1, 1, 1}};

// One emulator build per group (the kernel takes the sizes as arguments).
void sweep_groups(const std::string& source, bool batched, GpuOptions options, const std::vector<int>& groups) {
  const Program kernel_program = compile_program(source);
  for (int group : groups) {
    options.group = group;
    const KernelSweep kernel{kernel_program};  // one per group: the options changed
    for (const std::array<int, 3>& shape : kShapes) {
      const Program program = compile_program(source, odd_shape_sizes(shape, batched));
      const EmuRun run = kernel.run(program, options);
      EXPECT_TRUE(run.check.ok) << fmt::format("group {} M={} N={} K={}: ", group, shape[0], shape[1], shape[2])
                                << run.check.to_string();
    }
  }
}

// Group 1, a group dividing neither 5 nor 8 tile rows, one larger than every grid (the
// default, 8, runs in every other emulator suite).
TEST(BlockOrderEmu, Gemm) { sweep_groups(example_source("gemm"), false, small_tiles(), {1, 3, 100}); }
TEST(BlockOrderEmu, BatchedGemm) { sweep_groups(example_source("batched_gemm"), true, small_tiles(), {3}); }

TEST(BlockOrderEmu, GemmBiasReluSplitK2) {
  GpuOptions o = small_tiles();
  o.split_k = 2;
  o.warp.k = 16;
  sweep_groups(example_source("gemm_bias_relu"), false, o, {3});
}

// Bound sizes: the full blocks' body and the edge blocks' body both take the tile.
TEST(BlockOrderEmu, BoundSizesGroupNotDividingTheRows) {
  GpuOptions o = small_tiles();
  o.group = 3;
  for (const char* name : {"gemm", "add_gemms"}) {
    const Program program = compile_program(example_source(name), {{"M", 449}, {"N", 130}, {"K", 40}});
    const EmuRun run = run_on_emulator(program, o, 1);
    EXPECT_TRUE(run.check.ok) << name << ": " << run.check.to_string();
  }
}

}  // namespace
}  // namespace polyfuse
