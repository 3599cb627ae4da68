// The pipelined TMA + wgmma GEMM test kernels of hopper_kernels.cu (S-stage ring of swizzled
// stages on "full"/"empty" mbarriers, one warpgroup, f32 out) on the emulator against a scalar
// reference, every configuration (f16 and bf16, K- and N-major B, every swizzle mode, 2..4
// stages) on odd shapes: 1 x 1 x 1, primes, block tile - 1 / + 1, more k-blocks than stages.
// Leading dimensions are padded to multiples of 8 elements (TMA's 16-byte strides); the padding
// holds NaNs, which must never reach C (TMA reads only inside the tensor map's extent and
// zero-fills the rest). Also the TMA and wgmma counters, and other thread schedules.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hopper_kernels.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map.h"
#include "test_util.h"

namespace {
using pfh_test::GemmConfig;
using polyfuse::emu::ScopedBuffer;
namespace tma = polyfuse::tma;

struct Shape {
  int m, n, k;
};

int round8(int x) { return (x + 7) / 8 * 8; }

// A rows x cols matrix of random values in rows of `ld` elements, NaN in the padding.
std::vector<unsigned short> padded(int rows, int cols, int ld, bool bf16, unsigned seed) {
  const auto values = pft_test::random_bits(static_cast<std::size_t>(rows) * cols, bf16, seed);
  std::vector<unsigned short> v(static_cast<std::size_t>(rows) * ld, bf16 ? 0x7fc0 : 0x7e00);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) v[static_cast<std::size_t>(r) * ld + c] = values[static_cast<std::size_t>(r) * cols + c];
  return v;
}

void check_gemm(const GemmConfig& g, Shape s, const char* schedule) {
  polyfuse::emu::ScopedSchedule scoped(polyfuse::emu::parse_schedule(schedule));
  const std::string what = g.name + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                           " (" + schedule + ")";
  const int lda = round8(s.k), ldb = g.b_mn_major ? round8(s.n) : round8(s.k);
  const auto a = padded(s.m, s.k, lda, g.bf16, 21);
  const auto b = g.b_mn_major ? padded(s.k, s.n, ldb, g.bf16, 22) : padded(s.n, s.k, ldb, g.bf16, 22);
  std::vector<float> c(static_cast<std::size_t>(s.m) * s.n, -7.f);
  ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"), bc(c.data(), c.size() * 4, "C");
  const tma::TensorMapBytes map_a = tma::encode_tiled(pfh_test::gemm_map_a(g, a.data(), s.m, s.k, lda), tma::Target::emulator);
  const tma::TensorMapBytes map_b = tma::encode_tiled(pfh_test::gemm_map_b(g, b.data(), s.n, s.k, ldb), tma::Target::emulator);
  const polyfuse::emu::Stats stats = pfh_test::run_gemm(g, map_a, map_b, c.data(), s.m, s.n, s.k);
  int bad = 0;
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.n; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < s.k; ++k) {
        const unsigned short bk = g.b_mn_major ? b[static_cast<std::size_t>(k) * ldb + j] : b[static_cast<std::size_t>(j) * ldb + k];
        const double t = double(pft_test::to_f(a[static_cast<std::size_t>(i) * lda + k], g.bf16)) * pft_test::to_f(bk, g.bf16);
        ref += t;
        mag += std::abs(t);
      }
      const float got = c[static_cast<std::size_t>(i) * s.n + j];
      if (!(std::abs(got - ref) <= 1e-5 * mag + 1e-6) && bad++ < 4)
        ADD_FAILURE() << what << ": C(" << i << ", " << j << ") = " << got << ", reference " << ref;
    }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " wrong elements";
  const dim3 grid = pfh_test::gemm_grid(g, s.m, s.n);
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y;
  const std::uint64_t k_blocks = static_cast<std::uint64_t>((s.k + pfh_test::kGemmBlockK - 1) / pfh_test::kGemmBlockK);
  EXPECT_EQ(stats.wgmma_instructions, blocks * k_blocks * (pfh_test::kGemmBlockK / 16)) << what;
  const std::uint64_t tile_bytes = std::uint64_t{pfh_test::kGemmBlockM + static_cast<unsigned>(g.bn)} * pfh_test::kGemmBlockK * 2;
  EXPECT_EQ(stats.tma_bytes, blocks * k_blocks * tile_bytes) << what;
  EXPECT_EQ(stats.buffer("C")->bytes_stored, c.size() * 4) << what;
}

class HopperGemmEmu : public ::testing::TestWithParam<GemmConfig> {};

TEST_P(HopperGemmEmu, OddShapesMatchTheReference) {
  const GemmConfig& g = GetParam();
  const int bm = pfh_test::kGemmBlockM, bn = g.bn, bk = pfh_test::kGemmBlockK;
  const std::vector<Shape> shapes = {
      {1, 1, 1},           {7, 13, 5},          {67, 131, 97},           {bm - 1, bn - 1, bk - 1},
      {bm + 1, bn + 1, bk + 1}, {bm, bn, bk},   {2 * bm + 1, 2 * bn - 1, 6 * bk - 3}};
  for (const Shape& s : shapes) {
    check_gemm(g, s, "round_robin");
    if (HasFailure()) return;
  }
}

TEST_P(HopperGemmEmu, OtherSchedules) {
  const GemmConfig& g = GetParam();
  for (const char* schedule : {"random:11", "warp_ahead:5"}) {
    check_gemm(g, Shape{pfh_test::kGemmBlockM + 3, g.bn + 5, 5 * pfh_test::kGemmBlockK + 7}, schedule);
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, HopperGemmEmu, ::testing::ValuesIn(pfh_test::gemm_configs()),
                         [](const ::testing::TestParamInfo<GemmConfig>& info) {
                           return info.param.name.substr(std::string("hopper_gemm_").size());
                         });

}  // namespace
