// Generated kernels on a real GPU (through the runtime API: NVRTC, driver launch),
// checked against the reference evaluator: the emulator tests' sweep of layouts, macro-MMA
// shapes, split-K, stages and fused idioms. Skipped, visibly, without a CUDA device.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gemm_programs.h"
#include "polyfuse/device.h"
#include "runtime/api/run_program.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

void expect_ok_on_gpu(const Program& program, const GpuOptions& options, const std::string& what) {
  RunRequest request;
  request.backend = Backend::cuda;
  request.options = options;
  request.repeats = 3;
  RunReport report = run_program(program, request);
  EXPECT_TRUE(report.check.ok) << what << ": " << report.check.to_string();
}

class CudaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_available()) GTEST_SKIP() << "no CUDA device: " << cuda_device_description();
  }
};

TEST_F(CudaGpu, GemmEveryLayoutShapeAndOption) {
  SizeBindings sizes{{"M", 512}, {"N", 256}, {"K", 384}};
  for (bool a_row : {true, false})
    for (bool b_row : {true, false})
      for (MmaShape mma : {MmaShape::m16n8k16, MmaShape::m16n16k8, MmaShape::m32n32k8})
        for (int split_k : {1, 2})
          for (int stages : {1, 2}) {
            GpuOptions o;
            o.mma = mma;
            o.split_k = split_k;
            o.stages = stages;
            o.block = {128, 128, 32};
            o.warp = {64, 32, 32 / split_k};
            expect_ok_on_gpu(compile_program(gemm_source("f16", a_row, b_row), sizes), o,
                             fmt::format("{}{} {} split-K {} stages {}", a_row ? "row" : "col", b_row ? "row" : "col",
                                         to_string(mma), split_k, stages));
          }
}

TEST_F(CudaGpu, Bf16Gemm4096) {
  GpuOptions o;
  o.choose_warp = true;
  expect_ok_on_gpu(compile_program(gemm_source("bf16", true, false), {{"M", 4096}, {"N", 4096}, {"K", 4096}}), o, "bf16");
}

TEST_F(CudaGpu, EveryFusedExample) {
  SizeBindings sizes{{"M", 1024}, {"N", 512}, {"K", 256}, {"B", 4}};
  for (const char* example : {"gemm_bias_relu", "relu_gemm", "add_gemms", "batched_gemm"}) {
    GpuOptions o;
    o.choose_warp = true;
    expect_ok_on_gpu(compile_program(read_text_file(source_path(std::string("examples/") + example + ".tc")), sizes), o,
                     example);
  }
}

}  // namespace
}  // namespace polyfuse
