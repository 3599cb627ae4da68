// The wgmma wrappers of kernels/cuda (pf_wgmma, pf_wgmma_desc, pf_wgmma_tile) on the emulator
// against a scalar reference: every probe of hopper_kernels.cu (shared-memory and register
// forms of A, f16 and bf16, N = 8, 16, 24, 64, 128, 256, K- and M/N-major A and B) under every
// swizzle mode of A and of B (none, 32B, 64B, 128B), with 1 and 4 k-steps; the emulator's
// wgmma counter.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hopper_kernels.h"
#include "hopper_reference.h"
#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using pfh_test::kProbeK;
using pfh_test::WgmmaProbe;
using polyfuse::emu::ScopedBuffer;

const char* const kModes[4] = {"none", "32B", "64B", "128B"};

class HopperWgmmaEmu : public ::testing::TestWithParam<WgmmaProbe> {};

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
        const pfh_test::Mismatches bad = pfh_test::check_wgmma_probe(p, a, b, d, k_steps);
        EXPECT_EQ(bad.count, 0) << what << ": " << bad.text();
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
