// Golden CUDA for the examples (helpers not embedded, so the diff shows the kernel) and
// the emitter's errors.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "frontend/diagnostics.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

EmittedKernel emit_example(const std::string& example, const SizeBindings& sizes, const GpuOptions& options) {
  SourceFile source = read_source_file(source_path("examples/" + example));
  source.name = "examples/" + example;
  Program program = compile_source(source, sizes).programs.at(0);
  CudaEmitRequest request;
  request.options = options;
  request.helpers = CudaEmitRequest::Helpers::include;
  return emit_cuda(program, request);
}

TEST(CudaEmitter, GemmGoldenSymbolicSizes) {
  EXPECT_TRUE(matches_golden(emit_example("gemm.tc", {}, GpuOptions{}).source, "codegen/gemm.cu"));
}

TEST(CudaEmitter, GemmGoldenBoundSizesSplitK2) {
  GpuOptions o;
  o.split_k = 2;
  o.warp = {64, 64, 16};
  EXPECT_TRUE(matches_golden(emit_example("gemm.tc", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, o).source,
                             "codegen/gemm_4096_splitk2.cu"));
}

// One golden .cu per fused idiom (the examples), sizes bound, default options.
TEST(CudaEmitter, EveryExampleGolden) {
  SizeBindings sizes{{"M", 1024}, {"N", 512}, {"K", 256}, {"B", 4}};
  for (const char* example : {"gemm_bias_relu", "relu_gemm", "add_gemms", "batched_gemm"}) {
    GpuOptions options;
    options.choose_warp = true;
    EXPECT_TRUE(matches_golden(emit_example(std::string(example) + ".tc", sizes, options).source,
                               std::string("codegen/") + example + ".cu"))
        << example;
  }
}

TEST(CudaEmitter, PartialTilesRoundTheGridUp) {
  EmittedKernel kernel = emit_example("gemm.tc", {{"M", 1000}, {"N", 77}, {"K", 33}}, GpuOptions{});
  EXPECT_EQ(kernel.metadata.grid[0].value, 1);  // ceil(77 / 128)
  EXPECT_EQ(kernel.metadata.grid[1].value, 8);  // ceil(1000 / 128)
  EXPECT_EQ(kernel.metadata.grid[2].value, 1);
}

TEST(CudaEmitter, RejectsInvalidOptions) {
  GpuOptions o;
  o.block = {128, 128, 32};
  o.warp = {128, 128, 32};
  EXPECT_THROW(emit_example("gemm.tc", {}, o), UserError);
}

}  // namespace
}  // namespace polyfuse
