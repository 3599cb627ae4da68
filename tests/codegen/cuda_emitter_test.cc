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

TEST(CudaEmitter, RejectsSizesThatAreNotMultiplesOfTheBlockTile) {
  try {
    emit_example("gemm.tc", {{"M", 100}, {"N", 128}, {"K", 32}}, GpuOptions{});
    FAIL() << "accepted M = 100";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "def 'gemm': the M extent 100 is not a multiple of the block tile's M (128); partial tiles are not supported yet");
  }
}

TEST(CudaEmitter, RejectsInvalidOptions) {
  GpuOptions o;
  o.block = {128, 128, 32};
  o.warp = {128, 128, 32};
  EXPECT_THROW(emit_example("gemm.tc", {}, o), UserError);
}

}  // namespace
}  // namespace polyfuse
