// Block copies (global → registers → swizzled shared, cp.async) and ldmatrix reads on the
// emulator: the data round-trips exactly, the XOR swizzle has zero bank conflicts and the
// naive layout does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

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

// The implicit GEMM's gathered copy: each chunk from the address the gather gives, zeros (and
// no read) where it gives nullptr, through the swizzled tile.
TEST(GatherCopyEmu, ChunksFromTheGatheredAddressesAndZerosElsewhere) {
  const auto in = random_bits(64 * 64, false, 11);
  std::vector<unsigned short> out(64 * 32, 0xffff);
  polyfuse::emu::ScopedBuffer bi(in.data(), in.size() * 2, "in"), bo(out.data(), out.size() * 2, "out");
  const auto stats = polyfuse::emu::launch(gather_xor16_64x32_cp_async, dim3(1), dim3(128), 64 * 32 * 2, in.data(), out.data());
  std::uint64_t chunks = 0;
  for (int row = 0; row < 64; ++row)
    for (int col = 0; col < 32; ++col) {
      const bool zero = row >= 60 || (row + col / 8) % 3 == 0;
      chunks += !zero && col % 8 == 0;
      const unsigned short expected = zero ? 0 : in[static_cast<std::size_t>((5 * row) % 64 * 64 + col + 8)];
      ASSERT_EQ(out[static_cast<std::size_t>(row * 32 + col)], expected) << "element (" << row << ", " << col << ")";
    }
  ASSERT_NE(stats.buffer("in"), nullptr);
  EXPECT_EQ(stats.buffer("in")->bytes_loaded, 16 * chunks);  // the zero chunks read nothing
}

// Element by element (narrow channels): every element from its own address, zeros read nothing.
TEST(GatherCopyEmu, ElementsFromTheGatheredAddressesAndZerosElsewhere) {
  const auto in = random_bits(64 * 64, false, 12);
  std::vector<unsigned short> out(64 * 32, 0xffff);
  polyfuse::emu::ScopedBuffer bi(in.data(), in.size() * 2, "in"), bo(out.data(), out.size() * 2, "out");
  const auto stats = polyfuse::emu::launch(gather_elements_xor16_64x32, dim3(1), dim3(128), 64 * 32 * 2, in.data(), out.data());
  std::uint64_t elements = 0;
  for (int row = 0; row < 64; ++row)
    for (int col = 0; col < 32; ++col) {
      const bool zero = row >= 60 || col >= 27 || (row + col) % 3 == 0;
      elements += !zero;
      const unsigned short expected = zero ? 0 : in[static_cast<std::size_t>((5 * row) % 64 * 64 + col + 8)];
      ASSERT_EQ(out[static_cast<std::size_t>(row * 32 + col)], expected) << "element (" << row << ", " << col << ")";
    }
  EXPECT_EQ(stats.buffer("in")->bytes_loaded, 2 * elements);
}

// Partial tiles with every access width the generator can choose: exactly the valid part
// arrives (zeros elsewhere), no byte outside it is read (the buffer ends at the last valid
// element, so any over-read is an out-of-bounds error), and no access is misaligned.
using PartialKernel = void (*)(const void*, long long, int, int, unsigned short*);
struct PartialCopyCase {
  const char* name;
  PartialKernel kernel;
  long long ld;
  int rows_valid, cols_valid;
};

class PartialCopyEmu : public ::testing::TestWithParam<PartialCopyCase> {};

TEST_P(PartialCopyEmu, ValidPartOnlyWithTheChosenWidth) {
  const PartialCopyCase& c = GetParam();
  const std::size_t used = static_cast<std::size_t>((c.rows_valid - 1) * c.ld + c.cols_valid);
  // 16-byte aligned start (the generator's requirement on tensors), length exactly `used`.
  std::vector<unsigned short> storage = random_bits(used + 8, false, 11);
  unsigned short* in = storage.data();
  while (reinterpret_cast<std::uintptr_t>(in) % 16 != 0) ++in;
  std::vector<unsigned short> out(32 * 64, 0xffff);
  polyfuse::emu::ScopedBuffer bi(in, used * 2, "in"), bo(out.data(), out.size() * 2, "out");
  const auto stats = polyfuse::emu::launch(c.kernel, dim3(1), dim3(128), 32 * 64 * 2, static_cast<const void*>(in), c.ld,
                                           c.rows_valid, c.cols_valid, out.data());
  for (int r = 0; r < 32; ++r)
    for (int col = 0; col < 64; ++col) {
      const unsigned short expected = r < c.rows_valid && col < c.cols_valid ? in[r * c.ld + col] : 0;
      ASSERT_EQ(out[r * 64 + col], expected) << "element (" << r << ", " << col << ")";
    }
  EXPECT_EQ(stats.buffer("in")->bytes_loaded, std::min(c.rows_valid, 32) * std::min(c.cols_valid, 64) * 2u);
}

// The check that makes the test above mean something: 128-bit accesses on rows that start
// 8 bytes apart fault on the hardware, and the emulator says so.
TEST(PartialCopyEmuChecks, TooWideAnAccessForTheLeadingDimensionIsMisaligned) {
  std::vector<unsigned short> storage = random_bits(32 * 68 + 8, false, 3);
  unsigned short* in = storage.data();
  while (reinterpret_cast<std::uintptr_t>(in) % 16 != 0) ++in;
  std::vector<unsigned short> out(32 * 64, 0);
  polyfuse::emu::ScopedBuffer bi(in, 32 * 68 * 2, "in"), bo(out.data(), out.size() * 2, "out");
  try {
    polyfuse::emu::launch(partial_copy_all_b128_regs, dim3(1), dim3(128), 32 * 64 * 2, static_cast<const void*>(in),
                          68LL, 32, 64, out.data());
    ADD_FAILURE() << "no EmulationError for 128-bit loads with a leading dimension of 68 halves";
  } catch (const polyfuse::emu::EmulationError& e) {
    EXPECT_NE(std::string(e.what()).find("misaligned 16-byte global load"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Widths, PartialCopyEmu,
    ::testing::Values(PartialCopyCase{"cp_async_b128_ld72", partial_copy_all_b128_cp_async, 72, 29, 61},
                      PartialCopyCase{"cp_async_b64_ld68", partial_copy_all_b64_cp_async, 68, 30, 63},
                      PartialCopyCase{"cp_async_b32_ld66", partial_copy_all_b32_cp_async, 66, 17, 59},
                      PartialCopyCase{"cp_async_b16_ld65", partial_copy_all_b16_cp_async, 65, 31, 65},
                      PartialCopyCase{"cp_async_by_address_ld65", partial_copy_all_by_address_cp_async, 65, 5, 7},
                      PartialCopyCase{"cp_async_by_address_ld72", partial_copy_all_by_address_cp_async, 72, 32, 64},
                      PartialCopyCase{"cp_async_full_tile_no_checks", partial_copy_none_b128_cp_async, 64, 32, 64},
                      PartialCopyCase{"cp_async_cols_only_b64", partial_copy_cols_b64_cp_async, 68, 40, 45},
                      PartialCopyCase{"regs_b128_ld72", partial_copy_all_b128_regs, 72, 1, 1},
                      PartialCopyCase{"regs_b64_ld68", partial_copy_all_b64_regs, 68, 30, 63},
                      PartialCopyCase{"regs_b32_ld66", partial_copy_all_b32_regs, 66, 17, 59},
                      PartialCopyCase{"regs_b16_ld65", partial_copy_all_b16_regs, 65, 31, 65},
                      PartialCopyCase{"regs_by_address_ld65", partial_copy_all_by_address_regs, 65, 32, 64},
                      PartialCopyCase{"regs_rows_only_b32", partial_copy_rows_b32_regs, 66, 20, 64}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
