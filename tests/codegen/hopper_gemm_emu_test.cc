// The generated sm_90a main loop on the emulator against the f32 reference, with the TMA and
// wgmma counters: the golden files of hopper_gemm_kernel_test.cc, compiled here as C++ (f16
// 300 x 256 x 128: partial tiles in M, fewer k-blocks than stages; bf16 129 x 136 x 328:
// partial tiles in M and N, a K tail that TMA zero-fills, more k-blocks than stages, so stages
// are refilled after their "empty" mbarriers) under several thread schedules; and kernels
// generated here for odd shapes (1 x 8 x 8, primes, tile +- 1: N and K multiples of 8, TMA's
// 16-byte strides), built at run time by the emulator (emu::Module, tensor maps by value).
#include "polyfuse_emu/cuda_emulation.h"

// Both golden kernels are `extern "C" gemm`: one name each here.
#define gemm generated_gemm_f16
#include "../golden/codegen/gemm_sm90a_tma.cu"
#undef gemm
#define gemm generated_gemm_bf16
#include "../golden/codegen/gemm_sm90a_tma_bf16.cu"
#undef gemm

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "codegen/hopper_gemm_kernel.h"
#include "frontend/idioms.h"
#include "gemm_programs.h"
#include "polyfuse_emu/module.h"
#include "schedule/plan_from_program.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;
namespace tma = polyfuse::tma;

constexpr int kBlockM = 64, kBlockN = 128, kBlockK = 64, kSharedBytes = 4 * 24576 + 64;

pf::sm90::TensorMap kernel_map(const tma::TensorMapBytes& bytes) {
  pf::sm90::TensorMap map;
  static_assert(sizeof map == sizeof bytes.bytes);
  std::memcpy(&map, bytes.bytes, sizeof map);
  return map;
}

// Launches the kernel on (grid, A's map, B's map, C).
using Launcher = std::function<emu::Stats(dim3, const tma::TensorMapBytes&, const tma::TensorMapBytes&, void*)>;

template <class T> Launcher compiled_launcher(void (*kernel)(pf::sm90::TensorMap, pf::sm90::TensorMap, T*)) {
  return [kernel](dim3 grid, const tma::TensorMapBytes& a, const tma::TensorMapBytes& b, void* c) {
    return emu::launch(kernel, grid, dim3(128), kSharedBytes, kernel_map(a), kernel_map(b), static_cast<T*>(c));
  };
}

void check_generated_gemm(const Launcher& launch, bool bf16, int m, int n, int k, const char* schedule) {
  emu::ScopedSchedule scoped(emu::parse_schedule(schedule));
  const auto encode = bf16 ? to_bf16_bits : to_f16_bits;
  const auto decode = bf16 ? from_bf16_bits : from_f16_bits;
  // Quarters in -2 .. 2: products and their sums are exact in f32, only C's rounding remains.
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  std::vector<float> af(a.size()), bf(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = encode(af[i] = static_cast<float>(static_cast<int>(i * 7 % 17) - 8) / 4);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = encode(bf[i] = static_cast<float>(static_cast<int>(i * 5 % 13) - 6) / 4);
  std::vector<std::uint16_t> c(static_cast<std::size_t>(m) * n, 0x7e00);  // NaN: every element must be written
  emu::ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"), bc(c.data(), c.size() * 2, "C");
  const tma::DataType type = bf16 ? tma::DataType::bfloat16 : tma::DataType::float16;
  const auto map_a = tma::encode_tiled(tma::tiled_2d(type, a.data(), k, m, std::uint64_t(k) * 2, 64, kBlockM, tma::Swizzle::b128),
                                       tma::Target::emulator);
  const auto map_b = tma::encode_tiled(tma::tiled_2d(type, b.data(), n, k, std::uint64_t(n) * 2, 64, kBlockK, tma::Swizzle::b128),
                                       tma::Target::emulator);
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + kBlockM - 1) / kBlockM);
  const emu::Stats stats = launch(grid, map_a, map_b, c.data());

  const std::vector<float> ref = reference_gemm(af, bf, m, n, k, true, true);
  int bad = 0;
  for (int i = 0; i < m && bad < 5; ++i)
    for (int j = 0; j < n && bad < 5; ++j) {
      const float got = decode(c[std::size_t(i) * n + j]), want = ref[std::size_t(i) * n + j];
      if (!(std::fabs(got - want) <= std::ldexp(std::fabs(want), bf16 ? -8 : -11))) {
        ADD_FAILURE() << m << "x" << n << "x" << k << " " << schedule << ": C(" << i << ", " << j << ") = " << got << ", expected " << want;
        ++bad;
      }
    }
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y, k_blocks = (k + kBlockK - 1) / kBlockK;
  EXPECT_EQ(stats.wgmma_instructions, blocks * k_blocks * (kBlockK / 16));
  EXPECT_EQ(stats.tma_bytes, blocks * k_blocks * (kBlockM + kBlockN) * kBlockK * 2);
}

TEST(HopperGemmEmu, GeneratedF16KernelMatchesTheReference) {
  for (const char* schedule : {"round_robin", "random:3"}) check_generated_gemm(compiled_launcher(generated_gemm_f16), false, 300, 256, 128, schedule);
}

TEST(HopperGemmEmu, GeneratedBf16KernelMatchesTheReference) {
  for (const char* schedule : {"round_robin", "warp_ahead:5"})
    check_generated_gemm(compiled_launcher(generated_gemm_bf16), true, 129, 136, 328, schedule);
}

// The kernel hopper_gemm_kernel generates for `type` and the sizes, built by the emulator.
Launcher generated_launcher(const std::string& type, int m, int n, int k) {
  Program program = compile_program(gemm_source(type, true, true), {{"M", m}, {"N", n}, {"K", k}});
  KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  const std::string source = "#include \"polyfuse_cuda.cuh\"\n" + hopper_gemm_kernel(program, plan, HopperGemmTiles{});
  auto module = std::make_shared<emu::Module>(emu::Module::compile(source, {}, {"gemm"}));
  return [module](dim3 grid, const tma::TensorMapBytes& a, const tma::TensorMapBytes& b, void* c) {
    return module->launch("gemm", grid, dim3(128), kSharedBytes,
                          {emu::KernelArg::tensor_map(a.bytes), emu::KernelArg::tensor_map(b.bytes), emu::KernelArg::pointer(c)});
  };
}

TEST(HopperGemmEmu, GeneratedKernelsOfOddShapesMatchTheReference) {
  struct Case {
    const char* type;
    int m, n, k;
  };
  for (const Case& c : {Case{"f16", 1, 8, 8}, Case{"bf16", 7, 16, 24}, Case{"f16", 67, 136, 72},
                        Case{"bf16", kBlockM - 1, kBlockN - 8, kBlockK - 8}, Case{"f16", kBlockM + 1, kBlockN + 8, 5 * kBlockK + 8}}) {
    check_generated_gemm(generated_launcher(c.type, c.m, c.n, c.k), std::string(c.type) == "bf16", c.m, c.n, c.k, "random:7");
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace polyfuse
