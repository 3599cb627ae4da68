// NVRTC in the process, without a GPU: cubin and PTX for sm_80 and sm_90; compile errors
// carry the log, the generated source's path and the offending lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "handwritten_kernel.h"
#include "polyfuse/errors.h"
#include "runtime/cuda/nvrtc_compiler.h"

namespace {
using namespace polyfuse::cuda;

class NvrtcArch : public ::testing::TestWithParam<const char*> {};

TEST_P(NvrtcArch, CompilesHandwrittenKernelToCubinAndPtx) {
  NvrtcOptions options;
  options.arch = GetParam();
  const NvrtcOutput out = nvrtc_compile(pf_runtime_test::scale_relu_source(), options, "scale_relu");
  ASSERT_GT(out.cubin.size(), 256u);
  // An ELF image for the requested machine.
  EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF");
  const std::string arch_number = std::string(GetParam()).substr(3);
  EXPECT_NE(out.ptx.find(".target sm_" + arch_number), std::string::npos) << out.ptx.substr(0, 400);
  EXPECT_NE(out.ptx.find(".entry scale_relu"), std::string::npos);
}
INSTANTIATE_TEST_SUITE_P(Arch, NvrtcArch, ::testing::Values("sm_80", "sm_90"));

TEST(Nvrtc, FlagsAreDocumentedOnes) {
  NvrtcOptions options;
  options.arch = "sm_80";
  EXPECT_EQ(nvrtc_flags(options), (std::vector<std::string>{"--gpu-architecture=sm_80", "-std=c++17"}));
  options.fast_math = true;
  options.line_info = true;
  EXPECT_EQ(nvrtc_flags(options),
            (std::vector<std::string>{"--gpu-architecture=sm_80", "-std=c++17", "--use_fast_math", "-lineinfo"}));
  EXPECT_FALSE(nvrtc_version().empty());
}

TEST(Nvrtc, IncludedHelperHeadersComeFromMemory) {
  const std::string source = "#include \"polyfuse_cuda.cuh\"\n"
                             "extern \"C\" __global__ void copy(const float* x, float* y) { pf::stg(y + threadIdx.x, x[threadIdx.x]); }\n";
  const NvrtcOutput out = nvrtc_compile(source, NvrtcOptions{}, "copy");
  EXPECT_FALSE(out.cubin.empty());
}

TEST(Nvrtc, ErrorCarriesLogSourcePathAndOffendingLine) {
  const std::string source = "extern \"C\" __global__ void broken(float* p) {\n  p[0] = undeclared_value;\n}\n";
  try {
    nvrtc_compile(source, NvrtcOptions{}, "broken");
    FAIL() << "no CompileError";
  } catch (const polyfuse::CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("kernel 'broken'"), std::string::npos) << what;
    EXPECT_NE(what.find("undeclared_value"), std::string::npos) << what;
    EXPECT_NE(what.find("  2 |   p[0] = undeclared_value;"), std::string::npos) << what;
    EXPECT_NE(e.log().find("error"), std::string::npos) << e.log();
    ASSERT_FALSE(e.source_path().empty());
    // The log's line references name the written file, which holds the source.
    EXPECT_NE(e.log().find(e.source_path() + "(2)"), std::string::npos) << e.log();
    std::ifstream in(e.source_path());
    std::stringstream written;
    written << in.rdbuf();
    EXPECT_EQ(written.str(), source);
    std::filesystem::remove(e.source_path());
  }
}

}  // namespace
