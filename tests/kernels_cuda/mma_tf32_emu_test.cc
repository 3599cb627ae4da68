// f32 operands on tensor cores (pf_mma_tf32.cuh) on the emulator: cvt.rna.tf32.f32 bit by
// bit, the m16n8k8 tf32 fragment layout against a scalar reference (a planted layout bug
// fails it), and the f32 warp tiles (all four layouts, TF32 and 3xTF32) against f64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using namespace pft_test;

float float_of(unsigned u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// TF32 by the definition, independent of the helper's bit arithmetic: x to 11 significant
// bits (to a multiple of 2^-136, TF32's subnormal spacing, below 2^-126), to nearest, ties
// away from zero (std::round), in f64; Inf from 2^128 on.
double tf32_reference(float x) {
  if (!std::isfinite(x) || x == 0) return x;
  int e = 0;
  std::frexp(static_cast<double>(x), &e);  // |x| in [2^(e-1), 2^e)
  const int quantum = std::max(e - 11, -136);
  const double r = std::ldexp(std::round(std::ldexp(static_cast<double>(x), -quantum)), quantum);
  return std::fabs(r) >= 0x1p128 ? std::copysign(HUGE_VAL, r) : r;
}

std::vector<unsigned> round_on_emulator(const std::vector<float>& in) {
  std::vector<unsigned> out(in.size(), 0xdeadbeefu);
  polyfuse::emu::ScopedBuffer bi(in.data(), in.size() * 4, "in"), bo(out.data(), out.size() * 4, "out");
  polyfuse::emu::launch(tf32_round_values, dim3(1), dim3(32), 0, in.data(), out.data(), static_cast<int>(in.size()));
  return out;
}

TEST(Tf32Round, TiesCarriesSubnormalsInfNaN) {
  struct Case {
    unsigned in, want;
    const char* what;
  };
  const Case cases[] = {
      {0x3f800000u, 0x3f800000u, "1 is exact"},
      {0x3f801000u, 0x3f802000u, "1 + 2^-11, a tie: away from zero"},
      {0xbf801000u, 0xbf802000u, "-(1 + 2^-11): away from zero"},
      {0x3f800fffu, 0x3f800000u, "just below the tie: down"},
      {0x3f803000u, 0x3f804000u, "a tie above an odd last bit: up"},
      {0x3f801001u, 0x3f802000u, "just above the tie: up"},
      {0x3ffff000u, 0x40000000u, "a tie at the top of the binade carries into the exponent"},
      {0x7f7ff000u, 0x7f800000u, "the largest values round to Inf"},
      {0x7f7fefffu, 0x7f7fe000u, "the largest TF32 value stays finite"},
      {0x00001000u, 0x00002000u, "a subnormal tie rounds up (no flush)"},
      {0x00000fffu, 0x00000000u, "below half the smallest TF32 subnormal: zero"},
      {0x807ff000u, 0x80800000u, "the largest subnormal carries into the smallest normal"},
      {0x80000000u, 0x80000000u, "-0 stays -0"},
      {0x7f800000u, 0x7f800000u, "Inf"},
      {0xff800000u, 0xff800000u, "-Inf"},
  };
  std::vector<float> in;
  for (const Case& c : cases) in.push_back(float_of(c.in));
  const std::vector<unsigned> out = round_on_emulator(in);
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    EXPECT_EQ(out[i], cases[i].want) << cases[i].what << std::hex << ": 0x" << cases[i].in;
    EXPECT_EQ(float_of(out[i]), tf32_reference(in[i])) << cases[i].what;
  }
  // NaNs stay NaN, also one whose payload is only in the dropped bits (not Inf).
  const std::vector<unsigned> nans = round_on_emulator({float_of(0x7fc00000u), float_of(0x7f800001u), float_of(0xff800fffu)});
  for (unsigned u : nans) EXPECT_TRUE(std::isnan(float_of(u))) << std::hex << u;
  // Random values: the helper agrees with the definition.
  std::mt19937 rng(7);
  std::uniform_int_distribution<unsigned> any;
  std::vector<float> random;
  while (random.size() < 32) {
    const float x = float_of(any(rng));
    if (std::isfinite(x)) random.push_back(x);
  }
  const std::vector<unsigned> rounded = round_on_emulator(random);
  for (std::size_t i = 0; i < random.size(); ++i) EXPECT_EQ(float_of(rounded[i]), tf32_reference(random[i])) << random[i];
}

// Elements that are exact in TF32 and give exact f32 sums: the emulator's mma must equal the
// scalar product exactly.
int layout_mismatches(int swap_a) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(-16, 16);
  std::vector<float> a(16 * 8), b(8 * 8), c(16 * 8, -1.f);
  for (float& x : a) x = static_cast<float>(small(rng)) / 4;
  for (float& x : b) x = static_cast<float>(small(rng)) / 8;
  polyfuse::emu::ScopedBuffer ba(a.data(), a.size() * 4, "A"), bb(b.data(), b.size() * 4, "B"), bc(c.data(), c.size() * 4, "C");
  polyfuse::emu::launch(mma_m16n8k8_tf32_layout, dim3(1), dim3(32), 0, a.data(), b.data(), c.data(), swap_a);
  int mismatches = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double ref = 0;
      for (int k = 0; k < 8; ++k) ref += double(a[i * 8 + k]) * b[k * 8 + j];
      mismatches += c[i * 8 + j] != ref;
    }
  return mismatches;
}

TEST(MmaM16n8k8Tf32, FragmentLayoutMatchesThePtxIsa) {
  EXPECT_EQ(layout_mismatches(-1), 0);
  // A planted layout bug (two A registers trade places) is seen.
  EXPECT_GT(layout_mismatches(0), 0);
  EXPECT_GT(layout_mismatches(2), 0);
}

struct F32Case {
  const char* name;
  void (*kernel)(const void*, const void*, float*);
  bool a_row, b_row, three;
  int n = 32;
};

class MmaF32Emu : public ::testing::TestWithParam<F32Case> {};

// A (32x32) x B (32xN) of values in [-1, 1]: TF32 equals the product of the TF32-rounded
// inputs (to f32 accumulation) and is visibly off the exact one; 3xTF32 is close to exact.
TEST_P(MmaF32Emu, MatchesReference) {
  const F32Case& c = GetParam();
  constexpr int M = 32, K = 32;
  const int N = c.n;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(M * K), b(K * N), out(M * N, -1.f);
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  polyfuse::emu::ScopedBuffer ba(a.data(), a.size() * 4, "A"), bb(b.data(), b.size() * 4, "B"),
      bc(out.data(), out.size() * 4, "C");
  const polyfuse::emu::Stats stats =
      polyfuse::emu::launch(c.kernel, dim3(1), dim3(32), 4u * (M * K + K * N), a.data(), b.data(), out.data());
  double off_exact = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double exact = 0, rounded = 0;
      for (int k = 0; k < K; ++k) {
        const float x = a[at(c.a_row, M, K, i, k)], y = b[at(c.b_row, K, N, k, j)];
        exact += double(x) * y;
        rounded += tf32_reference(x) * tf32_reference(y);
      }
      const double got = out[static_cast<std::size_t>(i) * N + j];
      EXPECT_NEAR(got, c.three ? exact : rounded, 4e-6) << c.name << " at (" << i << ", " << j << ")";
      off_exact = std::max(off_exact, std::fabs(got - exact));
    }
  if (c.three) {
    EXPECT_LT(off_exact, 4e-6);
  } else {
    EXPECT_GT(off_exact, 1e-4) << "TF32's rounding of the inputs must show";
  }
  // The k-contiguous tiles (A row-major, B column-major) are read without bank conflicts; the
  // others in pairs of banks (pf_mma_tf32.cuh): recorded.
  if (c.a_row && !c.b_row) {
    EXPECT_EQ(stats.shared_bank_conflicts, 0u) << stats.details();
  }
  RecordProperty("shared_bank_conflicts", std::to_string(stats.shared_bank_conflicts));
}

INSTANTIATE_TEST_SUITE_P(SM80_tf32, MmaF32Emu,
                         ::testing::Values(F32Case{"tf32_row_col", mma_tf32_row_col_2x4, true, false, false},
                                           F32Case{"tf32_row_row", mma_tf32_row_row_2x4, true, true, false},
                                           F32Case{"tf32_col_col", mma_tf32_col_col_2x4, false, false, false},
                                           F32Case{"tf32_col_row", mma_tf32_col_row_2x4, false, true, false},
                                           F32Case{"x3tf32_row_col", mma_3xtf32_row_col_2x4, true, false, true},
                                           F32Case{"tf32_col_row_n16", mma_tf32_col_row_2x2, false, true, false, 16}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
