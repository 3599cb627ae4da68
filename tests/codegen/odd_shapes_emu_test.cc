// Sizes that are multiples of nothing (issue 9): every fused idiom on 50+ odd shapes —
// 1x1x1, primes, one past a tile, mixed — on the emulator, whose bounds checks see every
// global and shared access, against the reference. One kernel per idiom is built with
// symbolic sizes and launched on every shape.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// A dozen odd shapes for the default tiles (128x128x32 blocks of up to 64x64 warps, four
// times the emulated work per block).
std::vector<std::array<int, 3>> default_tile_shapes() {
  return {{1, 1, 1}, {17, 1, 1}, {7, 11, 13}, {127, 131, 37}, {129, 65, 33}, {200, 136, 72},
          {100, 77, 70}, {33, 129, 40}, {1, 257, 9}, {257, 1, 100}, {131, 255, 31}, {64, 128, 129}};
}

// What the CLI and the API use when no tile option is given: the architecture's default
// block, the warp tile shrunk until the register tiles fit.
GpuOptions default_tiles() {
  GpuOptions o;
  o.choose_warp = true;
  return o;
}

void sweep(const std::string& source, bool batched, const GpuOptions& options,
           const std::vector<std::array<int, 3>>& shapes = odd_shapes()) {
  const Program kernel_program = compile_program(source);
  const KernelSweep kernel{kernel_program};
  int checked = 0;
  for (const std::array<int, 3>& shape : shapes) {
    Program program = compile_program(source, odd_shape_sizes(shape, batched));
    EmuRun run = kernel.run(program, options);
    EXPECT_TRUE(run.check.ok) << fmt::format("M={} N={} K={}: ", shape[0], shape[1], shape[2]) << run.check.to_string();
    ++checked;
  }
  EXPECT_GE(checked, std::min<int>(50, static_cast<int>(shapes.size())));
}

// Kernels generated for bound sizes (bound_shapes): the access widths chosen from the
// leading dimensions (b16 ... b128), the full blocks' body with its isolated full k-steps
// and their K tail, and the edge blocks' body, one build per shape.
void bound_sweep(const std::string& source) {
  for (auto [m, n, k] : bound_shapes()) {
    Program program = compile_program(source, SizeBindings{{"M", m}, {"N", n}, {"K", k}});
    EmuRun run = run_on_emulator(program, small_tiles(), 1);
    EXPECT_TRUE(run.check.ok) << fmt::format("M={} N={} K={}: ", m, n, k) << run.check.to_string();
  }
}

TEST(BoundSizesEmu, GemmBiasRelu) { bound_sweep(example_source("gemm_bias_relu")); }

// Outputs narrower than the default block with the options a user gets (the output rule's
// block tiles, schedule/output_tile.h: 32 to 64 rows or columns, one or two warps a block),
// including 1 x 1, a K tail, and the edge blocks' body, each against the reference.
TEST(BoundSizesEmu, NarrowOutputsWithTheOutputRulesBlocks) {
  for (const char* example : {"gemm_bias_relu", "relu_gemm", "add_gemms", "gemm_f32"})
    for (auto [m, n, k] : std::vector<std::array<int, 3>>{{300, 23, 40}, {9, 130, 33}, {40, 17, 64}, {1, 1, 7}, {65, 33, 16}}) {
      Program program = compile_program(example_source(example), SizeBindings{{"M", m}, {"N", n}, {"K", k}});
      EmuRun run = run_on_emulator(program, default_tiles(), 3);
      EXPECT_TRUE(run.check.ok) << fmt::format("{} M={} N={} K={}: ", example, m, n, k) << run.check.to_string();
    }
}
TEST(BoundSizesEmu, ReluGemm) { bound_sweep(example_source("relu_gemm")); }

TEST(OddShapesEmu, GemmBiasReluSplitK2) {
  GpuOptions o = small_tiles();
  o.split_k = 2;
  o.warp.k = 16;
  sweep(example_source("gemm_bias_relu"), false, o);
}

TEST(OddShapesEmu, Gemm) { sweep(example_source("gemm"), false, small_tiles()); }
TEST(OddShapesEmu, GemmBiasRelu) { sweep(example_source("gemm_bias_relu"), false, small_tiles()); }
TEST(OddShapesEmu, ReluGemm) { sweep(example_source("relu_gemm"), false, small_tiles()); }
TEST(OddShapesEmu, AddGemms) { sweep(example_source("add_gemms"), false, small_tiles()); }
TEST(OddShapesEmu, BatchedGemm) { sweep(example_source("batched_gemm"), true, small_tiles()); }

TEST(OddShapesEmu, DefaultTilesEveryIdiom) {
  for (const char* name : {"gemm", "gemm_bias_relu", "relu_gemm", "add_gemms"})
    sweep(example_source(name), false, default_tiles(), default_tile_shapes());
  sweep(example_source("batched_gemm"), true, default_tiles(), default_tile_shapes());
}

TEST(OddShapesEmu, TransposedBf16WithPaperMacroMma) {
  GpuOptions o = small_tiles();
  o.mma = MmaShape::m32n32k8;
  sweep(gemm_source("f16", false, false), false, o);
  sweep(gemm_source("bf16", false, true), false, small_tiles());
}

// A sweep emits its kernel once: the first run fills KernelSweep::emitted with what
// emit_cuda gives, the next runs build that text (an edit to it reaches them).
TEST(KernelSweepEmu, TheFirstRunEmitsTheNextReuse) {
  const std::string source = example_source("gemm");
  const Program kernel_program = compile_program(source);
  const KernelSweep kernel{kernel_program};
  const Program program = compile_program(source, odd_shape_sizes({7, 11, 13}, false));
  EXPECT_TRUE(kernel.run(program, small_tiles()).check.ok);
  CudaEmitRequest emit;
  emit.options = small_tiles();
  EXPECT_EQ(kernel.emitted->source, emit_cuda(kernel_program, emit).source);
  kernel.emitted->source = "#error the sweep's kernel\n" + kernel.emitted->source;
  EXPECT_THROW(kernel.run(program, small_tiles()), std::exception);
}

}  // namespace
}  // namespace polyfuse
