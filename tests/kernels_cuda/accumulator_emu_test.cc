#include <new>
// Accumulator stores on the emulator: f32 fragments → shared reorder → (split-K sum over
// 1, 2, 4 warps) → f16 / bf16 / f32 → coalesced global stores, full and partial tiles.
#include <gtest/gtest.h>

#include <string>

#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using namespace pft_test;

float acc_value(int s, int w, int r, int c) {  // as in test_kernels.cu
  return 0.25f * static_cast<float>(((r * 7 + c * 3 + w * 5) % 17) - 8) + 0.125f * static_cast<float>(s + 1);
}
float expected(int split_k, int r, int c) {
  const int w = c / 32;
  float sum = 0.f;
  for (int s = 0; s < split_k; ++s) sum += acc_value(s, w, r, c % 32);
  return sum;
}

struct AccCase {
  int split_k, m_valid, n_valid;
};
std::string case_name(const AccCase& c) {
  return "splitk" + std::to_string(c.split_k) + "_" + std::to_string(c.m_valid) + "x" + std::to_string(c.n_valid);
}

class AccumulatorStoreEmu : public ::testing::TestWithParam<AccCase> {};

// A vector whose data is 32-byte aligned, like cudaMalloc'd memory (std::vector only
// guarantees 16 bytes; the sector counts below assume rows start on a 32-byte sector).
template <class T> struct Aligned32 {
  using value_type = T;
  Aligned32() = default;
  template <class U> Aligned32(const Aligned32<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(32))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(32)); }
  template <class U> bool operator==(const Aligned32<U>&) const { return true; }
};

template <class Kernel, class Out, class Convert>
polyfuse::emu::Stats run_store(Kernel kernel, const AccCase& c, Out sentinel, Convert to_float_of, bool exact16) {
  std::vector<Out, Aligned32<Out>> out(32 * 64, sentinel);
  polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * sizeof(Out), "out");
  const auto stats = polyfuse::emu::launch(kernel, dim3(1), dim3(64 * c.split_k), 1024u * 2 * c.split_k, out.data(),
                                           64, c.split_k, c.m_valid, c.n_valid);
  for (int r = 0; r < 32; ++r)
    for (int col = 0; col < 64; ++col) {
      const float got = to_float_of(out[r * 64 + col]);
      if (r < c.m_valid && col < c.n_valid)
        EXPECT_NEAR(got, expected(c.split_k, r, col), exact16 ? 1e-2 : 1e-6) << "(" << r << ", " << col << ")";
      else
        EXPECT_EQ(got, to_float_of(sentinel)) << "masked element written at (" << r << ", " << col << ")";
    }
  const std::size_t valid = static_cast<std::size_t>(c.m_valid) * c.n_valid;
  EXPECT_EQ(stats.global_bytes_stored, valid * sizeof(Out));
  return stats;
}

TEST_P(AccumulatorStoreEmu, F16From16816) {
  const auto stats = run_store(acc_store_f16_16816, GetParam(), __half(-100.f), [](__half h) { return float(h); }, true);
  EXPECT_EQ(stats.shared_bank_conflicts, 0u) << stats.details();
  if (GetParam().m_valid == 32 && GetParam().n_valid == 64) {  // every row of a piece is one full sector
    EXPECT_EQ(stats.global_sectors * 32, stats.global_bytes_stored);
  }
}
TEST_P(AccumulatorStoreEmu, Bf16From16816) {
  const auto stats =
      run_store(acc_store_bf16_16816, GetParam(), __nv_bfloat16(-100.f), [](__nv_bfloat16 h) { return float(h); }, true);
  EXPECT_EQ(stats.shared_bank_conflicts, 0u) << stats.details();
}
TEST_P(AccumulatorStoreEmu, F32From16816) {
  run_store(acc_store_f32_16816, GetParam(), -100.f, [](float f) { return f; }, false);
}
TEST_P(AccumulatorStoreEmu, F16FromMacro884) {
  const auto stats = run_store(acc_store_f16_884, GetParam(), __half(-100.f), [](__half h) { return float(h); }, true);
  RecordProperty("shared_bank_conflicts", std::to_string(stats.shared_bank_conflicts));
}

INSTANTIATE_TEST_SUITE_P(Splits, AccumulatorStoreEmu,
                         ::testing::Values(AccCase{1, 32, 64}, AccCase{2, 32, 64}, AccCase{4, 32, 64},
                                           AccCase{1, 27, 50}, AccCase{2, 17, 33}, AccCase{4, 5, 63}),
                         [](const auto& info) { return case_name(info.param); });

}  // namespace
