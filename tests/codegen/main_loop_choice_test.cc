// The compile-time choice of main loop (codegen/main_loop_choice.h): TMA + wgmma on sm_90a
// where TMA can load an operand of a plain GEMM (the threads copy the other if TMA cannot), the
// mma.sync path with the broken rules when it can load neither; other targets never ask.
#include <gtest/gtest.h>

#include "codegen/main_loop_choice.h"
#include "frontend/idioms.h"
#include "gemm_programs.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

MainLoopChoice choice_for(const std::string& source, const SizeBindings& sizes, Arch arch = Arch::sm_90a) {
  Program program = compile_program(source, sizes);
  KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  GpuOptions options;
  options.arch = arch;
  return choose_main_loop(program, plan, options);
}

SizeBindings mnk(int m, int n, int k) { return {{"M", m}, {"N", n}, {"K", k}}; }

TEST(MainLoopChoice, AlignedRowMajorGemmTakesTmaWgmma) {
  for (const char* type : {"f16", "bf16"}) {
    MainLoopChoice c = choice_for(gemm_source(type, true, true), mnk(300, 256, 128));
    EXPECT_EQ(c.loop, MainLoop::tma_wgmma) << type << ": " << c.fallback_reason;
    EXPECT_EQ(c.fallback_reason, "");
  }
}

TEST(MainLoopChoice, OnlySm90aAsks) {
  MainLoopChoice c = choice_for(gemm_source("f16", true, true), mnk(256, 256, 128), Arch::sm_90);
  EXPECT_EQ(c.loop, MainLoop::mma_sync);
  EXPECT_EQ(c.fallback_reason, "");
  EXPECT_EQ(main_loop_comment(c, Arch::sm_90), "");
}

// Row-major f16 A with K = 129 (a 258-byte row stride; TMA needs multiples of 16) and B with
// N = 257 (514 bytes): TMA can load neither.
TEST(MainLoopChoice, UnalignedRowStridesOfBothOperandsFallBack) {
  MainLoopChoice c = choice_for(gemm_source("f16", true, true), mnk(300, 257, 129));
  EXPECT_EQ(c.loop, MainLoop::mma_sync);
  EXPECT_NE(c.fallback_reason.find("TMA cannot load A"), std::string::npos) << c.fallback_reason;
  EXPECT_NE(c.fallback_reason.find("258"), std::string::npos) << c.fallback_reason;
  EXPECT_NE(c.fallback_reason.find("TMA cannot load B"), std::string::npos) << c.fallback_reason;
  EXPECT_NE(c.fallback_reason.find("514"), std::string::npos) << c.fallback_reason;
  EXPECT_EQ(main_loop_comment(c, Arch::sm_90a), "// Main loop: mma.sync, the sm_80 path (" + c.fallback_reason + ").\n");
}

// Row-major B(k, n) with N = 257: B's rows are 514 bytes apart; TMA loads A, the threads B.
TEST(MainLoopChoice, UnalignedRowStrideOfBIsCopiedByThreads) {
  MainLoopChoice c = choice_for(gemm_source("bf16", true, true), mnk(300, 257, 128));
  EXPECT_EQ(c.loop, MainLoop::tma_wgmma);
  EXPECT_EQ(c.a_copy, OperandCopy::tma);
  EXPECT_EQ(c.b_copy, OperandCopy::threads);
  EXPECT_NE(c.thread_copy_reason.find("TMA cannot load B"), std::string::npos) << c.thread_copy_reason;
  EXPECT_NE(c.thread_copy_reason.find("514"), std::string::npos) << c.thread_copy_reason;
  EXPECT_EQ(main_loop_comment(c, Arch::sm_90a),
            "// Main loop: TMA + wgmma (PTX ISA 9.7.15, 9.7.9.25); B copied by threads (" + c.thread_copy_reason + ").\n");
}

// K = 129 with N = 256: A's rows are 258 bytes apart; TMA loads B, the threads A.
TEST(MainLoopChoice, UnalignedRowStrideOfAIsCopiedByThreads) {
  MainLoopChoice c = choice_for(gemm_source("f16", true, true), mnk(300, 256, 129));
  EXPECT_EQ(c.loop, MainLoop::tma_wgmma);
  EXPECT_EQ(c.a_copy, OperandCopy::threads);
  EXPECT_EQ(c.b_copy, OperandCopy::tma);
  EXPECT_NE(c.thread_copy_reason.find("258"), std::string::npos) << c.thread_copy_reason;
}

// A(k, m) and B(n, k): TMA boxes of the tensors as stored, wgmma tiles M-major and K-major.
TEST(MainLoopChoice, ColumnMajorOperandsTakeTmaWgmma) {
  for (bool a_row : {true, false})
    for (bool b_row : {true, false}) {
      MainLoopChoice c = choice_for(gemm_source("f16", a_row, b_row), mnk(256, 256, 128));
      EXPECT_EQ(c.loop, MainLoop::tma_wgmma) << a_row << b_row << ": " << c.fallback_reason;
    }
  // A(k, m) with M = 300 (rows 600 bytes apart): the threads copy A.
  MainLoopChoice c = choice_for(gemm_source("f16", false, true), mnk(300, 256, 128));
  EXPECT_EQ(c.a_copy, OperandCopy::threads);
  EXPECT_NE(c.thread_copy_reason.find("600"), std::string::npos) << c.thread_copy_reason;
}

// The tile options are the mma.sync loop's: a user who sets them gets that loop, and is told.
TEST(MainLoopChoice, TileOptionsKeepTheMmaSyncLoop) {
  Program program = compile_program(gemm_source("f16", true, true), mnk(256, 256, 128));
  KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  GpuOptions options = default_gpu_options(Arch::sm_90a);
  options.block = TileShape{64, 64, 32};
  options.split_k = 2;
  MainLoopChoice c = choose_main_loop(program, plan, options);
  EXPECT_EQ(c.loop, MainLoop::mma_sync);
  EXPECT_EQ(c.fallback_reason,
            "--block, --split-k chosen: tile options of the mma.sync main loop (the TMA + wgmma loop takes its own tiles)");
}

TEST(MainLoopChoice, WhatTheHopperLoopDoesNotHandleYetFallsBack) {
  EXPECT_NE(choice_for(gemm_source("f16", true, true), {}).fallback_reason.find("unbound sizes"), std::string::npos);
}

// Two matmuls over the same tiles and K run in one k-loop of the TMA + wgmma kernel; two whose
// results are added run chained into one accumulator, with equal or different K; different K
// otherwise (the two B in different layouts), or an operand TMA cannot load, keep the mma.sync
// loop and say why.
TEST(MainLoopChoice, TwoMatmulsTakeTmaWgmmaWhenTheyShareTilesAndK) {
  const MainLoopChoice added = choice_for(example_source("add_gemms"), mnk(256, 256, 128));
  EXPECT_EQ(added.loop, MainLoop::tma_wgmma);
  EXPECT_TRUE(added.chained);
  const MainLoopChoice swiglu = choice_for(example_source("swiglu"), mnk(67, 136, 72));
  EXPECT_EQ(swiglu.loop, MainLoop::tma_wgmma);
  EXPECT_FALSE(swiglu.chained) << "multiplied, not added: two accumulators";
  const std::string different_k =
      "def f(f16(M, K) A, f16(K, N) B, f16(M, L) E, f16(L, N) F) -> (f16(M, N) D) {\n  C1(m, n) +=! A(m, k) * B(k, n)\n"
      "  C2(m, n) +=! E(m, l) * F(l, n)\n  D(m, n) = C1(m, n) + C2(m, n)\n}\n";
  const MainLoopChoice chained = choice_for(different_k, {{"M", 64}, {"N", 64}, {"K", 128}, {"L", 64}});
  EXPECT_EQ(chained.loop, MainLoop::tma_wgmma) << chained.fallback_reason;
  EXPECT_TRUE(chained.chained);
  const std::string other_layout =
      "def f(f16(M, K) A, f16(K, N) B, f16(M, L) E, f16(N, L) F) -> (f16(M, N) D) {\n  C1(m, n) +=! A(m, k) * B(k, n)\n"
      "  C2(m, n) +=! E(m, l) * F(n, l)\n  D(m, n) = C1(m, n) + C2(m, n)\n}\n";
  EXPECT_EQ(choice_for(other_layout, {{"M", 64}, {"N", 64}, {"K", 128}, {"L", 64}}).fallback_reason,
            "the TMA + wgmma main loop does not handle matmuls of different K (128 and 64: two k-loops) yet");
  EXPECT_EQ(choice_for(example_source("add_gemms"), mnk(64, 130, 128)).fallback_reason.rfind(
                "several matmuls load every operand by TMA; TMA cannot load B: globalStrides[0] = 260 bytes is not a "
                "multiple of 16", 0),
            0u);
}

// A prologue that reads other tensors (a dequantisation's scale(k)): TMA loads the operand's
// source, the producer's threads apply the prologue where it landed, loading scale at each
// element's column.
TEST(MainLoopChoice, APrologueWithOperandsIsAppliedWhereTmaLoadedTheOperand) {
  MainLoopChoice c = choice_for(example_source("dequant_gemm"), mnk(256, 256, 128));
  EXPECT_EQ(c.loop, MainLoop::tma_wgmma) << c.fallback_reason;
  EXPECT_EQ(c.a_copy, OperandCopy::tma_prologue);
  EXPECT_EQ(c.b_copy, OperandCopy::tma);
  EXPECT_EQ(c.thread_copy_reason, "");
  EXPECT_TRUE(c.any_prologue_in_place() && c.producer_threads_work() && !c.any_thread_copy());
}

// TMA loads an operand's prologue's source and the producer's threads transform the tile in
// shared memory; where TMA cannot load the source (K = 129: rows of 258 bytes) the threads copy
// it through the prologue; where TMA cannot load the other operand either, mma.sync.
TEST(MainLoopChoice, APrologueIsAppliedWhereTmaLoadedTheOperand) {
  MainLoopChoice c = choice_for(example_source("relu_gemm"), mnk(256, 256, 128));
  EXPECT_EQ(c.loop, MainLoop::tma_wgmma) << c.fallback_reason;
  EXPECT_EQ(c.a_copy, OperandCopy::tma_prologue);
  EXPECT_EQ(c.b_copy, OperandCopy::tma);
  EXPECT_EQ(c.thread_copy_reason, "");
  MainLoopChoice odd_k = choice_for(example_source("relu_gemm"), mnk(256, 256, 129));
  EXPECT_EQ(odd_k.loop, MainLoop::tma_wgmma) << odd_k.fallback_reason;
  EXPECT_EQ(odd_k.a_copy, OperandCopy::threads);
  EXPECT_EQ(odd_k.thread_copy_reason.rfind("A has a prologue and TMA cannot load A: globalStrides[0] = 258 bytes", 0), 0u)
      << odd_k.thread_copy_reason;
  // ... and unless TMA cannot load the other one either.
  MainLoopChoice both = choice_for(example_source("relu_gemm"), mnk(256, 257, 128));
  EXPECT_EQ(both.loop, MainLoop::mma_sync);
  EXPECT_NE(both.fallback_reason.find("A has a prologue; TMA cannot load B"), std::string::npos) << both.fallback_reason;
}

// Batched matmuls: every operand indexed by C's batch indices first (or by none) takes the TMA
// + wgmma loop; the tensor maps' rules are checked on the batched (3-d) maps.
TEST(MainLoopChoice, BatchedMatmulsTakeTmaWgmma) {
  const SizeBindings sizes{{"B", 3}, {"H", 2}, {"M", 67}, {"N", 136}, {"K", 200}};
  EXPECT_EQ(choice_for(example_source("batched_gemm"), sizes).loop, MainLoop::tma_wgmma);
  EXPECT_EQ(choice_for(example_source("multihead_batched_gemm"), sizes).loop, MainLoop::tma_wgmma);
  EXPECT_EQ(choice_for("def f(f16(M, K) X, f16(B, N, K) W) -> (f16(B, M, N) C) {\n  C(b, m, n) +=! X(m, k) * W(b, n, k)\n}\n",
                       sizes).loop,
            MainLoop::tma_wgmma);
  // N = 130: W's rows are 260 bytes apart; the threads copy it from its batch element's matrix.
  MainLoopChoice odd = choice_for(example_source("batched_gemm"), {{"B", 3}, {"M", 67}, {"N", 130}, {"K", 200}});
  EXPECT_EQ(odd.loop, MainLoop::tma_wgmma);
  EXPECT_EQ(odd.b_copy, OperandCopy::threads);
  // A prologue on a batched operand: applied where TMA loaded the batch element's tile (where
  // TMA cannot load it, N = 130 for B, by the copying threads); one that reads other tensors keeps
  // the mma.sync loop.
  MainLoopChoice prologue = choice_for(
      "def f(f16(B, M, K) A, f16(B, K, N) W) -> (f16(B, M, N) C) {\n  C(b, m, n) +=! relu(A(b, m, k)) * W(b, k, n)\n}\n", sizes);
  EXPECT_EQ(prologue.loop, MainLoop::tma_wgmma) << prologue.fallback_reason;
  EXPECT_EQ(prologue.a_copy, OperandCopy::tma_prologue);
  MainLoopChoice odd_prologue = choice_for(
      "def f(f16(B, M, K) A, f16(B, K, N) W) -> (f16(B, M, N) C) {\n  C(b, m, n) +=! A(b, m, k) * relu(W(b, k, n))\n}\n",
      {{"B", 3}, {"M", 67}, {"N", 130}, {"K", 200}});
  EXPECT_EQ(odd_prologue.loop, MainLoop::tma_wgmma) << odd_prologue.fallback_reason;
  EXPECT_EQ(odd_prologue.b_copy, OperandCopy::threads);
  MainLoopChoice with_operand = choice_for(
      "def f(f16(B, M, K) A, f16(K) g, f16(B, K, N) W) -> (f16(B, M, N) C) {\n"
      "  C(b, m, n) +=! (A(b, m, k) * g(k)) * W(b, k, n)\n}\n",
      sizes);
  EXPECT_EQ(with_operand.fallback_reason,
            "the TMA + wgmma main loop does not handle a prologue reading other tensors on a batched matmul yet");
}

TEST(MainLoopChoice, PointwiseEpiloguesTakeTmaWgmma) {
  EXPECT_EQ(choice_for(example_source("gemm_bias_relu"), mnk(256, 256, 128)).loop, MainLoop::tma_wgmma);
}

}  // namespace
}  // namespace polyfuse
