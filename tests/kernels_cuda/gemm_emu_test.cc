// A complete GEMM + bias + ReLU kernel (128x128x32 block tiles, 8 warps of 64x32, m16n8k16,
// cp.async, swizzled shared tiles, ldmatrix, accumulator store) on the emulator, on full and
// partial tiles; also the emulator's speed on it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using namespace pft_test;

struct GemmCase {
  int m, n, k;
  bool bias, relu;
};

class GemmEmu : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmEmu, MatchesReference) {
  const auto [M, N, K, use_bias, relu] = GetParam();
  const auto a = random_bits(static_cast<std::size_t>(M) * K, false, 11);
  const auto b = random_bits(static_cast<std::size_t>(K) * N, false, 12);
  const auto bias = random_bits(static_cast<std::size_t>(N), false, 13);
  std::vector<__half> c(static_cast<std::size_t>(M) * N, __half(-7.f));
  polyfuse::emu::ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"),
      bbias(bias.data(), bias.size() * 2, "bias"), bc(c.data(), c.size() * 2, "C");
  const dim3 grid((N + 127) / 128, (M + 127) / 128);
  const auto start = std::chrono::steady_clock::now();
  const auto stats = polyfuse::emu::launch(gemm_bias_relu_128x128x32, grid, dim3(256), 3 * 8192,
                                           reinterpret_cast<const __half*>(a.data()),
                                           reinterpret_cast<const __half*>(b.data()),
                                           use_bias ? reinterpret_cast<const __half*>(bias.data()) : nullptr, c.data(), M,
                                           N, K, relu ? 1 : 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("emu gemm %dx%dx%d: %.3f s, %s\n", M, N, K, seconds, stats.summary().c_str());
  RecordProperty("seconds", std::to_string(seconds));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = use_bias ? to_f(bias[j], false) : 0.0;
      for (int k = 0; k < K; ++k) ref += double(to_f(a[static_cast<std::size_t>(i) * K + k], false)) * to_f(b[static_cast<std::size_t>(k) * N + j], false);
      if (relu && ref < 0) ref = 0;
      ASSERT_NEAR(float(c[static_cast<std::size_t>(i) * N + j]), ref, 2e-2 + 2e-3 * std::abs(ref)) << "C(" << i << ", " << j << ")";
    }
  EXPECT_EQ(stats.shared_bank_conflicts, 0u) << stats.details();
  EXPECT_EQ(stats.buffer("C")->bytes_stored, c.size() * 2);
  if (M % 128 == 0 && N % 128 == 0 && K % 32 == 0) {
    // every A element is read once per column block, every B element once per row block
    EXPECT_EQ(stats.buffer("A")->bytes_loaded, a.size() * 2 * grid.x);
    EXPECT_EQ(stats.buffer("B")->bytes_loaded, b.size() * 2 * grid.y);
    EXPECT_LT(seconds, 5.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmEmu,
                         ::testing::Values(GemmCase{256, 256, 256, true, true}, GemmCase{128, 128, 32, false, false},
                                           GemmCase{200, 136, 72, true, false}, GemmCase{100, 60, 40, false, true}),
                         [](const auto& info) {
                           const GemmCase& g = info.param;
                           return std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) +
                                  (g.bias ? "_bias" : "") + (g.relu ? "_relu" : "");
                         });

}  // namespace
