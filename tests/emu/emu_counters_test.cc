// The emulator's counters on known access patterns, warp collectives, and 16-bit
// conversions.
#include <gtest/gtest.h>

#include <vector>

#include "emu_kernels.h"
#include "polyfuse_emu/emulator.h"
#include "polyfuse_emu/fp16.h"

namespace {

// 128-byte aligned buffers, so that sector counts are exact.
struct alignas(128) Floats {
  float v[32 * 32];
};

polyfuse::emu::Stats run_strided(int stride) {
  static Floats in, out;
  polyfuse::emu::ScopedBuffer bi(in.v, 32 * 32 * 4, "in"), bo(out.v, 32 * 4, "out");
  return polyfuse::emu::launch(strided_copy, dim3(1), dim3(32), 0, in.v, out.v, stride);
}

TEST(EmuCounters, CoalescedLoadIsFourSectorsPerRequest) {
  const auto s = run_strided(1);
  EXPECT_EQ(s.global_bytes_loaded, 128u);
  EXPECT_EQ(s.global_bytes_stored, 128u);
  EXPECT_EQ(s.global_requests, 2u);  // one load, one store
  EXPECT_EQ(s.global_sectors, 8u);
  ASSERT_NE(s.buffer("in"), nullptr);
  EXPECT_EQ(s.buffer("in")->bytes_loaded, 128u);
  EXPECT_EQ(s.buffer("out")->bytes_stored, 128u);
  EXPECT_EQ(s.summary(), "stats: global_bytes_loaded=128 global_bytes_stored=128 shared_bank_conflicts=0");
}

TEST(EmuCounters, StridedLoadTouchesOneSectorPerLane) {
  const auto s = run_strided(32);
  EXPECT_EQ(s.global_sectors, 32u + 4u);
}

polyfuse::emu::Stats run_shared(int word_stride, int width) {
  std::vector<float> out(32, 0.f);
  polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * 4, "out");
  return polyfuse::emu::launch(shared_pattern, dim3(1), dim3(32), 4096, out.data(), word_stride, width);
}

TEST(EmuCounters, SharedBankConflicts) {
  // the fill loop (32 stores of consecutive words, 32 times) is conflict-free in every case
  EXPECT_EQ(run_shared(1, 4).shared_bank_conflicts, 0u);   // consecutive words
  EXPECT_EQ(run_shared(0, 4).shared_bank_conflicts, 0u);   // one word: broadcast
  EXPECT_EQ(run_shared(2, 4).shared_bank_conflicts, 1u);   // 2-way
  EXPECT_EQ(run_shared(32, 4).shared_bank_conflicts, 31u); // all lanes in bank 0
  EXPECT_EQ(run_shared(1, 16).shared_bank_conflicts, 0u);  // 128-bit, consecutive chunks
  EXPECT_EQ(run_shared(8, 16).shared_bank_conflicts, 4u * 7u);  // 128-bit, every chunk in banks 0..3
  const auto s = run_shared(1, 4);
  EXPECT_EQ(s.shared_accesses, 33u);
  EXPECT_EQ(s.barriers, 2u);
}

TEST(EmuCounters, WarpShufflesAndReductions) {
  std::vector<float> out(160, 0.f);
  polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * 4, "out");
  const auto s = polyfuse::emu::launch(warp_ops, dim3(1), dim3(32), 0, out.data());
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l], 31 - l);
    EXPECT_EQ(out[32 + l], l ^ 1);
    EXPECT_EQ(out[64 + l], 496.f);
    EXPECT_EQ(out[96 + l], 31.f);
    EXPECT_EQ(out[128 + l], l + 2 < 32 ? l + 2 : l);
  }
  EXPECT_EQ(s.warp_collectives, 5u);
}

TEST(EmuFp16, HalfRoundsToNearestEven) {
  using namespace polyfuse::emu::fp16;
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3c00);                   // tie → even
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048), 0x3c02);                   // tie → even (up)
  EXPECT_EQ(float_to_half(65504.f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.f), 0x7c00);                              // overflow → inf
  EXPECT_EQ(float_to_half(5.9604645e-8f), 0x0001);                        // smallest subnormal
  EXPECT_EQ(float_to_half(2.9802322e-8f), 0x0000);                        // 2^-25: tie → 0
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(__builtin_nanf("")) & 0x7e00, 0x7e00);
  for (unsigned h = 0; h < 0x7c00; ++h) ASSERT_EQ(float_to_half(half_to_float(static_cast<unsigned short>(h))), h);
}

TEST(EmuFp16, Bfloat16RoundsToNearestEven) {
  using namespace polyfuse::emu::fp16;
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(bits_float(0x3f808000u)), 0x3f80);  // tie → even
  EXPECT_EQ(float_to_bfloat16(bits_float(0x3f818000u)), 0x3f82);  // tie → even (up)
  EXPECT_EQ(float_to_bfloat16(bits_float(0x3f808001u)), 0x3f81);
  EXPECT_EQ(bfloat16_to_float(0x3f81), bits_float(0x3f810000u));
}

}  // namespace
