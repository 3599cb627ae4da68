// Tensor names that are also the kernel's own identifiers (codegen/tensor_identifiers.h): the
// identifier counts the comparison rests on, and the kernels that spell such tensors apart —
// a parameter the generator's `acc`, `warp`, `smem` (sm_80) or `full`, `empty`, `tile`, `c`
// (sm_90a) would shadow. tensor_identifiers_emu_test.cc runs them.
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/tensor_identifiers.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

TEST(CodeIdentifierCounts, LeavesOutCommentsLiteralsNumbersAndQualifiedNames) {
  const std::string code =
      "#include \"acc.h\"\n"
      "  #define X acc\n"
      "float acc = 1.5e3f + 0x1fu; // acc\n"
      "/* acc\n acc */ pf::acc(s.acc, p->acc, \"acc\", 'a');\n"
      "acc_C = acc;\n";
  const std::map<std::string, int> counts = code_identifier_counts(code);
  EXPECT_EQ(counts.at("acc"), 2);
  EXPECT_EQ(counts.at("acc_C"), 1);
  EXPECT_EQ(counts.at("pf"), 1);
  EXPECT_EQ(counts.at("s"), 1);
  EXPECT_EQ(counts.count("X"), 0u);   // the preprocessor line
  EXPECT_EQ(counts.count("e3f"), 0u); // part of a number
  EXPECT_EQ(counts.count("a"), 0u);   // a character literal
}

// bias named like the sm_80 kernel's accumulators, A like its warp index, B like its shared memory.
const char* const sm80_clash =
    "def g(f16(M, K) warp, f16(K, N) smem, f16(N) acc) -> (f16(M, N) D) {\n"
    "  C(m, n) +=! warp(m, k) * smem(k, n)\n"
    "  D(m, n) = relu(C(m, n) + acc(n))\n"
    "}\n";

TEST(TensorIdentifiers, ClashingTensorsAreSpelledApartAndKeepTheirNamesInTheMetadata) {
  CudaEmitRequest request;
  request.options = default_gpu_options(Arch::sm_80);
  request.helpers = CudaEmitRequest::Helpers::include;
  const EmittedKernel kernel = emit_cuda(compile_program(sm80_clash, {{"M", 33}, {"N", 40}, {"K", 24}}), request);
  EXPECT_NE(kernel.source.find("const __half* __restrict__ warp_, const __half* __restrict__ smem_, "
                               "const __half* __restrict__ acc_, __half* __restrict__ D)"),
            std::string::npos)
      << kernel.source;
  ASSERT_EQ(kernel.metadata.parameters.size(), 4u);
  EXPECT_EQ(kernel.metadata.parameters[0].name, "warp");
  EXPECT_EQ(kernel.metadata.parameters[1].name, "smem");
  EXPECT_EQ(kernel.metadata.parameters[2].name, "acc");
  EXPECT_EQ(kernel.metadata.parameters[3].name, "D");
  // and a program whose names clash with nothing keeps them in the kernel
  const EmittedKernel plain = emit_cuda(compile_program(fused_source(", f16(N) bias", "  D(m, n) = relu(C(m, n) + bias(n))"),
                                                        {{"M", 33}, {"N", 40}, {"K", 24}}),
                                        request);
  EXPECT_NE(plain.source.find("const __half* __restrict__ bias, __half* __restrict__ D)"), std::string::npos);
}

TEST(TensorIdentifiers, Sm90aKernelSpellsItsBarriersAndTilesApart) {
  CudaEmitRequest request;
  request.options = default_gpu_options(Arch::sm_90a);
  request.helpers = CudaEmitRequest::Helpers::include;
  const EmittedKernel kernel = emit_cuda(compile_program("def g(f16(M, K) A, f16(K, N) B, f16(N) full) -> (f16(M, N) tile) {\n"
                                                         "  C(m, n) +=! A(m, k) * B(k, n)\n"
                                                         "  tile(m, n) = relu(C(m, n) + full(n))\n"
                                                         "}\n",
                                                         {{"M", 130}, {"N", 136}, {"K", 64}}),
                                         request);
  EXPECT_NE(kernel.source.find("full_"), std::string::npos);
  EXPECT_NE(kernel.source.find("tile_"), std::string::npos);
  EXPECT_EQ(kernel.metadata.parameters.at(2).name, "full");
  EXPECT_EQ(kernel.metadata.parameters.at(3).name, "tile");
}

}  // namespace
}  // namespace polyfuse
