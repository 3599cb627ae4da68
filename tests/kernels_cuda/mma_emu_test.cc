// Warp MMAs on the emulator against a scalar reference: m16n8k16 warp tiles (f16, bf16, all
// four A/B layouts) and the paper's macro-MMAs 16x16x8 / 32x32x8 from m8n8k4.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using namespace pft_test;
using Kernel = void (*)(const void*, const void*, float*);

struct MmaCase {
  const char* name;
  Kernel kernel;
  int m, n, k;
  bool a_row, b_row, bf16;
};

polyfuse::emu::Stats run_mma(const MmaCase& c) {
  const auto a = random_bits(static_cast<std::size_t>(c.m) * c.k, c.bf16, 1);
  const auto b = random_bits(static_cast<std::size_t>(c.k) * c.n, c.bf16, 2);
  std::vector<float> out(static_cast<std::size_t>(c.m) * c.n, -1.f);
  polyfuse::emu::ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"),
      bc(out.data(), out.size() * 4, "C");
  const std::size_t smem = 2u * (c.m * c.k + c.n * c.k) + 1024;
  const polyfuse::emu::Stats stats = polyfuse::emu::launch(c.kernel, dim3(1), dim3(32), smem, a.data(), b.data(), out.data());
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double ref = 0;
      for (int k = 0; k < c.k; ++k)
        ref += double(to_f(a[at(c.a_row, c.m, c.k, i, k)], c.bf16)) * to_f(b[at(c.b_row, c.k, c.n, k, j)], c.bf16);
      EXPECT_NEAR(out[static_cast<std::size_t>(i) * c.n + j], ref, 1e-4) << c.name << " at (" << i << ", " << j << ")";
    }
  return stats;
}

class Mma16816Emu : public ::testing::TestWithParam<MmaCase> {};
TEST_P(Mma16816Emu, MatchesReferenceWithoutBankConflicts) {
  const polyfuse::emu::Stats stats = run_mma(GetParam());
  EXPECT_EQ(stats.shared_bank_conflicts, 0u) << stats.details();
  EXPECT_GT(stats.warp_collectives, 0u);
}
INSTANTIATE_TEST_SUITE_P(
    SM80_warp_tile, Mma16816Emu,
    ::testing::Values(MmaCase{"f16_row_col_32x32x32", mma16816_f16_row_col_2x4, 32, 32, 32, true, false, false},
                      MmaCase{"f16_row_row_32x32x32", mma16816_f16_row_row_2x4, 32, 32, 32, true, true, false},
                      MmaCase{"f16_col_col_32x32x32", mma16816_f16_col_col_2x4, 32, 32, 32, false, false, false},
                      MmaCase{"f16_col_row_32x32x32", mma16816_f16_col_row_2x4, 32, 32, 32, false, true, false},
                      MmaCase{"f16_row_col_16x8x32", mma16816_f16_row_col_1x1, 16, 8, 32, true, false, false},
                      MmaCase{"f16_col_row_64x16x32", mma16816_f16_col_row_4x2, 64, 16, 32, false, true, false},
                      MmaCase{"bf16_row_col_32x32x32", mma16816_bf16_row_col_2x4, 32, 32, 32, true, false, true},
                      MmaCase{"bf16_col_row_32x32x32", mma16816_bf16_col_row_2x4, 32, 32, 32, false, true, true}),
    [](const auto& info) { return std::string(info.param.name); });

class MacroMma884Emu : public ::testing::TestWithParam<MmaCase> {};
TEST_P(MacroMma884Emu, MatchesReference) {
  const polyfuse::emu::Stats stats = run_mma(GetParam());
  // Recorded, not required: the quad-pair layout of m8n8k4 fragments reads 8 rows that are
  // not 8 consecutive ones, so the fragment loads may conflict (see pf_mma_m8n8k4.cuh).
  RecordProperty("shared_bank_conflicts", std::to_string(stats.shared_bank_conflicts));
}
INSTANTIATE_TEST_SUITE_P(
    SM70_macro_mma, MacroMma884Emu,
    ::testing::Values(MmaCase{"m16n16k8_row_col", mma884_16x16x8_row_col, 16, 16, 16, true, false, false},
                      MmaCase{"m16n16k8_row_row", mma884_16x16x8_row_row, 16, 16, 16, true, true, false},
                      MmaCase{"m16n16k8_col_col", mma884_16x16x8_col_col, 16, 16, 16, false, false, false},
                      MmaCase{"m16n16k8_col_row", mma884_16x16x8_col_row, 16, 16, 16, false, true, false},
                      MmaCase{"m32n32k8_row_col", mma884_32x32x8_row_col, 32, 32, 16, true, false, false},
                      MmaCase{"m32n32k8_row_row", mma884_32x32x8_row_row, 32, 32, 16, true, true, false},
                      MmaCase{"m32n32k8_col_col", mma884_32x32x8_col_col, 32, 32, 16, false, false, false},
                      MmaCase{"m32n32k8_col_row", mma884_32x32x8_col_row, 32, 32, 16, false, true, false}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
