// Block copies (global → registers → swizzled shared, cp.async) and ldmatrix reads on the
// emulator: the data round-trips exactly, the XOR swizzle has zero bank conflicts and the
// naive layout does not.
#include <gtest/gtest.h>

#include <string>

#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using namespace pft_test;
using Kernel = void (*)(const void*, unsigned short*);

struct CopyCase {
  const char* name;
  Kernel kernel;
  int rows, cols;
  bool trans, swizzled;
};

class CopyRoundTripEmu : public ::testing::TestWithParam<CopyCase> {};

TEST_P(CopyRoundTripEmu, DataAndBankConflicts) {
  const CopyCase& c = GetParam();
  const auto in = random_bits(static_cast<std::size_t>(c.rows) * c.cols, false, 7);
  std::vector<unsigned short> out(in.size(), 0);
  polyfuse::emu::ScopedBuffer bi(in.data(), in.size() * 2, "in"), bo(out.data(), out.size() * 2, "out");
  const auto stats = polyfuse::emu::launch(c.kernel, dim3(1), dim3(128), in.size() * 2, in.data(), out.data());
  for (int r = 0; r < c.rows; ++r)
    for (int col = 0; col < c.cols; ++col) {
      const std::size_t dst = c.trans ? static_cast<std::size_t>(col) * c.rows + r : static_cast<std::size_t>(r) * c.cols + col;
      ASSERT_EQ(out[dst], in[static_cast<std::size_t>(r) * c.cols + col]) << "element (" << r << ", " << col << ")";
    }
  // 128-bit, coalesced tile load: every byte once, 16 sectors per 512-byte warp request.
  ASSERT_NE(stats.buffer("in"), nullptr);
  EXPECT_EQ(stats.buffer("in")->bytes_loaded, in.size() * 2);
  EXPECT_GT(stats.shared_accesses, 0u);
  if (c.swizzled)
    EXPECT_EQ(stats.shared_bank_conflicts, 0u) << stats.details();
  else
    EXPECT_GT(stats.shared_bank_conflicts, 0u) << stats.details();
}

INSTANTIATE_TEST_SUITE_P(
    Tiles, CopyRoundTripEmu,
    ::testing::Values(CopyCase{"xor16_64x32_regs", copy_xor16_64x32_regs, 64, 32, false, true},
                      CopyCase{"xor16_32x64_regs", copy_xor16_32x64_regs, 32, 64, false, true},
                      CopyCase{"xor16_32x128_regs_trans", copy_xor16_32x128_regs_trans, 32, 128, true, true},
                      CopyCase{"xor16_64x16_cp_async", copy_xor16_64x16_cp_async, 64, 16, false, true},
                      CopyCase{"xor16_64x32_cp_async_trans", copy_xor16_64x32_cp_async_trans, 64, 32, true, true},
                      CopyCase{"naive_64x32_regs", copy_none_64x32_regs, 64, 32, false, false},
                      CopyCase{"naive_32x128_cp_async_trans", copy_none_32x128_cp_async_trans, 32, 128, true, false}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
