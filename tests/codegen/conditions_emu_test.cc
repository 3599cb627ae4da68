// `?:`, comparisons and index values (frontend/condition.h) on the GPU path, run on the
// emulator against the exact reference: a `?:` fused into a matmul kernel's epilogue and
// prologue, an index value in an epilogue (each fragment element's row and column: the mma.sync
// fragments and the sm_90a kernel's staged chunks, batched too), in a prologue (a pointwise
// kernel of its own: the copies see tile elements), in a row reduction, and causal attention's
// mask in the epilogue of Q K^T, in its fused row chain and in a row-chain kernel. Small odd
// shapes; a planted bug (the mask on the wrong coordinate) must fail.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

EmuRun expect_ok(const std::string& source, const SizeBindings& sizes, const std::string& plan_note = "",
                 Arch arch = Arch::sm_90, const EmuRunOptions& run_options = {}) {
  const Program program = compile_program(source, sizes);
  GpuOptions options = default_gpu_options(arch);
  const EmuRun run = run_on_emulator(program, options, run_options);
  EXPECT_TRUE(run.check.ok) << to_string(arch) << ": " << run.check.to_string();
  EXPECT_EQ(run.check.unchecked(), 0) << to_string(arch) << ": " << run.check.to_string();
  if (!plan_note.empty()) {
    const std::string plan = to_string(plan_program(program, recognize_idioms(program)), program);
    EXPECT_NE(plan.find(plan_note), std::string::npos) << plan;
  }
  return run;
}

// examples/attention.tc with a causal mask: `M` a step on the score (mask_on_scores: one
// attention kernel, schedule/attention.h; with the sums an output of the def too, sums_stored:
// `M` in Q K^T's epilogue), or the mask inside the row chain's statements (mask_in_chain: the
// max and the exponentials test t <= s). The masked scores are -1e30, whose f32 rounding (about
// 2^76) is its error bound: the row max's bound counts only operands that can reach the maximum
// (reduction_bound.h), so every element keeps a bound and is checked (expect_ok: none unchecked).
enum class Mask { on_scores, on_scores_sums_stored, in_chain };

std::string causal_attention(Mask mask) {
  if (mask != Mask::in_chain)
    return fmt::format(R"(def causal(f16(B, S, D) Q, f16(B, T, D) K, f16(B, T, D) V) -> (f16(B, S, D) O{}) {{
  L(b, s, t) +=! Q(b, s, d) * K(b, t, d) / sqrt(D)
  M(b, s, t) = t <= s ? L(b, s, t) : -1e30
  mx(b, s) max=! M(b, s, t)
  e(b, s, t) = exp(M(b, s, t) - mx(b, s))
  z(b, s) +=! e(b, s, t)
  O(b, s, d) +=! e(b, s, t) * V(b, t, d) / z(b, s)
}})",
                       mask == Mask::on_scores_sums_stored ? ", z" : "");
  return R"(def causal(f16(B, S, D) Q, f16(B, T, D) K, f16(B, T, D) V) -> (f16(B, S, D) O) {
  L(b, s, t) +=! Q(b, s, d) * K(b, t, d) / sqrt(D)
  mx(b, s) max=! t <= s ? L(b, s, t) : -1e30
  e(b, s, t) = t <= s ? exp(L(b, s, t) - mx(b, s)) : 0
  z(b, s) +=! e(b, s, t)
  O(b, s, d) +=! e(b, s, t) * V(b, t, d) / z(b, s)
})";
}

TEST(ConditionsEmu, SelectInAMatmulEpilogueAndPrologue) {
  expect_ok(R"(def leaky(f16(M, K) A, f16(K, N) B) -> (O) {
  C(m, n) +=! (A(m, k) > 0 ? A(m, k) : 0) * B(k, n)
  O(m, n) = C(m, n) > 0 && C(m, n) < 4 ? C(m, n) : 0.5 * C(m, n)
})", {{"M", 33}, {"N", 17}, {"K", 24}});
}

TEST(ConditionsEmu, IndexValuesInAMatmulEpilogue) {
  const std::string lower = R"(def lower(f16(M, K) A, f16(K, N) B) -> (O) {
  C(m, n) +=! A(m, k) * B(k, n)
  O(m, n) = n <= m ? C(m, n) : m + 1
})";
  for (Arch arch : {Arch::sm_80, Arch::sm_90a})
    expect_ok(lower, {{"M", 33}, {"N", 17}, {"K", 24}}, "plan of def lower: 1 kernel", arch);
  // whole tiles on the sm_90a kernel (TMA: 16-byte rows), batched: b from the linearised batch
  const std::string batched = R"(def lower(f16(Z, M, K) A, f16(Z, K, N) B) -> (O) {
  C(z, m, n) +=! A(z, m, k) * B(z, k, n)
  O(z, m, n) = n <= m + z ? C(z, m, n) : z - m
})";
  for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
    const EmuRun run = expect_ok(batched, {{"Z", 3}, {"M", 70}, {"N", 72}, {"K", 40}}, "plan of def lower: 1 kernel", arch);
    if (arch == Arch::sm_90a) {
      EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u);
    }
  }
}

TEST(ConditionsEmu, IndexValueInAPrologueIsAPointwiseKernel) {
  expect_ok(R"(def shifted(f16(M, K) A, f16(K, N) B) -> (O) {
  P(m, k) = f16(k < m ? A(m, k) : 0)
  O(m, n) +=! P(m, k) * B(k, n)
})", {{"M", 33}, {"N", 17}, {"K", 24}}, "plan of def shifted: 2 kernels");
}

// Causal attention in as few kernels as the unmasked one: one attention kernel with the mask a
// step on the score (any T); with the sums stored, the mask in Q K^T's epilogue and the row chain
// fused after it (T <= 256: two kernels) or a row-chain kernel of its own (T > 256: three); the
// mask in the row chain likewise.
TEST(ConditionsEmu, CausalAttention) {
  for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
    expect_ok(causal_attention(Mask::on_scores), {{"B", 2}, {"S", 40}, {"T", 40}, {"D", 24}},
              "plan of def causal: 1 kernel", arch);
    expect_ok(causal_attention(Mask::on_scores), {{"B", 2}, {"S", 70}, {"T", 300}, {"D", 16}},
              "plan of def causal: 1 kernel", arch);
  }
  for (Mask mask : {Mask::on_scores_sums_stored, Mask::in_chain}) {
    const std::string source = causal_attention(mask);
    for (Arch arch : {Arch::sm_80, Arch::sm_90a})
      expect_ok(source, {{"B", 2}, {"S", 40}, {"T", 40}, {"D", 24}}, "plan of def causal: 2 kernels", arch);
    expect_ok(source, {{"B", 2}, {"S", 19}, {"T", 300}, {"D", 16}}, "plan of def causal: 3 kernels");
  }
}

// The mask on the wrong coordinate (the row for the column: `s <= s`, every element kept) must
// fail: in the row chain fused after Q K^T, in a row-chain kernel, in the attention kernel, and
// in the sm_90a epilogue.
TEST(ConditionsEmu, PlantedMaskErrorsInRowChainsAndTheSm90aEpilogueFail) {
  struct Case {
    std::string source;
    SizeBindings sizes;
    Arch arch;
    std::string from, to;
  };
  const std::string lower = R"(def lower(f16(M, K) A, f16(K, N) B) -> (O) {
  C(m, n) +=! A(m, k) * B(k, n)
  O(m, n) = n <= m ? C(m, n) : m + 1
})";
  for (const Case& c : {Case{causal_attention(Mask::in_chain), {{"B", 2}, {"S", 40}, {"T", 40}, {"D", 24}}, Arch::sm_80,
                             "static_cast<float>(i_t)", "static_cast<float>(i_s)"},
                        Case{causal_attention(Mask::in_chain), {{"B", 2}, {"S", 19}, {"T", 300}, {"D", 16}}, Arch::sm_80,
                             "static_cast<float>(i_t)", "static_cast<float>(i_s)"},
                        Case{causal_attention(Mask::on_scores), {{"B", 2}, {"S", 70}, {"T", 300}, {"D", 16}}, Arch::sm_80,
                             "static_cast<float>(key) <=", "static_cast<float>(query) <="},
                        Case{lower, {{"M", 72}, {"N", 64}, {"K", 40}}, Arch::sm_90a, "static_cast<float>((n_first + j))",
                             "static_cast<float>(pf_m)"}}) {
    EmuRunOptions options;
    options.edit = replacing(c.from, c.to);
    const EmuRun run = run_on_emulator(compile_program(c.source, c.sizes), default_gpu_options(c.arch), options);
    EXPECT_FALSE(run.check.ok) << "the planted mask error passed: " << c.source;
  }
}

// The mask on the wrong coordinate (the row for the column: `s <= s`, every element kept) must fail.
TEST(ConditionsEmu, PlantedMaskErrorFails) {
  EmuRunOptions options;
  options.edit = replacing("+ pf_col)", "+ pf_row)");
  const Program program =
      compile_program(causal_attention(Mask::on_scores_sums_stored), {{"B", 2}, {"S", 100}, {"T", 100}, {"D", 24}});
  const EmuRun run = run_on_emulator(program, default_gpu_options(Arch::sm_80), options);
  EXPECT_FALSE(run.check.ok) << "the planted mask error passed";
}

TEST(ConditionsEmu, TriangularRowReduction) {
  // TC's tum.py `result`: a triangular sum with a comparison of two indices.
  expect_ok(R"(def result(float(K, L, L) Beta, float(K, L, L) Dots) -> (O, tmpO) {
  tmpO(k, l1) +=! (l1 >= r_l2) ? 0.0 :
      Dots(k, l1, r_l2) * Beta(k, l1, r_l2)
  O(k) +=! tmpO(k, l1)
})", {{"K", 3}, {"L", 37}});
}

}  // namespace
}  // namespace polyfuse
