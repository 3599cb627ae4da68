// Compile tests: every helper header alone, the amalgamation, and the test kernels compile
// with NVRTC for sm_80, sm_90 and sm_90a; the test kernels without register spills. The Hopper
// kernels (hopper_kernels.cu, layout_oracle_sm90_kernels.cu) compile for sm_90a without spills
// and without any ptxas diagnostic (issue 17 item 4), and the check catches a planted one.
#include <gtest/gtest.h>

#include <string>

#include "nvrtc_compile.h"
#include "polyfuse/cuda_helpers_embedded.h"

namespace {
using pft_test::nvrtc_compile;

class NvrtcEmuCompile : public ::testing::TestWithParam<std::string> {};

TEST_P(NvrtcEmuCompile, EachHeaderAlone) {
  for (const auto& [name, text] : polyfuse::cuda_helpers::embedded_headers()) {
    const std::string source = "#include \"" + std::string(name) + "\"\nextern \"C\" __global__ void probe() {}\n";
    const auto r = nvrtc_compile(source, GetParam(), false);
    EXPECT_TRUE(r.ok) << name << ":\n" << r.log;
  }
}

TEST_P(NvrtcEmuCompile, AmalgamationIsSelfContained) {
  const std::string source = std::string(polyfuse::cuda_helpers::amalgamation()) +
                             "extern \"C\" __global__ void probe(float* p) { pf::stg(p, pf::warp_sum(1.0f)); }\n";
  const auto r = nvrtc_compile(source, GetParam(), false);
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(r.cubin.empty());
}

TEST_P(NvrtcEmuCompile, TestKernelsWithoutSpills) {
  const auto r = nvrtc_compile(pft_test::test_kernels_source(), GetParam(), true);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(r.cubin.empty());
  EXPECT_NE(r.log.find("bytes spill"), std::string::npos) << "no ptxas report in the log:\n" << r.log;
  EXPECT_TRUE(pft_test::nonzero_spills(r.log).empty()) << r.log;
}

INSTANTIATE_TEST_SUITE_P(Arch, NvrtcEmuCompile, ::testing::Values("sm_80", "sm_90", "sm_90a"),
                         [](const auto& info) { return info.param; });

class NvrtcHopperCompile : public ::testing::TestWithParam<std::string> {};

TEST_P(NvrtcHopperCompile, Sm90aWithoutSpillsOrPtxasDiagnostics) {
  const auto r = nvrtc_compile(pft_test::kernels_source(GetParam()), "sm_90a", true);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(r.cubin.empty());
  EXPECT_NE(r.log.find("bytes spill"), std::string::npos) << "no ptxas report in the log:\n" << r.log;
  EXPECT_TRUE(pft_test::nonzero_spills(r.log).empty()) << r.log;
  const auto diagnostics = pft_test::ptxas_diagnostics(r.log);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics.size() << " ptxas diagnostics, the first: " << diagnostics.front();
}

INSTANTIATE_TEST_SUITE_P(Kernels, NvrtcHopperCompile,
                         ::testing::Values("hopper_kernels.cu", "layout_oracle_sm90_kernels.cu"),
                         [](const auto& info) { return info.param.substr(0, info.param.find('.')); });

TEST(NvrtcHopperCompile, ReportsASerialisedWgmma) {
  const auto r = nvrtc_compile(pft_test::kernels_source("planted_wgmma_serialised.cu"), "sm_90a", true);
  ASSERT_TRUE(r.ok) << r.log;
  const auto diagnostics = pft_test::ptxas_diagnostics(r.log);
  bool serialised = false;
  for (const std::string& d : diagnostics) serialised = serialised || d.find("(C7511)") != std::string::npos;
  EXPECT_TRUE(serialised) << "ptxas log without C7511:\n" << r.log;
}

}  // namespace
