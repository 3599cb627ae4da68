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

// 54 shapes (M, N, K): 1x1x1, primes, tile edges +-1, and mixes.
std::vector<std::array<int, 3>> odd_shapes() {
  std::vector<std::array<int, 3>> shapes{{1, 1, 1}, {1, 1, 17}, {1, 17, 1}, {17, 1, 1}, {2, 3, 5}, {7, 11, 13}};
  const int primes[] = {3, 13, 17, 31, 37, 61, 67, 97, 101, 127, 131};
  for (int i = 0; i < 11; ++i) shapes.push_back({primes[i], primes[(i + 3) % 11], primes[(i + 7) % 11]});
  for (int edge : {15, 16, 17, 31, 32, 33, 63, 64, 65})
    for (int other : {1, 33, 129}) shapes.push_back({edge, other, edge + other % 7});
  for (int k : {1, 7, 9, 40, 70, 96}) shapes.push_back({100, 77, k});
  shapes.push_back({129, 65, 33});
  shapes.push_back({200, 136, 72});
  shapes.push_back({1000 / 8, 77, 33});
  return shapes;
}

GpuOptions small_tiles() {
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32};
  return o;
}

// A dozen of them for the default tiles (128x128x32 blocks of up to 64x64 warps, four times
// the emulated work per block).
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
  Program kernel_program = compile_program(source);
  int checked = 0;
  for (auto [m, n, k] : shapes) {
    SizeBindings sizes{{"M", m}, {"N", n}, {"K", k}};
    if (batched) sizes["B"] = 1 + (m + n) % 3;
    Program program = compile_program(source, sizes);
    EmuRun run = run_on_emulator(program, options, 1, &kernel_program);
    EXPECT_TRUE(run.check.ok) << fmt::format("M={} N={} K={}: ", m, n, k) << run.check.to_string();
    ++checked;
  }
  EXPECT_GE(checked, std::min<int>(50, static_cast<int>(shapes.size())));
}

std::string example(const char* name) { return read_text_file(source_path(std::string("examples/") + name + ".tc")); }

// Kernels generated for bound sizes: the access widths chosen from the leading dimensions
// (b16 ... b128), the full blocks' body with its isolated full k-steps and their K tail,
// and the edge blocks' body, one build per shape. Each shape comment: A row bytes (2K),
// B/D row bytes (2N), K tail.
std::vector<std::array<int, 3>> bound_shapes() {
  return {{130, 136, 141},  // A b16, B b128, K = 4*32 + 13
          {129, 66, 100},   // A b64, B b32, K = 3*32 + 4
          {200, 68, 72},    // A b128, B b64, K = 2*32 + 8
          {65, 129, 64},    // B b16, no K tail
          {128, 128, 96},   // every block full: one body
          {64, 200, 161},   // A b16, B b128, K = 5*32 + 1
          {1, 1, 1}};
}

void bound_sweep(const std::string& source) {
  for (auto [m, n, k] : bound_shapes()) {
    Program program = compile_program(source, SizeBindings{{"M", m}, {"N", n}, {"K", k}});
    EmuRun run = run_on_emulator(program, small_tiles(), 1);
    EXPECT_TRUE(run.check.ok) << fmt::format("M={} N={} K={}: ", m, n, k) << run.check.to_string();
  }
}

TEST(BoundSizesEmu, GemmBiasRelu) { bound_sweep(example("gemm_bias_relu")); }
TEST(BoundSizesEmu, ReluGemm) { bound_sweep(example("relu_gemm")); }

TEST(OddShapesEmu, GemmBiasReluSplitK2) {
  GpuOptions o = small_tiles();
  o.split_k = 2;
  o.warp.k = 16;
  sweep(example("gemm_bias_relu"), false, o);
}

TEST(OddShapesEmu, Gemm) { sweep(example("gemm"), false, small_tiles()); }
TEST(OddShapesEmu, GemmBiasRelu) { sweep(example("gemm_bias_relu"), false, small_tiles()); }
TEST(OddShapesEmu, ReluGemm) { sweep(example("relu_gemm"), false, small_tiles()); }
TEST(OddShapesEmu, AddGemms) { sweep(example("add_gemms"), false, small_tiles()); }
TEST(OddShapesEmu, BatchedGemm) { sweep(example("batched_gemm"), true, small_tiles()); }

TEST(OddShapesEmu, DefaultTilesEveryIdiom) {
  for (const char* name : {"gemm", "gemm_bias_relu", "relu_gemm", "add_gemms"})
    sweep(example(name), false, default_tiles(), default_tile_shapes());
  sweep(example("batched_gemm"), true, default_tiles(), default_tile_shapes());
}

TEST(OddShapesEmu, TransposedBf16WithPaperMacroMma) {
  GpuOptions o = small_tiles();
  o.mma = MmaShape::m32n32k8;
  sweep(gemm_source("f16", false, false), false, o);
  sweep(gemm_source("bf16", false, true), false, small_tiles());
}

}  // namespace
}  // namespace polyfuse
