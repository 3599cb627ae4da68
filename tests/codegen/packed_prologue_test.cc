// Which prologues run on the landed tile and pack in 16-bit pairs (schedule/copies.h's
// landed_prologue, codegen/packed_prologue.h), and the prologue rule's block tile
// (schedule/prologue_tile.h) as --emit=config states it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/cuda_emitter.h"
#include "codegen/packed_prologue.h"
#include "frontend/idioms.h"
#include "gemm_programs.h"
#include "schedule/copies.h"
#include "schedule/plan_from_program.h"
#include "schedule/prologue_tile.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// A program and its plan, whose isl objects live in the program's context: the plan is
// destroyed first.
struct Planned {
  Program program;
  KernelPlan plan;
};

Planned plan_of(const std::string& source, const SizeBindings& sizes = {}) {
  Planned p{compile_program(source, sizes), {}};
  p.plan = plan_gpu_kernel(p.program, recognize_idioms(p.program));
  return p;
}

// The packed lambda of `prologue` (an expression of A(m, k) and inputs g(k), h(k)) on A.
std::optional<std::string> packed_a(const std::string& prologue, const std::string& type = "f16") {
  const Planned p = plan_of(fmt::format("def f({0}(M, K) A, {0}(K) g, {0}(K) h, {0}(K, N) B) -> (f16(M, N) C) {{\n"
                                        "  C(m, n) +=! ({1}) * B(k, n)\n}}\n",
                                        type, prologue));
  EXPECT_EQ(landed_prologue(p.plan.matmul_groups().front()), LandedPrologue::a) << prologue;
  return packed_prologue(*p.plan.matmuls.front().a_prologue, p.plan.matmuls.front().operand_type);
}

TEST(PackedPrologue, ExactOperationsAndOneRoundingPack) {
  EXPECT_EQ(packed_a("relu(A(m, k))"), "[](unsigned x) { return pf::x2::relu<__half>(x); }");
  EXPECT_EQ(packed_a("A(m, k) * g(k)"), "[](unsigned x, unsigned g_k) { return pf::x2::mul<__half>(x, g_k); }");
  EXPECT_EQ(packed_a("max(A(m, k) - g(k), 0)", "bf16"),
            "[](unsigned x, unsigned g_k) { return pf::x2::max<__nv_bfloat16>(pf::x2::sub<__nv_bfloat16>(x, g_k), "
            "pf::x2::zero()); }");
  // exact operations under the rounding one, and two rounded branches joined by an exact one
  EXPECT_TRUE(packed_a("abs(A(m, k)) + -g(k)").has_value());
  EXPECT_TRUE(packed_a("min(A(m, k) * g(k), A(m, k) * h(k))").has_value());
}

TEST(PackedPrologue, TwoRoundingsOrInexactFunctionsDoNot) {
  EXPECT_EQ(packed_a("A(m, k) * g(k) * h(k)"), std::nullopt);  // rounds twice packed, once in f32
  EXPECT_EQ(packed_a("relu(A(m, k) + g(k)) * h(k)"), std::nullopt);
  EXPECT_EQ(packed_a("A(m, k) / g(k)"), std::nullopt);
  EXPECT_EQ(packed_a("exp(A(m, k))"), std::nullopt);
  EXPECT_EQ(packed_a("A(m, k) * 0.5"), std::nullopt);  // literals other than 0 are not checked for exactness
}

TEST(PackedPrologue, LandedOnlyForOneOperandOfOneMatmul) {
  const Planned both = plan_of("def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
                               "  C(m, n) +=! relu(A(m, k)) * relu(B(k, n))\n}\n");
  EXPECT_EQ(landed_prologue(both.plan.matmul_groups().front()), LandedPrologue::none);
  const Planned on_b = plan_of("def f(f16(M, K) A, f16(N, K) B) -> (f16(M, N) C) {\n"
                               "  C(m, n) +=! A(m, k) * relu(B(n, k))\n}\n");
  EXPECT_EQ(landed_prologue(on_b.plan.matmul_groups().front()), LandedPrologue::b);
}

TEST(PrologueTile, AWideBlockForAPrologueOnA) {
  const SizeBindings big{{"M", 4096}, {"N", 4096}, {"K", 4096}};
  Program relu_gemm = compile_program(read_text_file(source_path("examples/relu_gemm.tc")), big);
  CudaEmitRequest request;
  EXPECT_EQ(emit_cuda(relu_gemm, request).metadata.block[0], 256);
  const std::string config = emit_config_text(relu_gemm, request.options);
  EXPECT_NE(config.find("tiles: block 128x256x32 warp 64x64x32"), std::string::npos) << config;
  EXPECT_NE(config.find("tile rule: block 128x256x32 (the prologue rule"), std::string::npos) << config;
  // a prologue on B: 256x128
  Program on_b = compile_program("def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
                                 "  C(m, n) +=! A(m, k) * relu(B(k, n))\n}\n",
                                 big);
  EXPECT_NE(emit_config_text(on_b, request.options).find("tiles: block 256x128x32"), std::string::npos);
}

TEST(PrologueTile, TheDefaultWhereTheRuleDoesNotApply) {
  const std::string relu_gemm = read_text_file(source_path("examples/relu_gemm.tc"));
  CudaEmitRequest request;
  // N below 256
  Program narrow = compile_program(relu_gemm, {{"M", 4096}, {"N", 192}, {"K", 4096}});
  EXPECT_EQ(emit_config_text(narrow, request.options).find("tile rule"), std::string::npos);
  EXPECT_EQ(emit_cuda(narrow, request).metadata.block[0], 128);
  // a block the user chose, even the default one
  Program big = compile_program(relu_gemm, {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  CudaEmitRequest chosen;
  chosen.options.block_chosen = true;
  EXPECT_EQ(emit_cuda(big, chosen).metadata.block[0], 128);
  // no prologue: the plain GEMM
  Program gemm = compile_program(read_text_file(source_path("examples/gemm.tc")), {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  EXPECT_EQ(emit_cuda(gemm, request).metadata.block[0], 128);
  // the sm_90a TMA + wgmma kernel has its own tiles
  CudaEmitRequest hopper;
  hopper.options.arch = Arch::sm_90a;
  Program dequant = compile_program(read_text_file(source_path("examples/dequant_gemm.tc")), {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  EXPECT_EQ(emit_config_text(dequant, hopper.options).find("tile rule"), std::string::npos);
}

}  // namespace
}  // namespace polyfuse
