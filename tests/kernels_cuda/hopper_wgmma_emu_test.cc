// The wgmma wrappers of kernels/cuda (pf_wgmma, pf_wgmma_desc, pf_wgmma_tile) on the emulator
// against a scalar reference: every probe of hopper_kernels.cu (shared-memory and register
// forms of A, f16 and bf16, N = 8, 16, 24, 64, 128, 256, K- and M/N-major A and B) under every
// swizzle mode of A and of B (none, 32B, 64B, 128B), with 1 and 4 k-steps; the emulator's
// wgmma counter.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hopper_kernels.h"
#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using pfh_test::kProbeK;
using pfh_test::WgmmaProbe;
using polyfuse::emu::ScopedBuffer;

const char* const kModes[4] = {"none", "32B", "64B", "128B"};

class HopperWgmmaEmu : public ::testing::TestWithParam<WgmmaProbe> {};

// D = A * B over the first 16 k_steps columns of k, A [m][k] (64 x kProbeK), B [n][k].
void expect_product(const WgmmaProbe& p, const std::vector<unsigned short>& a, const std::vector<unsigned short>& b,
                    const std::vector<float>& d, int k_steps, const std::string& what) {
  int bad = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < p.n; ++n) {
      double ref = 0, mag = 0;
      for (int k = 0; k < 16 * k_steps; ++k) {
        const double t = double(pft_test::to_f(a[m * kProbeK + k], p.bf16)) * pft_test::to_f(b[n * kProbeK + k], p.bf16);
        ref += t;
        mag += std::abs(t);
      }
      const float got = d[m * p.n + n];
      if (!(std::abs(got - ref) <= 1e-5 * mag + 1e-6) && bad++ < 4)
        ADD_FAILURE() << what << ": D(" << m << ", " << n << ") = " << got << ", reference " << ref;
    }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " wrong elements of 64 x " << p.n;
}

TEST_P(HopperWgmmaEmu, MatchesScalarReferenceInEverySwizzle) {
  const WgmmaProbe& p = GetParam();
  const auto a = pft_test::random_bits(64 * kProbeK, p.bf16, 17);
  const auto b = pft_test::random_bits(static_cast<std::size_t>(p.n) * kProbeK, p.bf16, 18 + p.n);
  std::vector<float> d(static_cast<std::size_t>(64) * p.n);
  ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"), bd(d.data(), d.size() * 4, "D");
  for (int sa = 0; sa < 4; ++sa)
    for (int sb = 0; sb < 4; ++sb) {
      // all k-steps for every pair of modes; one k-step where A and B share a mode
      for (int k_steps : {4, 1}) {
        if (k_steps == 1 && sa != sb) continue;
        std::fill(d.begin(), d.end(), -99.f);
        const std::string what = p.name() + " A " + kModes[sa] + ", B " + kModes[sb] + ", " +
                                 std::to_string(k_steps) + " k-step(s)";
        const polyfuse::emu::Stats s = pfh_test::run_wgmma_probe(p, a.data(), b.data(), d.data(), k_steps, sa, sb);
        expect_product(p, a, b, d, k_steps, what);
        EXPECT_EQ(s.wgmma_instructions, static_cast<std::uint64_t>(k_steps)) << what;
        if (HasFailure()) return;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Probes, HopperWgmmaEmu, ::testing::ValuesIn(pfh_test::wgmma_probes()),
                         [](const ::testing::TestParamInfo<WgmmaProbe>& info) {
                           return info.param.name().substr(std::string("hopper_wgmma_").size());
                         });

}  // namespace
