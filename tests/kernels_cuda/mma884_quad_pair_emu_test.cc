// mma.m8n8k4's quad pairs on the emulator: each computes its 8x8 block of a macro-MMA from
// its own lanes' registers, as the hardware does (PTX ISA 9.7.14.5.1; the host model is
// detail::host_mma_m8n8k4 in kernels/cuda/pf_mma_m8n8k4.cuh). The 16x16x8 macro-MMA holds
// every A row in two quad pairs (q and q ^ 2) and every B column in two (q and q ^ 1). A
// fragment load that fills one of the copies wrongly (planted here: the lanes of one quad
// pair repeat their first register in the second) must change that quad pair's block, and
// only that one. An emulator that reads each operand from one quad pair only, as this one
// did before, returns the right product for half of these cases and lets the bug through.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using namespace pft_test;

struct BadCopy {
  int quad_pair;  // -1: no planted bug
  int operand;    // 0: A, 1: B
};

class Mma884QuadPairEmu : public ::testing::TestWithParam<BadCopy> {};
TEST_P(Mma884QuadPairEmu, OnlyTheQuadPairWithTheBadCopyIsWrong) {
  const BadCopy bad = GetParam();
  constexpr int M = 16, N = 16, K = 16;  // A row-major, B column-major (mma884_body, row.col)
  const auto a = random_bits(M * K, false, 11), b = random_bits(K * N, false, 12);
  std::vector<float> out(M * N, -1.f);
  polyfuse::emu::ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"),
      bc(out.data(), out.size() * 4, "C");
  polyfuse::emu::launch(mma884_16x16x8_row_col_bad_copy, dim3(1), dim3(32), 2 * (M * K + K * N) + 1024, a.data(),
                        b.data(), out.data(), bad.quad_pair, bad.operand);
  int wrong_inside = 0, wrong_outside = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += double(to_f(a[at(true, M, K, i, k)], false)) * to_f(b[at(false, K, N, k, j)], false);
      const bool wrong = std::fabs(out[i * N + j] - ref) > 1e-3;
      // Quad pair q computes the block (q % 2, q / 2) of C (the paper's Figure 2).
      const bool in_block = bad.quad_pair >= 0 && i / 8 == bad.quad_pair % 2 && j / 8 == bad.quad_pair / 2;
      (in_block ? wrong_inside : wrong_outside) += wrong;
      EXPECT_FALSE(wrong && !in_block) << "C(" << i << ", " << j << ") outside quad pair " << bad.quad_pair
                                       << "'s block: " << out[i * N + j] << " vs " << ref;
    }
  if (bad.quad_pair >= 0) {
    EXPECT_GT(wrong_inside, 0) << "the bad copy in quad pair " << bad.quad_pair << " went unnoticed: the emulator "
                               << "did not compute that quad pair's block from its own registers";
  }
  RecordProperty("wrong_elements", std::to_string(wrong_inside + wrong_outside));
}
INSTANTIATE_TEST_SUITE_P(
    BadCopies, Mma884QuadPairEmu,
    ::testing::Values(BadCopy{-1, 0}, BadCopy{0, 0}, BadCopy{1, 0}, BadCopy{2, 0}, BadCopy{3, 0}, BadCopy{0, 1},
                      BadCopy{1, 1}, BadCopy{2, 1}, BadCopy{3, 1}),
    [](const auto& info) {
      if (info.param.quad_pair < 0) return std::string("none");
      return std::string(info.param.operand == 0 ? "A" : "B") + "_in_quad_pair_" + std::to_string(info.param.quad_pair);
    });

}  // namespace
