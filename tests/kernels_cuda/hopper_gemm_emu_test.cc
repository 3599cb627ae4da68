// The pipelined TMA + wgmma GEMM test kernels of hopper_kernels.cu (S-stage ring of swizzled
// stages on "full"/"empty" mbarriers, one warpgroup, f32 out) on the emulator against a scalar
// reference, every configuration (f16 and bf16, K- and N-major B, every swizzle mode, 2..4
// stages) on odd shapes: 1 x 1 x 1, primes, block tile - 1 / + 1, more k-blocks than stages.
// Leading dimensions are padded to multiples of 8 elements (TMA's 16-byte strides); the padding
// holds NaNs, which must never reach C (TMA reads only inside the tensor map's extent and
// zero-fills the rest). Also the TMA and wgmma counters, and other thread schedules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hopper_kernels.h"
#include "hopper_reference.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map.h"

namespace {
using pfh_test::GemmConfig;
using polyfuse::emu::ScopedBuffer;
namespace tma = polyfuse::tma;

struct Shape {
  int m, n, k;
};

void check_gemm(const GemmConfig& g, Shape s, const char* schedule) {
  polyfuse::emu::ScopedSchedule scoped(polyfuse::emu::parse_schedule(schedule));
  const std::string what = g.name + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                           " (" + schedule + ")";
  const pfh_test::GemmProblem p = pfh_test::make_gemm_problem(g, s.m, s.n, s.k);
  std::vector<float> c(static_cast<std::size_t>(s.m) * s.n, -7.f);
  ScopedBuffer ba(p.a.data(), p.a.size() * 2, "A"), bb(p.b.data(), p.b.size() * 2, "B"), bc(c.data(), c.size() * 4, "C");
  const tma::TensorMapBytes map_a = tma::encode_tiled(pfh_test::gemm_map_a(g, p.a.data(), s.m, s.k, p.lda), tma::Target::emulator);
  const tma::TensorMapBytes map_b = tma::encode_tiled(pfh_test::gemm_map_b(g, p.b.data(), s.n, s.k, p.ldb), tma::Target::emulator);
  const polyfuse::emu::Stats stats = pfh_test::run_gemm(g, map_a, map_b, c.data(), s.m, s.n, s.k);
  const pfh_test::Mismatches bad = pfh_test::check_gemm(p, c);
  EXPECT_EQ(bad.count, 0) << what << ": " << bad.text();
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
