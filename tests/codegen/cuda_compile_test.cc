// Generated kernels compile with NVRTC for sm_80 and sm_90 with no register spills
// (ptxas -v), for the default options, 4096-sized problems, every layout, split-K,
// single-buffered and bf16 variants. No GPU needed.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/cuda_emitter.h"
#include "codegen/cuda_plan.h"
#include "gemm_programs.h"
#include "nvrtc_compile.h"
#include "schedule/program_plan.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

struct CompileCase {
  std::string name;
  std::string type = "f16";
  bool a_row = true, b_row = true;
  SizeBindings sizes;
  GpuOptions options;
};

std::vector<CompileCase> cases() {
  std::vector<CompileCase> all;
  all.push_back({"default_symbolic", "f16", true, true, {}, GpuOptions{}});
  all.push_back({"default_4096", "f16", true, true, {{"M", 4096}, {"N", 4096}, {"K", 4096}}, GpuOptions{}});
  all.push_back({"colcol_4096", "f16", false, false, {{"M", 4096}, {"N", 4096}, {"K", 4096}}, GpuOptions{}});
  all.push_back({"bf16_rowcol", "bf16", true, false, {}, GpuOptions{}});
  GpuOptions split;
  split.block = {64, 64, 64};
  split.warp = {32, 32, 16};
  split.split_k = 4;
  all.push_back({"splitk4", "f16", true, true, {{"M", 4096}, {"N", 4096}, {"K", 4096}}, split});
  GpuOptions paper16;
  paper16.mma = MmaShape::m16n16k8;
  paper16.choose_warp = true;
  all.push_back({"m16n16k8_colrow_4096", "f16", false, true, {{"M", 4096}, {"N", 4096}, {"K", 4096}}, paper16});
  GpuOptions paper32;
  paper32.mma = MmaShape::m32n32k8;
  paper32.choose_warp = true;
  all.push_back({"m32n32k8_rowcol", "f16", true, false, {}, paper32});
  GpuOptions single;
  single.stages = 1;
  all.push_back({"stages1", "f16", false, true, {}, single});
  GpuOptions ring;  // issue 19: a ring of 4 stages, the K tail after the isolated k-steps
  ring.stages = 4;
  all.push_back({"stages4_4096x4096x4100", "f16", true, true, {{"M", 4096}, {"N", 4096}, {"K", 4100}}, ring});
  ring.stages = 3;
  all.push_back({"stages3_symbolic", "f16", true, false, {}, ring});
  return all;
}

// `source` compiles with NVRTC for sm_80 and sm_90: no spills, no stack frame.
void expect_compiles_without_spills(const std::string& source, const std::string& name) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(fmt::format("{} {}", name, arch));
    pft_test::NvrtcResult result = pft_test::nvrtc_compile(source, arch, /*ptxas_verbose=*/true);
    ASSERT_TRUE(result.ok) << result.log;
    EXPECT_TRUE(pft_test::nonzero_spills(result.log).empty()) << result.log;
    EXPECT_TRUE(pft_test::nonzero_stack_frames(result.log).empty()) << result.log;
  }
}

// No spills and no stack frame (no local memory at all) in any generated kernel.
TEST(CudaCompile, GeneratedKernelsCompileWithoutSpills) {
  for (const CompileCase& c : cases()) {
    Program program = compile_program(gemm_source(c.type, c.a_row, c.b_row), c.sizes);
    CudaEmitRequest request;
    request.options = c.options;
    std::string source = emit_cuda(program, request).source;
    for (const char* arch : {"sm_80", "sm_90"}) {
      SCOPED_TRACE(fmt::format("{} {}", c.name, arch));
      pft_test::NvrtcResult result = pft_test::nvrtc_compile(source, arch, /*ptxas_verbose=*/true);
      ASSERT_TRUE(result.ok) << result.log;
      EXPECT_FALSE(result.cubin.empty());
      EXPECT_TRUE(pft_test::nonzero_spills(result.log).empty()) << result.log;
      EXPECT_TRUE(pft_test::nonzero_stack_frames(result.log).empty()) << result.log;
    }
  }
}

// Issue 22: prologues that read other tensors (a dequantisation; row, column and elementwise
// operands on both A and B) and several batch dimensions, at the default tiles. Issue 19:
// prologues on the landed tile of one operand, packed in f16 and bf16 pairs (the bf16 FMA form
// on sm_80, codegen/packed_prologue.h) and element by element, on A and on B.
TEST(CudaCompile, PrologueOperandsAndBatchDimensionsCompileWithoutSpills) {
  const SizeBindings sizes{{"M", 4096}, {"N", 4096}, {"K", 4096}, {"B", 2}, {"H", 3}};
  const std::vector<std::string> sources = {
      read_text_file(source_path("examples/dequant_gemm.tc")),
      "def f(f16(M, K) A, f16(M) s, f16(M, K) Z, f16(K, N) B, f16(N) t) -> (f16(M, N) C) {\n"
      "  C(m, n) +=! (A(m, k) * s(m) + Z(m, k)) * (B(k, n) - t(n))\n}\n",
      read_text_file(source_path("examples/multihead_batched_gemm.tc")),
      "def g(bf16(K, M) A, bf16(M) s, bf16(K, N) B) -> (f16(M, N) C) {\n"
      "  C(m, n) +=! relu(A(k, m) * s(m)) * B(k, n)\n}\n",
      "def h(bf16(M, K) A, bf16(N, K) B, bf16(K) t) -> (bf16(M, N) C) {\n"
      "  C(m, n) +=! A(m, k) * max(B(n, k) - t(k), 0)\n}\n",
      "def e(f16(M, K) A, f16(K, N) B, f16(N) t) -> (f16(M, N) C) {\n"
      "  C(m, n) +=! A(m, k) * exp(B(k, n) - t(n))\n}\n"};
  for (const std::string& text : sources) {
    Program program = compile_program(text, sizes);
    CudaEmitRequest request;
    request.options.choose_warp = true;  // the command line's default
    std::string source = emit_cuda(program, request).source;
    expect_compiles_without_spills(source, program.name);
  }
}

// --arch sm_90a (issue 17 item 4): the metadata names sm_90a; the kernel compiles with NVRTC
// for it without spills or ptxas diagnostics (the wgmma not serialised): the TMA + wgmma loop
// with A and B as tensor maps, with A copied by threads (K = 4100: TMA cannot load A), with
// column-major operands, and the mma.sync fallback (K = N = 4100: TMA can load neither).
TEST(CudaCompile, Sm90aKernelCompilesForSm90a) {
  struct Case {
    int n, k;
    bool a_row, b_row;
    bool a_map, b_map;  // A, B reach the kernel as tensor maps
  };
  for (const Case& c : {Case{4096, 4096, true, true, true, true}, Case{4096, 4100, true, true, false, true},
                        Case{4096, 4096, false, false, true, true}, Case{4100, 4100, true, true, false, false}}) {
    SCOPED_TRACE(fmt::format("N = {}, K = {}, A {}, B {}", c.n, c.k, c.a_row ? "row" : "col", c.b_row ? "row" : "col"));
    Program program = compile_program(gemm_source("f16", c.a_row, c.b_row), {{"M", 4096}, {"N", c.n}, {"K", c.k}});
    CudaEmitRequest request;
    request.options = default_gpu_options(Arch::sm_90a);
    const auto emitted = emit_cuda(program, request);
    EXPECT_EQ(emitted.metadata.arch, "sm_90a");
    EXPECT_EQ(!emitted.metadata.parameters.at(0).tma_box.empty(), c.a_map);
    EXPECT_EQ(!emitted.metadata.parameters.at(1).tma_box.empty(), c.b_map);
    pft_test::NvrtcResult result = pft_test::nvrtc_compile(emitted.source, emitted.metadata.arch, /*ptxas_verbose=*/true);
    ASSERT_TRUE(result.ok) << result.log;
    EXPECT_TRUE(pft_test::nonzero_spills(result.log).empty()) << result.log;
    EXPECT_TRUE(pft_test::nonzero_stack_frames(result.log).empty()) << result.log;
    EXPECT_TRUE(pft_test::ptxas_diagnostics(result.log).empty()) << result.log;
  }
}

// FP8 (issue 22 item 4): examples/gemm_fp8.tc on the TMA + wgmma loop compiles with NVRTC (the
// helpers embedded, as the runtime builds it) for sm_90a without spills or ptxas diagnostics.
TEST(CudaCompile, Fp8GemmCompilesForSm90a) {
  Program program = compile_program(example_source("gemm_fp8"), {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  CudaEmitRequest request;
  request.options = default_gpu_options(Arch::sm_90a);
  const auto emitted = emit_cuda(program, request);
  EXPECT_NE(emitted.source.find("wgmma_k_block_fp8<Fp8::e4m3, Fp8::e4m3, 128"), std::string::npos);
  pft_test::NvrtcResult result = pft_test::nvrtc_compile(emitted.source, emitted.metadata.arch, /*ptxas_verbose=*/true);
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_TRUE(pft_test::nonzero_spills(result.log).empty()) << result.log;
  EXPECT_TRUE(pft_test::nonzero_stack_frames(result.log).empty()) << result.log;
  EXPECT_TRUE(pft_test::ptxas_diagnostics(result.log).empty()) << result.log;
}

// Matmuls of two operand types (TF32 tensor cores, the 16-bit operand's fragments loaded
// widened): f32 x f16 and bf16 x f32 GEMMs and attention's plan (`e * V`, f32 x f16) compile
// for sm_80 and sm_90 without spills or a stack frame.
TEST(CudaCompile, MixedOperandTypesCompileWithoutSpills) {
  const SizeBindings sizes{{"M", 4096}, {"N", 4096}, {"K", 4096}, {"B", 8}, {"S", 1024}, {"T", 1024}, {"D", 64}};
  const std::vector<std::string> sources = {
      "def f(f32(M, K) A, f16(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n",
      "def g(bf16(M, K) A, f32(N, K) B, f32(N) bias) -> (bf16(M, N) C) {\n  T(m, n) +=! A(m, k) * B(n, k)\n"
      "  C(m, n) = relu(T(m, n) + bias(n))\n}\n",
      "def attn(f16(B, S, D) Q, f16(B, T, D) K, f16(B, T, D) V) -> (f16(B, S, D) O, z) {\n"
      "  L(b, s, t) +=! Q(b, s, d) * K(b, t, d) * 0.125\n  mx(b, s) max=! L(b, s, t)\n"
      "  e(b, s, t) = exp(L(b, s, t) - mx(b, s))\n  z(b, s) +=! e(b, s, t)\n"
      "  O(b, s, d) +=! e(b, s, t) * V(b, t, d) / z(b, s)\n}\n"};
  for (const std::string& text : sources) {
    const Program program = compile_program(text, sizes);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program));
    CudaEmitRequest request;
    request.options.choose_warp = true;
    const std::string source = plan.is_single_fused_kernel() ? emit_cuda(program, request).source
                                                             : emit_cuda_plan(program, plan, request).source;
    EXPECT_NE(source.find("_f32_widened<"), std::string::npos) << program.name;
    expect_compiles_without_spills(source, program.name);
  }
}

// The attention kernel (schedule/attention.h) at heads of 64 and 128 columns, f16 and bf16,
// with a causal mask, f32 output: compiles for sm_80 and sm_90 without spills or a stack frame.
TEST(CudaCompile, AttentionKernelsCompileWithoutSpills) {
  const std::vector<std::pair<std::string, SizeBindings>> cases = {
      {example_source("attention"), {{"B", 8}, {"S", 1024}, {"T", 1024}, {"D", 64}}},
      {example_source("attention"), {{"B", 8}, {"S", 1024}, {"T", 1024}, {"D", 128}}},
      {example_source("causal_attention"), {{"B", 8}, {"S", 1000}, {"T", 1000}, {"D", 128}}},
      {"def attn(bf16(B, H, S, D) Q, bf16(B, H, T, D) K, bf16(B, H, T, E) V) -> (f32(B, H, S, E) O) {\n"
       "  L(b, h, s, t) +=! Q(b, h, s, d) * K(b, h, t, d) * 0.125\n  mx(b, h, s) max=! L(b, h, s, t)\n"
       "  e(b, h, s, t) = bf16(exp(L(b, h, s, t) - mx(b, h, s)))\n  z(b, h, s) +=! e(b, h, s, t)\n"
       "  O(b, h, s, n) +=! e(b, h, s, t) * V(b, h, t, n) / z(b, h, s)\n}\n",
       {{"B", 2}, {"H", 12}, {"S", 197}, {"T", 197}, {"D", 64}, {"E", 96}}}};
  for (const auto& [text, sizes] : cases) {
    const Program program = compile_program(text, sizes);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program));
    ASSERT_EQ(plan.kernels.size(), 1u) << to_string(plan, program);
    ASSERT_EQ(plan.kernels[0].kind, PlannedKernelKind::attention) << to_string(plan, program);
    CudaEmitRequest request;
    const std::string source = emit_cuda_plan(program, plan, request).source;
    expect_compiles_without_spills(source, program.name);
  }
}

// Issue 23: a general contraction's plan (permutation copies, the GEMM over the grouped view,
// the output's permutation; a GEMM with epilogues) compiles for sm_80 and sm_90, no spills.
TEST(CudaCompile, GroupedContractionPlansCompileWithoutSpills) {
  const std::vector<std::pair<std::string, SizeBindings>> cases = {
      {"def t(f16(K, B, A) X, f16(B, C, K) Y) -> (f16(A, B, C) O) {\n  O(a, b, c) +=! X(k, b, a) * Y(b, c, k)\n}\n",
       {{"A", 512}, {"B", 4}, {"C", 256}, {"K", 512}}},
      {"def e(f16(A, B, K, L) X, f16(K, L, C) Y, f16(C) bias) -> (f16(A, B, C) O) {\n"
       "  T(a, b, c) +=! X(a, b, k, l) * Y(k, l, c)\n  O(a, b, c) = relu(T(a, b, c) + bias(c))\n}\n",
       {{"A", 64}, {"B", 16}, {"K", 32}, {"L", 16}, {"C", 512}}}};
  for (const auto& [text, sizes] : cases) {
    const Program program = compile_program(text, sizes);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program));
    ASSERT_FALSE(plan.is_single_fused_kernel());
    CudaEmitRequest request;
    request.options.choose_warp = true;
    const std::string source = emit_cuda_plan(program, plan, request).source;
    for (const char* arch : {"sm_80", "sm_90"}) {
      SCOPED_TRACE(fmt::format("{} {}", program.name, arch));
      pft_test::NvrtcResult result = pft_test::nvrtc_compile(source, arch, /*ptxas_verbose=*/true);
      ASSERT_TRUE(result.ok) << result.log;
      EXPECT_TRUE(pft_test::nonzero_spills(result.log).empty()) << result.log;
    }
  }
}

}  // namespace
}  // namespace polyfuse
