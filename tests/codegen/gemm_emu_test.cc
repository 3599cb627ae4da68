// Generated GEMM kernels run on the emulator against a host reference: every layout,
// split-K 1/2/4, stages 1/2, f16 and bf16, several shapes (multiples of the block tile).
// The emulator's bounds checks are on; the default configuration has no bank conflicts.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <random>

#include "codegen/cuda_emitter.h"
#include "gemm_programs.h"
#include "polyfuse_emu/emulator.h"
#include "polyfuse_emu/module.h"
#include "support/emu_schedules.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

struct GemmCase {
  std::string type = "f16";
  bool a_row = true, b_row = true;
  int split_k = 1, stages = 2;
  MmaShape mma = MmaShape::m16n8k16;
  TileShape block{64, 64, 32};
  TileShape warp{32, 32, 32};
  std::vector<std::array<int, 3>> shapes{{64, 64, 32}, {128, 64, 96}, {64, 192, 64}};
};

std::string name_of(const GemmCase& c) {
  return fmt::format("{}_{}{}_splitk{}_stages{}_{}_{}_{}", c.type, c.a_row ? "row" : "col", c.b_row ? "row" : "col",
                     c.split_k, c.stages, to_string(c.block), to_string(c.warp), to_string(c.mma));
}

// Runs one case: one compiled kernel (symbolic sizes), every shape; returns the stats
// of the last launch.
emu::Stats run_case(const GemmCase& c) {
  Program program = compile_program(gemm_source(c.type, c.a_row, c.b_row));
  CudaEmitRequest request;
  request.options.block = c.block;
  request.options.warp = c.warp;
  request.options.split_k = c.split_k;
  request.options.stages = c.stages;
  request.options.mma = c.mma;
  EmittedKernel kernel = emit_cuda(program, request);
  emu::Module module = emu::Module::compile(kernel.source, {}, {"gemm"});
  bool bf16 = c.type == "bf16";
  emu::Stats stats;
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  for (auto [m, n, k] : c.shapes) {
    emu::ScopedSchedule schedule(next_emu_schedule());
    SCOPED_TRACE(fmt::format("{} M={} N={} K={} schedule {}", name_of(c), m, n, k, emu::to_string(emu::options().schedule)));
    std::vector<std::uint16_t> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n), out(static_cast<size_t>(m) * n, 0xffff);
    std::vector<float> af(a.size()), bf(b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = bf16 ? to_bf16_bits(value(random)) : to_f16_bits(value(random));
      af[i] = bf16 ? from_bf16_bits(a[i]) : from_f16_bits(a[i]);
    }
    for (size_t i = 0; i < b.size(); ++i) {
      b[i] = bf16 ? to_bf16_bits(value(random)) : to_f16_bits(value(random));
      bf[i] = bf16 ? from_bf16_bits(b[i]) : from_f16_bits(b[i]);
    }
    emu::ScopedBuffer ga(a.data(), a.size() * 2, "A"), gb(b.data(), b.size() * 2, "B"), gc(out.data(), out.size() * 2, "C");
    const LaunchMetadata& md = kernel.metadata;
    // Arguments in the metadata's signature order.
    std::vector<emu::KernelArg> args;
    for (const KernelParameter& p : md.parameters) {
      if (p.name == "A") args.push_back(emu::KernelArg::pointer(a.data()));
      if (p.name == "B") args.push_back(emu::KernelArg::pointer(b.data()));
      if (p.name == "C") args.push_back(emu::KernelArg::pointer(out.data()));
      if (p.name == "M") args.push_back(emu::KernelArg::i32(m));
      if (p.name == "N") args.push_back(emu::KernelArg::i32(n));
      if (p.name == "K") args.push_back(emu::KernelArg::i32(k));
    }
    EXPECT_EQ(args.size(), md.parameters.size());
    stats = module.launch("gemm", dim3(n / c.block.n, m / c.block.m, 1), dim3(md.block[0]), md.dynamic_shared_bytes, args);
    std::vector<float> expected = reference_gemm(af, bf, m, n, k, c.a_row, c.b_row);
    // Inputs in [-1, 1]: |C| <= K; f32 accumulation, one rounding to the output type.
    float tolerance = (bf16 ? 1.0f / 128 : 1.0f / 1024) * std::max(1.f, std::sqrt(static_cast<float>(k)));
    int bad = 0;
    for (size_t i = 0; i < out.size() && bad < 5; ++i) {
      float got = bf16 ? from_bf16_bits(out[i]) : from_f16_bits(out[i]);
      if (!(std::fabs(got - expected[i]) <= tolerance * std::max(1.f, std::fabs(expected[i])))) {
        ADD_FAILURE() << "C[" << i / n << "][" << i % n << "] = " << got << ", expected " << expected[i];
        ++bad;
      }
    }
    EXPECT_EQ(stats.global_bytes_stored, static_cast<std::uint64_t>(m) * n * 2) << "stores exactly C";
  }
  return stats;
}

TEST(CudaGemmEmu, DefaultLayoutIsCorrectWithoutBankConflicts) {
  emu::Stats stats = run_case(GemmCase{});
  EXPECT_EQ(stats.shared_bank_conflicts, 0u) << stats.details();
}

TEST(CudaGemmEmu, EveryLayout) {
  for (bool a_row : {true, false})
    for (bool b_row : {true, false}) {
      if (a_row && b_row) continue;
      GemmCase c;
      c.a_row = a_row;
      c.b_row = b_row;
      c.shapes = {{64, 128, 64}};
      run_case(c);
    }
}

TEST(CudaGemmEmu, SplitK2And4) {
  for (int p : {2, 4}) {
    GemmCase c;
    c.split_k = p;
    c.block = {64, 64, 16 * p};  // each of the p warps along k gets one 16-deep k-slice
    c.warp = {32, 32, 16};
    c.shapes = {{64, 64, 32 * p}, {128, 64, 64 * p}};
    run_case(c);
  }
}

TEST(CudaGemmEmu, SingleStage) {
  GemmCase c;
  c.stages = 1;
  c.shapes = {{128, 64, 64}};
  run_case(c);
}

TEST(CudaGemmEmu, Bf16) {
  GemmCase c;
  c.type = "bf16";
  c.a_row = false;
  c.shapes = {{64, 64, 64}};
  run_case(c);
}

TEST(CudaGemmEmu, PaperMacroMmasInEveryLayout) {
  for (MmaShape shape : {MmaShape::m16n16k8, MmaShape::m32n32k8})
    for (bool a_row : {true, false})
      for (bool b_row : {true, false}) {
        GemmCase c;
        c.mma = shape;
        c.a_row = a_row;
        c.b_row = b_row;
        c.shapes = {{64, 128, 64}};
        run_case(c);
      }
}

TEST(CudaGemmEmu, PaperMacroMmaWithSplitK2) {
  GemmCase c;
  c.mma = MmaShape::m32n32k8;
  c.split_k = 2;
  c.block = {64, 64, 16};
  c.warp = {32, 32, 8};
  c.shapes = {{64, 64, 64}};
  run_case(c);
}

TEST(CudaGemmEmu, LargeDefaultTiles) {
  GemmCase c;
  c.block = {128, 128, 32};
  c.warp = {64, 64, 32};
  c.shapes = {{256, 256, 256}};
  emu::Stats stats = run_case(c);
  EXPECT_EQ(stats.shared_bank_conflicts, 0u) << stats.details();
}

}  // namespace
}  // namespace polyfuse
