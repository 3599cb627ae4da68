// Matmuls whose operands have two types among f16, bf16 and f32 (attention's `e * V`: f32
// probabilities times f16 values) on TF32 tensor cores: each 16-bit operand stays 16-bit in
// shared memory and its fragments load widened to f32 (exact), the f32 one as an f32 GEMM's
// (pf_mma_tf32.cuh). On the emulator at odd sizes, each pair of types in each order and both
// layouts, with an epilogue; 3xTF32 keeps its f32 accuracy (a wrong widening would show); the
// plan of attention puts `e * V` on tensor cores; sm_90a falls back to mma.sync with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "codegen/cuda_emitter.h"
#include "codegen/main_loop_choice.h"
#include "emu_harness.h"
#include "frontend/idioms.h"
#include "gemm_programs.h"
#include "runtime/reference/evaluate_exact.h"
#include "schedule/gpu_options.h"
#include "schedule/plan_from_program.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// C(m, n) +=! A * B, then D = relu(C + bias(n)) stored as f16; A(m, k) or A(k, m), B(k, n) or B(n, k).
std::string mixed_source(const std::string& a_type, const std::string& b_type, bool a_row, bool b_row) {
  return fmt::format("def mixed({}({}) A, {}({}) B, f32(N) bias) -> (f16(M, N) D) {{\n"
                     "  C(m, n) +=! A({}) * B({})\n"
                     "  D(m, n) = relu(C(m, n) + bias(n))\n}}\n",
                     a_type, a_row ? "M, K" : "K, M", b_type, b_row ? "K, N" : "N, K", a_row ? "m, k" : "k, m",
                     b_row ? "k, n" : "n, k");
}

GpuOptions options_for(Arch arch, F32Matmul mode) {
  GpuChoices choices;
  choices.arch = arch;
  choices.f32_matmul = mode;
  return gpu_options_from_choices(choices);
}

struct Case {
  const char *a, *b;
  bool a_row, b_row;
};

TEST(MixedOperandsEmu, EachPairOfTypesInEachLayoutRunsOnTf32TensorCores) {
  const SizeBindings sizes{{"M", 37}, {"N", 45}, {"K", 29}};
  for (const Case& c : {Case{"f32", "f16", true, true}, Case{"f16", "f32", false, false}, Case{"bf16", "f32", true, false},
                        Case{"f32", "bf16", false, true}, Case{"f16", "bf16", true, true}}) {
    SCOPED_TRACE(fmt::format("{} x {}, A {}, B {}", c.a, c.b, c.a_row ? "row" : "col", c.b_row ? "row" : "col"));
    const Program program = compile_program(mixed_source(c.a, c.b, c.a_row, c.b_row), sizes);
    const GpuOptions options = options_for(Arch::sm_80, F32Matmul::tf32);
    CudaEmitRequest request;
    request.options = options;
    const std::string source = emit_cuda(program, request).source;
    // each 16-bit operand's fragments load widened, in its own type
    for (const auto& [type, fragment] : {std::pair{c.a, "a"}, std::pair{c.b, "b"}}) {
      const std::string type_name = std::string(type);
      if (type_name == "f32") continue;
      const std::string widened = fmt::format("pf::load_frag_{}_f32_widened<{}, ", fragment,
                                              type_name == "f16" ? "__half" : "__nv_bfloat16");
      EXPECT_NE(source.find(widened), std::string::npos) << widened;
    }
    EXPECT_NE(source.find("pf::mma_fragment_f32<pf::F32Mma::tf32>"), std::string::npos);
    const EmuRun run = run_on_emulator(program, options, 5);
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
  }
}

// 3xTF32 is exact for the 16-bit operand (its small part is zero) and splits the f32 one: the
// result is as close to f32 as an f32 GEMM's; a 16-bit operand read as the wrong type, or its
// bits misplaced, is not.
TEST(MixedOperandsEmu, ThreeTf32StaysCloseToF32) {
  const Program program = compile_program(
      "def g(f32(M, K) A, f16(N, K) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(n, k)\n}\n",
      {{"M", 40}, {"N", 24}, {"K", 72}});
  const EmuRun run = run_on_emulator(program, options_for(Arch::sm_80, F32Matmul::x3tf32), 11);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  const reference::ExactData exact = reference::evaluate_exact(program, run.outputs);
  double worst = 0;
  for (std::size_t i = 0; i < exact.at("C").size(); ++i)
    worst = std::max(worst, std::fabs(run.outputs.at("C")[i] - exact.at("C")[i].value));
  EXPECT_LT(worst, 1e-5);
}

// sm_90a's TMA + wgmma loop takes no TF32: the mma.sync path runs it, and says why.
TEST(MixedOperandsEmu, Sm90aFallsBackToMmaSyncWithTheReason) {
  const Program program = compile_program(mixed_source("f32", "f16", true, true), {{"M", 64}, {"N", 64}, {"K", 64}});
  const KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  const MainLoopChoice choice = choose_main_loop(program, plan, options_for(Arch::sm_90a, F32Matmul::tf32));
  EXPECT_EQ(choice.loop, MainLoop::mma_sync);
  EXPECT_EQ(choice.fallback_reason,
            "the TMA + wgmma main loop does not handle operands of two types, f32 and f16 (they run TF32 mma.sync "
            "m16n8k8, the 16-bit one widened in registers: TF32 wgmma reads both tiles as f32 from shared memory) yet");
  const EmuRun run = run_on_emulator(program, options_for(Arch::sm_90a, F32Matmul::tf32), 3);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

// Attention with its row sums an output (else one attention kernel, schedule/attention.h):
// `e * V / z` is the matmul e * V (f32 x f16) on TF32 tensor cores and `/ z` its epilogue;
// `f32_matmul` f32 leaves it to a reduction kernel, exact.
TEST(MixedOperandsEmu, AttentionsProbabilitiesTimesValuesRunOnTensorCores) {
  const std::string source =
      "def attn(f16(B, S, D) Q, f16(B, T, D) K, f16(B, T, D) V) -> (f16(B, S, D) O, z) {\n"
      "  L(b, s, t) +=! Q(b, s, d) * K(b, t, d) * 0.125\n"
      "  mx(b, s) max=! L(b, s, t)\n"
      "  e(b, s, t) = exp(L(b, s, t) - mx(b, s))\n"
      "  z(b, s) +=! e(b, s, t)\n"
      "  O(b, s, d) +=! e(b, s, t) * V(b, t, d) / z(b, s)\n}\n";
  const Program program = compile_program(source, {{"B", 2}, {"S", 37}, {"T", 45}, {"D", 24}});
  const Idioms idioms = recognize_idioms(program);
  const std::string plan = to_string(plan_program(program, idioms), program);
  EXPECT_NE(plan.find("kernel 1 attn_k1 (fused matmul)\n  S4 (O_sum(b, s, d) +=! e(b, s, t) * V(b, t, d))\n"
                      "  S4_scale (O(b, s, d) = O_sum(b, s, d) / z(b, s))\n"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("  mixed operands: e is f32 and V is f16: tensor cores, TF32 (f32_matmul=tf32: 16-bit "
                      "values widened exactly, f32 ones rounded to 11 significant bits)\n"),
            std::string::npos)
      << plan;
  for (F32Matmul mode : {F32Matmul::tf32, F32Matmul::f32}) {
    SCOPED_TRACE(to_string(mode));
    const EmuRun run = run_on_emulator(program, options_for(Arch::sm_80, mode), 9);
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
  }
}

}  // namespace
}  // namespace polyfuse
