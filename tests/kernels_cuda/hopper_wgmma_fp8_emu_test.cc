// The FP8 wgmma wrapper (pf::sm90::wgmma_ss_fp8: m64nNk32 with e4m3/e5m2 A and B, both K-major)
// on the emulator against a scalar reference: every FP8 probe of hopper_kernels.cu under every
// pair of swizzle modes of A and B, 4 k32 steps (and 1 where A and B share a mode), on FP8
// codes of every magnitude (NaN excluded); the emulator decodes them exactly (polyfuse/cpu/fp8.h)
// and its products are exact, so D must match the f64 sum to f32 accumulation. A planted
// misreading (the operands taken as 16-bit) must fail.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "hopper_kernels.h"
#include "hopper_reference.h"
#include "polyfuse/cpu/fp8.h"
#include "polyfuse_emu/emulator.h"

namespace {
using pfh_test::Fp8Probe;
using pfh_test::kProbeK;
using polyfuse::emu::ScopedBuffer;
using polyfuse::fp8::Format;

constexpr int kBytesK = 2 * kProbeK;  // FP8 elements along k: 4 k32 steps
const char* const kModes[4] = {"none", "32B", "64B", "128B"};

Format format_of(bool e5m2) { return e5m2 ? Format::e5m2 : Format::e4m3; }

// rows x kBytesK random finite codes of `format` (every exponent, both signs; no NaN, no infinity).
std::vector<unsigned char> random_codes(Format format, int rows, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> codes(static_cast<std::size_t>(rows) * kBytesK);
  for (unsigned char& c : codes) {
    do c = static_cast<unsigned char>(rng() & 0xff);
    while (!std::isfinite(polyfuse::fp8::to_f32(format, c)));
  }
  return codes;
}

// D (64 x N) against sum_k A(m, k) B(n, k) over the first 32 k_steps elements of k, in f64.
pfh_test::Mismatches check(const Fp8Probe& p, const std::vector<unsigned char>& a, const std::vector<unsigned char>& b,
                           const std::vector<float>& d, int k_steps) {
  pfh_test::Mismatches bad;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < p.n; ++n) {
      double ref = 0, mag = 0;
      for (int k = 0; k < 32 * k_steps; ++k) {
        const double t = double(polyfuse::fp8::to_f32(format_of(p.a_e5m2), a[m * kBytesK + k])) *
                         polyfuse::fp8::to_f32(format_of(p.b_e5m2), b[n * kBytesK + k]);
        ref += t;
        mag += std::abs(t);
      }
      const float got = d[static_cast<std::size_t>(m) * p.n + n];
      if (!pfh_test::close_to_reference(got, ref, mag))
        bad.add("D(" + std::to_string(m) + ", " + std::to_string(n) + ") = " + std::to_string(got) + ", reference " +
                std::to_string(ref));
    }
  return bad;
}

class HopperWgmmaFp8Emu : public ::testing::TestWithParam<Fp8Probe> {};

TEST_P(HopperWgmmaFp8Emu, MatchesScalarReferenceInEverySwizzle) {
  const Fp8Probe& p = GetParam();
  const auto a = random_codes(format_of(p.a_e5m2), 64, 21);
  const auto b = random_codes(format_of(p.b_e5m2), p.n, 22 + p.n);
  std::vector<float> d(static_cast<std::size_t>(64) * p.n);
  ScopedBuffer ba(a.data(), a.size(), "A"), bb(b.data(), b.size(), "B"), bd(d.data(), d.size() * 4, "D");
  for (int sa = 0; sa < 4; ++sa)
    for (int sb = 0; sb < 4; ++sb)
      for (int k_steps : {4, 1}) {
        if (k_steps == 1 && sa != sb) continue;
        std::fill(d.begin(), d.end(), -99.f);
        const std::string what = p.name() + " A " + kModes[sa] + ", B " + kModes[sb] + ", " +
                                 std::to_string(k_steps) + " k32 step(s)";
        const polyfuse::emu::Stats s = pfh_test::run_wgmma_fp8_probe(p, a.data(), b.data(), d.data(), k_steps, sa, sb);
        const pfh_test::Mismatches bad = check(p, a, b, d, k_steps);
        EXPECT_EQ(bad.count, 0) << what << ": " << bad.text();
        EXPECT_EQ(s.wgmma_instructions, static_cast<std::uint64_t>(k_steps)) << what;
        if (HasFailure()) return;
      }
}

INSTANTIATE_TEST_SUITE_P(Probes, HopperWgmmaFp8Emu, ::testing::ValuesIn(pfh_test::wgmma_fp8_probes()),
                         [](const ::testing::TestParamInfo<Fp8Probe>& info) {
                           return info.param.name().substr(std::string("hopper_wgmma_fp8_").size());
                         });

// The check can fail: the same D compared as if B were the other FP8 format.
TEST(HopperWgmmaFp8EmuCheck, AWrongFormatFails) {
  const Fp8Probe p = pfh_test::wgmma_fp8_probes().front();  // e4m3 x e4m3
  const auto a = random_codes(Format::e4m3, 64, 31);
  const auto b = random_codes(Format::e4m3, p.n, 32);
  std::vector<float> d(static_cast<std::size_t>(64) * p.n);
  ScopedBuffer ba(a.data(), a.size(), "A"), bb(b.data(), b.size(), "B"), bd(d.data(), d.size() * 4, "D");
  pfh_test::run_wgmma_fp8_probe(p, a.data(), b.data(), d.data(), 4, 3, 3);
  EXPECT_EQ(check(p, a, b, d, 4).count, 0);
  Fp8Probe misread = p;
  misread.b_e5m2 = true;
  EXPECT_GT(check(misread, a, b, d, 4).count, 64 * p.n / 2);
}

}  // namespace
