// Compile tests: every helper header alone, the amalgamation, and the test kernels compile
// with NVRTC for sm_80 and sm_90; the test kernels without register spills.
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

INSTANTIATE_TEST_SUITE_P(Arch, NvrtcEmuCompile, ::testing::Values("sm_80", "sm_90"),
                         [](const auto& info) { return info.param; });

}  // namespace
