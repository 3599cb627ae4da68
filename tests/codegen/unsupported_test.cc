// Programs and options the GPU path does not handle (yet) get a UserError that names the
// statement (with its place) or the option and the reason — one test per case, never a
// crash or wrong code.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/cuda_emitter.h"
#include "frontend/diagnostics.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// The rendered first diagnostic ("line:col: message") of emitting `source`.
std::string error_of(const std::string& source, const GpuOptions& options = {}) {
  try {
    CudaEmitRequest request;
    request.options = options;
    emit_cuda(compile_program(source), request);
  } catch (const UserError& e) {
    const Diagnostic& d = e.diagnostics().front();
    // Options spelled as the C++ API names them (the CLI spells them as flags).
    const std::string message = spell_options(d.message, api_spelling);
    return d.line ? std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + message : message;
  }
  return "";
}

TEST(UnsupportedOnGpu, ReductionOverAMatmulResult) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B) -> (f32(M) S) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
                     "  S(m) +=! C(m, n)\n}\n"),
            "3:3: statement S1 of def 'f': this reduction is not a matmul (the right-hand side is not a product)"
            "; reductions that are not matmuls (row reductions: softmax, "
            "layer norm, ...) are not supported yet on the GPU path: they wait for issue 20's kernel plans");
}

// An epilogue that would drop an output's current value (these compiled to wrong results:
// the epilogue wrote the expression alone).
TEST(UnsupportedOnGpu, EpilogueAccumulatingIntoAnOutput) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B) -> (f32(M, N) D) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
                     "  D(m, n) += C(m, n)\n}\n"),
            "3:3: statement S1 of def 'f': '+=' without a reduction index adds to the current value of D, which the "
            "GPU path does not read yet");
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B) -> (f32(M, N) D) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
                     "  D(m, n) = D(m, n) + C(m, n)\n}\n"),
            "3:3: statement S1 of def 'f': an epilogue that reads the current value of output D (before the kernel "
            "writes it) is not supported on the GPU path yet");
}

// Prologue operands (g(k) beside A(m, k)) are copied in chunks beside the operand's, of its type.
TEST(UnsupportedOnGpu, PrologueOperandOfAnotherType) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f32(K) g, f16(K, N) B) -> (f16(M, N) C) {\n"
                     "  C(m, n) +=! relu(A(m, k) * g(k)) * B(k, n)\n}\n"),
            "2:3: statement S0 of def 'f': a prologue operand must be an input of A's type, f16 (its tiles are "
            "copied beside A's, and the prologue's result is rounded to that type); g is an f32 input");
  EXPECT_EQ(error_of("def f(f16(M, K) A, bf16(K) g, f16(K, N) B) -> (f16(M, N) C) {\n"
                     "  T(m, k) = A(m, k) * g(k)\n  C(m, n) +=! T(m, k) * B(k, n)\n}\n"),
            "2:3: statement S0 of def 'f': a prologue operand must be an input of A's type, f16 (its tiles are "
            "copied beside A's, and the prologue's result is rounded to that type); g is a bf16 input");
}

// f32 operands run on TF32 tensor cores, and so do two different types among f16, bf16 and
// f32 (the 16-bit ones widened); not with `f32_matmul` f32 (the plan's reduction kernel
// then), not an FP8 operand beside a 16-bit one, and not with a prologue (not fused yet).
TEST(UnsupportedOnGpu, F32Operands) {
  EXPECT_EQ(error_of(gemm_source("f32", true, true)), "");
  const std::string mixed = "def f(f16(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n";
  EXPECT_EQ(error_of(mixed), "");
  GpuOptions exact;
  exact.f32_matmul = F32Matmul::f32;
  EXPECT_EQ(error_of(gemm_source("f32", true, true), exact),
            "2:3: statement S0 of def 'gemm': f32_matmul f32: A and B are f32 and the matmul runs exactly, on CUDA cores");
  EXPECT_EQ(error_of(mixed, exact),
            "2:3: statement S0 of def 'f': f32_matmul f32: A is f16 and B is f32, a matmul of mixed types runs on TF32 "
            "tensor cores, and f32_matmul f32 runs it exactly, on CUDA cores");
  EXPECT_EQ(error_of("def f(f16(M, K) A, e4m3(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n"),
            "2:3: statement S0 of def 'f': tensor cores need operands of one type (f16, bf16, or f32 as TF32), two of "
            "f16, bf16 and f32 (as TF32), or two FP8 ones (e4m3, e5m2; mixed FP8 x 16-bit is not built); A is f16 and B "
            "is e4m3");
  for (const char* a : {"f32", "bf16"})
    EXPECT_EQ(error_of(fmt::format("def f({}(M, K) A, f32(K, N) B) -> (f32(M, N) C) {{\n  C(m, n) +=! relu(A(m, k)) * "
                                   "B(k, n)\n}}\n",
                                   a)),
              "2:3: statement S0 of def 'f': a prologue on an operand of a TF32 matmul (f32 operands, or two types) is "
              "not fused yet (its tiles are copied as they are)")
        << a;
}

TEST(UnsupportedOnGpu, PointwiseWithoutMatmul) {
  EXPECT_EQ(error_of("def f(f16(M, N) X) -> (f16(M, N) Y) {\n  Y(m, n) = X(m, n) * 2\n}\n"),
            "2:3: statement S0 of def 'f': a pointwise statement that consumes no matmul result is not supported on "
            "the GPU path yet");
}

TEST(UnsupportedOnGpu, BatchReduceIsCpuOnly) {
  EXPECT_EQ(error_of("def f(f16(R, M, K) A, f16(R, K, N) B) -> (f16(M, N) C) {\n"
                     "  C(m, n) +=! A(r, m, k) * B(r, k, n)\n}\n"),
            "2:3: statement S0 of def 'f': batch-reduce matmuls are compiled by the CPU path only (target=cpu)");
}

// The m8n8k4 macro-MMAs take f16 A and B: bf16, and an f16 A beside an f32 B (TF32 tensor
// cores), are refused, not emitted as code that does not build.
TEST(UnsupportedOnGpu, Bf16WithThePaperMacroMmas) {
  GpuOptions o;
  o.mma = MmaShape::m16n16k8;
  EXPECT_EQ(error_of(gemm_source("bf16", true, true), o),
            "mma 16x16x8: the m8n8k4 macro-MMAs take f16 operands only; use mma=m16n8k16 for bf16 and f32");
  EXPECT_EQ(error_of("def f(f16(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n", o),
            "mma 16x16x8: the m8n8k4 macro-MMAs take f16 operands only; use mma=m16n8k16 for bf16 and f32");
}

TEST(UnsupportedOnGpu, WarpTileOverTheRegisterLimit) {
  GpuOptions o;
  o.warp = {128, 128, 32};
  EXPECT_EQ(error_of(gemm_source("f16", true, true), o),
            "warp tile 128x128x32 needs at least 544 registers per thread (512 for f32 accumulators); sm_90 allows 255 "
            "(289 over)");
}

// Results in register tiles (found while fuzzing: these compiled to wrong or uncompilable
// CUDA before the plan rejected them).
TEST(UnsupportedOnGpu, EpilogueReadingTheResultTransposed) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B) -> (f16(N, M) D) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
                     "  D(n, m) = C(m, n)\n}\n"),
            "3:3: statement S1 of def 'f': an epilogue must read the result C at its own indices (n, m); a transposed "
            "read is not supported yet");
}

TEST(UnsupportedOnGpu, SecondMatmulIntoTheSameTensor) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F) -> (f16(M, N) C) {\n"
                     "  C(m, n) +=! A(m, k) * B(k, n)\n  C(m, n) += E(m, k) * F(k, n)\n}\n"),
            "3:3: statement S1 of def 'f': C is already written by statement S0; on the GPU path a later statement "
            "may only update it in place (an epilogue that reads it)");
}

TEST(UnsupportedOnGpu, EpilogueOverwritingAnEpilogueResult) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B, f16(N) b) -> (f16(M, N) D) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
                     "  D(m, n) = C(m, n) + b(n)\n  D(m, n) = C(m, n) - b(n)\n}\n"),
            "4:3: statement S2 of def 'f': D is already written by statement S1; on the GPU path a later statement "
            "may only update it in place (an epilogue that reads it)");
}

TEST(UnsupportedOnGpu, PrologueResultReadByTheEpilogue) {
  EXPECT_EQ(error_of("def f(f16(M, M) A, f16(M, M) B) -> (f16(M, M) D) {\n  Ar(m, k) = relu(A(m, k))\n"
                     "  C(m, n) +=! Ar(m, k) * B(k, n)\n  D(m, n) = C(m, n) + Ar(m, n)\n}\n"),
            "2:3: statement S0 of def 'f': a fused prologue's result must be a temporary that only matmul operands "
            "read; Ar is also read by another statement");
}

TEST(UnsupportedOnGpu, PrologueIntoAnOutput) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D, f16(M, K) Ar) {\n  Ar(m, k) = relu(A(m, k))\n"
                     "  D(m, n) +=! Ar(m, k) * B(k, n)\n}\n"),
            "2:3: statement S0 of def 'f': a fused prologue's result must be a temporary that only matmul operands "
            "read; Ar is an output");
}

// Found by hand-probing next to the fuzzer (were loaded as broadcasts: wrong results).
TEST(UnsupportedOnGpu, EpilogueInputReadTransposed) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B, f16(N, M) R) -> (f16(M, N) D) {\n"
                     "  C(m, n) +=! A(m, k) * B(k, n)\n  D(m, n) = C(m, n) + R(n, m)\n}\n",
                     gpu_options_from_choices({})),
            "3:23: epilogue operand R: an epilogue reads a tensor indexed by the result's row and column indices in "
            "that order (last), or a vector broadcast along one of them");
}

TEST(UnsupportedOnGpu, EpilogueInputWithTheBatchBetweenRowsAndColumns) {
  EXPECT_EQ(error_of("def f(f16(B, M, K) A, f16(B, K, N) W, f16(M, B, N) R) -> (f16(B, M, N) D) {\n"
                     "  C(b, m, n) +=! A(b, m, k) * W(b, k, n)\n  D(b, m, n) = C(b, m, n) + R(m, b, n)\n}\n",
                     gpu_options_from_choices({})),
            "3:29: epilogue operand R: an epilogue reads a tensor indexed by the result's row and column indices in "
            "that order (last), or a vector broadcast along one of them");
}

// Matmuls whose outputs differ in shape share one grid of output tiles, which needs the
// sizes' values (bound sizes: output_shapes_emu_test.cc runs them).
TEST(UnsupportedOnGpu, OutputsOfDifferentShapesWithUnboundSizes) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B, f16(N, K) C, f16(K, M) D) -> (f16(M, N) E, f16(N, M) F) {\n"
                     "  E(m, n) +=! A(m, k) * B(k, n)\n  F(n, m) +=! C(n, k) * D(k, m)\n}\n"),
            "3:3: statement S1 of def 'f': its output is N x M but statement S0's is M x N: one kernel runs every "
            "statement over one grid of output tiles, which needs the sizes' values; bind the sizes, or write the "
            "statements in separate defs");
}

// Several matmuls keep their tiles while the accumulator scratch is in use: the kernel
// needs tiles + scratch (163,840 + 8 warps of 64x32 x 1 KiB), not the larger of the two, which the
// option check alone compares with the limit (this kernel was emitted before).
TEST(UnsupportedOnGpu, SharedTilesOfSeveralMatmulsPlusScratchOverTheLimit) {
  GpuChoices choices;
  choices.arch = Arch::sm_80;
  choices.block = TileShape{64, 256, 128};
  EXPECT_EQ(error_of("def add_gemms(f16(M, K) A, f16(K, N) B, f16(M, K) C, f16(K, N) D) -> (f16(M, N) E) {\n"
                     "  X(m, n) +=! A(m, k) * B(k, n)\n  Y(m, n) +=! C(m, k) * D(k, n)\n  E(m, n) = X(m, n) + Y(m, n)\n}\n",
                     gpu_options_from_choices(choices)),
            "def 'add_gemms': the shared tiles of its 2 matmul(s) (2 stage(s) of block tile 64x256x128) and the "
            "accumulator reorder scratch need 172032 bytes of shared memory per block; sm_80 allows 166912 (5120 bytes "
            "over): use a smaller block tile or fewer stages");
}

TEST(UnsupportedOnGpu, InPlaceEpilogueUpdatesAreSupported) {
  EXPECT_EQ(error_of("def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
                     "  C(m, n) = relu(C(m, n))\n  C(m, n) = C(m, n) * 2\n}\n",
                     gpu_options_from_choices({})),
            "");
}

// FP8 on the GPU path (schedule/fp8_gpu_rule.h): the sm_90a TMA + wgmma GEMM with both operands
// K-major, loaded by TMA; every other FP8 kernel refused at the FP8 tensor's declaration.
std::string fp8_error(const std::string& source, Arch arch, std::int64_t k = 64) {
  try {
    CudaEmitRequest request;
    request.options = default_gpu_options(arch);
    emit_cuda(compile_program(source, {{"M", 64}, {"N", 64}, {"K", k}}), request);
  } catch (const UserError& e) {
    const Diagnostic& d = e.diagnostics().front();
    return std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
  }
  return "";
}

TEST(UnsupportedOnGpu, Fp8RulesNameThePlaceAndTheRule) {
  const std::string gemm = "def f(e4m3(M, K) A, e5m2(N, K) B) -> (f16(M, N) C) {\n  C(m, n) +=! A(m, k) * B(n, k)\n}\n";
  EXPECT_EQ(fp8_error(gemm, Arch::sm_90a), "");
  for (Arch arch : {Arch::sm_80, Arch::sm_89, Arch::sm_90})
    EXPECT_EQ(fp8_error(gemm, arch),
              std::string("1:18: tensor 'A' of def 'f' is e4m3: FP8 tensor cores on the GPU path are wgmma's on sm_90a "
                          "(--arch sm_90a), not ") + to_string(arch) + " (sm_80 and sm_86 mma.sync has no FP8 form; sm_89's FP8 mma.sync is "
              "not built); or run it on the CPU target (--target=cpu)");
  EXPECT_EQ(fp8_error("def f(e4m3(K, M) A, e4m3(N, K) B) -> (f16(M, N) C) {\n  C(m, n) +=! A(k, m) * B(n, k)\n}\n",
                      Arch::sm_90a),
            "1:18: tensor 'A' of def 'f' is e4m3: FP8 wgmma reads both operands K-major; a transposing copy is not "
            "built yet (store A as A(m, k))");
  EXPECT_EQ(fp8_error("def f(e4m3(M, K) A, e4m3(K, N) B) -> (f16(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n",
                      Arch::sm_90a),
            "1:32: tensor 'B' of def 'f' is e4m3: FP8 wgmma reads both operands K-major; a transposing copy is not "
            "built yet (store B as B(n, k))");
  EXPECT_EQ(fp8_error("def f(e4m3(M, K) A, e4m3(N, K) B, e4m3(N) s) -> (f16(M, N) D) {\n  C(m, n) +=! A(m, k) * B(n, k)\n"
                      "  D(m, n) = C(m, n) * s(n)\n}\n",
                      Arch::sm_90a),
            "1:43: tensor 's' of def 'f' is e4m3: the GPU path reads FP8 tensors only as a matmul's A and B (not in "
            "prologues or epilogues yet)");
  // K = 100: rows of 100 bytes, not a multiple of 16: TMA cannot load A or B
  EXPECT_EQ(fp8_error(gemm, Arch::sm_90a, 100).substr(0, 167),
            "1:18: tensor 'A' of def 'f' is e4m3: only the sm_90a TMA + wgmma main loop reads FP8, and it does not take "
            "this kernel (TMA cannot load A: globalStrides[0] = 100 bytes");
}

}  // namespace
}  // namespace polyfuse
