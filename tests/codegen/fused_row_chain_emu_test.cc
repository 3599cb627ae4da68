// Row chains fused into the matmul kernel's epilogue (schedule/fused_row_chain.h,
// codegen/fragment_row_chain.h) on the emulator against the exact reference: GEMM + softmax,
// GEMM + bias + LayerNorm and GEMM + RMSNorm as ONE kernel at power-of-two and odd shapes
// (columns past the row kept out of the statistics), the byte counters (the output written
// once, the matmul's result never), softmax of large values and layer norm of a large mean,
// and kernels with a shuffle or a barrier removed, which must fail; on sm_90a the same chains on
// the wgmma kernel's staged accumulators (codegen/hopper_row_chain.h).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emu_harness.h"
#include "frontend/element_type.h"
#include "gemm_programs.h"
#include "polyfuse/errors.h"
#include "schedule/plan_from_program.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// The options a user gets without choosing tiles (the CLI's, the API's).
GpuOptions default_choices(Arch arch = Arch::sm_90) {
  GpuOptions options;
  options.arch = arch;
  options.choose_warp = true;
  return options;
}

// Runs `source` with `sizes`, which must plan as `kernels` kernels, and checks it.
EmuRun expect_runs(const std::string& source, const SizeBindings& sizes, std::size_t kernels,
                   const EmuRunOptions& run = {}, Arch arch = Arch::sm_90) {
  const Program program = compile_program(source, sizes);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_EQ(plan.kernels.size(), kernels) << to_string(plan, program);
  const EmuRun result = run_on_emulator(program, default_choices(arch), run);
  EXPECT_TRUE(result.check.ok) << result.check.to_string() << "\n" << to_string(plan, program);
  return result;
}

struct FusedCase {
  std::string example;
  SizeBindings sizes;
};

void PrintTo(const FusedCase& c, std::ostream* out) { *out << c.example; }

class FusedRowChainEmu : public ::testing::TestWithParam<FusedCase> {};

TEST_P(FusedRowChainEmu, OneKernelMatchesTheReference) {
  expect_runs(example_source(GetParam().example), GetParam().sizes, 1);
}

std::vector<FusedCase> fused_cases() {
  std::vector<FusedCase> cases;
  for (const char* example : {"gemm_softmax", "layernorm", "rmsnorm"})
    cases.push_back({example, {{"M", 37}, {"N", 101}, {"K", 19}}});  // odd: 27 columns past the row, two warps a row
  cases.push_back({"gemm_softmax", {{"M", 9}, {"N", 21}, {"K", 8}}});     // one warp a row, N no multiple of 8
  cases.push_back({"gemm_softmax", {{"M", 64}, {"N", 128}, {"K", 64}}});  // whole tiles
  cases.push_back({"gemm_softmax", {{"M", 17}, {"N", 256}, {"K", 16}}});  // the widest row: four warps share it
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Examples, FusedRowChainEmu, ::testing::ValuesIn(fused_cases()),
                         [](const ::testing::TestParamInfo<FusedCase>& info) {
                           return example_test_name(info.param.example, info.param.sizes);
                         });

// The byte counters: the fused kernel stores P once and never writes or reads C; the
// two-kernel plan (a row of 300 columns does not fit) stores C (f32) and reads it back.
TEST(FusedRowChainEmu, WritesTheOutputOnceAndNeverTheMatmulResult) {
  const std::int64_t m = 32, k = 16;
  for (const std::int64_t n : {128, 300}) {
    SCOPED_TRACE(fmt::format("N = {}", n));
    const EmuRun run = expect_runs(example_source("gemm_softmax"), {{"M", m}, {"N", n}, {"K", k}}, n <= 256 ? 1 : 2);
    const std::uint64_t output = 2u * m * n, c_bytes = 4u * m * n;
    ASSERT_NE(run.stats.buffer("P"), nullptr) << run.stats.details();
    EXPECT_EQ(run.stats.buffer("P")->bytes_stored, output) << run.stats.details();
    const std::uint64_t stored = run.stats.counter("global_bytes_stored");
    EXPECT_EQ(stored, n <= 256 ? output : output + c_bytes) << run.stats.details();
  }
}

// Rows of values around +-1000 (the matmul's result scaled in an epilogue): exp alone would
// overflow f32; the chain subtracts the row's max first.
TEST(FusedRowChainEmu, SoftmaxOfLargeValuesDoesNotOverflow) {
  expect_runs("def big_softmax(f16(M, K) A, f16(K, N) B) -> (f16(M, N) P) {\n"
              "  C(m, n) +=! A(m, k) * B(k, n)\n"
              "  Z(m, n) = C(m, n) * 1000\n"
              "  mx(m) max=! Z(m, n)\n"
              "  e(m, n) = exp(Z(m, n) - mx(m))\n"
              "  s(m) +=! e(m, n)\n"
              "  P(m, n) = e(m, n) / s(m)\n"
              "}\n",
              {{"M", 19}, {"N", 75}, {"K", 12}}, 1);
}

// A layer norm of rows with a large mean (1e4 + the matmul's result): the chain takes the mean
// first, then the variance of the centred values, so the normalised row keeps its precision.
TEST(FusedRowChainEmu, LayerNormWithALargeMean) {
  expect_runs("def offset_norm(f16(M, K) A, f16(K, N) B, f32(N) gamma) -> (f32(M, N) Y, f32(M) mean) {\n"
              "  C(m, n) +=! A(m, k) * B(k, n)\n"
              "  X(m, n) = C(m, n) + 10000\n"
              "  mean(m) +=! X(m, n) / N\n"
              "  d(m, n) = X(m, n) - mean(m)\n"
              "  var(m) +=! d(m, n) * d(m, n) / N\n"
              "  Y(m, n) = d(m, n) * rsqrt(var(m) + 1e-5) * gamma(n)\n"
              "}\n",
              {{"M", 21}, {"N", 72}, {"K", 16}}, 1);
}

// Every output of a chain is stored: a row value (mx, f32, by the rows' first lanes), an
// element value that a later statement of the same loop reads (E, in place over C's
// accumulators: F gets a tile of its own, E's is stored after the loop) and the last one (F).
TEST(FusedRowChainEmu, ChainOutputsOfEveryKind) {
  expect_runs("def outputs(f16(M, K) A, f16(K, N) B) -> (f32(M, N) E, f16(M, N) F, f32(M) mx) {\n"
              "  C(m, n) +=! A(m, k) * B(k, n)\n"
              "  mx(m) max=! C(m, n)\n"
              "  E(m, n) = exp(C(m, n) - mx(m))\n"
              "  F(m, n) = E(m, n) * 2\n"
              "}\n",
              {{"M", 33}, {"N", 70}, {"K", 16}}, 1);
}

// Batched matmuls: a block runs one batch element's rows (blockIdx.z; with two batch indices
// each the block's batch_i), so the chain reads and writes its tensors at the block's batch
// element: softmax over one and two batch indices at odd sizes (outputs of rows and of
// elements, a batched bias), attention's scores with its max, exponentials and sums in the
// Q·Kᵀ kernel; the byte counters show the scores never stored.
TEST(FusedRowChainEmu, AfterBatchedMatmuls) {
  expect_runs("def bsm(f16(B, M, K) A, f16(B, K, N) W, f32(B, N) bias) -> (f16(B, M, N) P, f32(B, M) mx) {\n"
              "  C(b, m, n) +=! A(b, m, k) * W(b, k, n)\n"
              "  mx(b, m) max=! C(b, m, n) + bias(b, n)\n"
              "  e(b, m, n) = exp(C(b, m, n) + bias(b, n) - mx(b, m))\n"
              "  s(b, m) +=! e(b, m, n)\n"
              "  P(b, m, n) = e(b, m, n) / s(b, m)\n"
              "}\n",
              {{"B", 3}, {"M", 37}, {"N", 70}, {"K", 19}}, 1);
  expect_runs("def heads(f16(B, H, S, D) Q, f16(B, H, T, D) K) -> (f16(B, H, S, T) P) {\n"
              "  L(b, h, s, t) +=! Q(b, h, s, d) * K(b, h, t, d)\n"
              "  mx(b, h, s) max=! L(b, h, s, t)\n"
              "  e(b, h, s, t) = exp(L(b, h, s, t) - mx(b, h, s))\n"
              "  z(b, h, s) +=! e(b, h, s, t)\n"
              "  P(b, h, s, t) = e(b, h, s, t) / z(b, h, s)\n"
              "}\n",
              {{"B", 2}, {"H", 3}, {"S", 21}, {"T", 45}, {"D", 16}}, 1);
  const std::int64_t b = 2, s = 19, t = 37, d = 16;
  // attention with its row sums an output too (else one attention kernel: schedule/attention.h)
  const std::string attention_source =
      "def attention(f16(B, S, D) Q, f16(B, T, D) K, f16(B, T, D) V) -> (f16(B, S, D) O, f32(B, S) z) {\n"
      "  L(b, s, t) +=! Q(b, s, d) * K(b, t, d) * 0.125\n"
      "  mx(b, s) max=! L(b, s, t)\n"
      "  e(b, s, t) = exp(L(b, s, t) - mx(b, s))\n"
      "  z(b, s) +=! e(b, s, t)\n"
      "  O(b, s, d) +=! e(b, s, t) * V(b, t, d) / z(b, s)\n"
      "}\n";
  const SizeBindings sizes{{"B", b}, {"S", s}, {"T", t}, {"D", d}};
  const EmuRun attention = expect_runs(attention_source, sizes, 2);
  // stored: e (f32) and z by the first kernel, O (f16) by the second; never the scores L
  const std::uint64_t stored = attention.stats.counter("global_bytes_stored");
  EXPECT_EQ(stored, static_cast<std::uint64_t>(4 * b * s * t + 4 * b * s + 2 * b * s * d)) << attention.stats.details();
  // the attention kernel stores O only
  std::string one_kernel = attention_source;
  one_kernel.replace(one_kernel.find(", f32(B, S) z) {"), 16, ") {");
  const EmuRun fused = expect_runs(one_kernel, sizes, 1);
  EXPECT_EQ(fused.stats.counter("global_bytes_stored"), static_cast<std::uint64_t>(2 * b * s * d)) << fused.stats.details();
}

// On sm_90a the chain runs in the wgmma kernel's epilogue (codegen/hopper_row_chain.h): one tile
// spans the row (BN 64 to 256), each consumer warpgroup stages its accumulators and runs the
// chain on them, one warp a row. The examples at odd sizes (B copied by threads where its rows
// are not 16-byte multiples), whole tiles, the widest row over two consumers and a second tile
// of two rows, batched matmuls (one and two batch indices), outputs of every kind, the matmul's
// result an output too, f32 operands on TF32 wgmma, both consumer schedules and the clusters; the
// byte counters: the output stored once, C (a temporary) never.
TEST(FusedRowChainEmu, Sm90aRunsTheChainOnTheStagedAccumulators) {
  struct Case {
    std::string source;
    SizeBindings sizes;
  };
  const std::string outputs =
      "def outputs(f16(M, K) A, f16(K, N) B) -> (f32(M, N) E, f16(M, N) F, f32(M) mx) {\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n"
      "  mx(m) max=! C(m, n)\n"
      "  E(m, n) = exp(C(m, n) - mx(m))\n"
      "  F(m, n) = E(m, n) * 2\n"
      "}\n";
  const std::string batched =
      "def bsm(f16(B, M, K) A, f16(B, K, N) W, f32(B, N) bias) -> (f16(B, M, N) P, f32(B, M) mx) {\n"
      "  C(b, m, n) +=! A(b, m, k) * W(b, k, n)\n"
      "  mx(b, m) max=! C(b, m, n) + bias(b, n)\n"
      "  e(b, m, n) = exp(C(b, m, n) + bias(b, n) - mx(b, m))\n"
      "  s(b, m) +=! e(b, m, n)\n"
      "  P(b, m, n) = e(b, m, n) / s(b, m)\n"
      "}\n";
  const std::string heads =
      "def heads(f16(B, H, S, D) Q, f16(B, H, T, D) K) -> (f16(B, H, S, T) P) {\n"
      "  L(b, h, s, t) +=! Q(b, h, s, d) * K(b, h, t, d)\n"
      "  mx(b, h, s) max=! L(b, h, s, t)\n"
      "  e(b, h, s, t) = exp(L(b, h, s, t) - mx(b, h, s))\n"
      "  z(b, h, s) +=! e(b, h, s, t)\n"
      "  P(b, h, s, t) = e(b, h, s, t) / z(b, h, s)\n"
      "}\n";
  std::string c_output = example_source("gemm_softmax");
  c_output.replace(c_output.find("-> (f16(M, N) P)"), 16, "-> (f32(M, N) C, f16(M, N) P)");
  std::vector<Case> cases;
  for (const char* example : {"gemm_softmax", "layernorm", "rmsnorm"}) {
    cases.push_back({example_source(example), {{"M", 37}, {"N", 101}, {"K", 24}}});
    cases.push_back({example_source(example), {{"M", 130}, {"N", 256}, {"K", 16}}});
  }
  cases.push_back({example_source("gemm_softmax"), {{"M", 9}, {"N", 21}, {"K", 8}}});
  cases.push_back({example_source("gemm_softmax"), {{"M", 64}, {"N", 128}, {"K", 64}}});
  cases.push_back({outputs, {{"M", 33}, {"N", 70}, {"K", 16}}});
  cases.push_back({batched, {{"B", 3}, {"M", 37}, {"N", 70}, {"K", 24}}});
  cases.push_back({heads, {{"B", 2}, {"H", 3}, {"S", 21}, {"T", 45}, {"D", 16}}});
  cases.push_back({c_output, {{"M", 70}, {"N", 96}, {"K", 32}}});
  // f32 operands on TF32 wgmma (both K-major), a row of 250 columns (BN 256) and its LayerNorm
  cases.push_back({"def tf32_norm(f32(M, K) A, f32(N, K) W, f16(N) gamma) -> (f32(M, N) Y) {\n"
                   "  C(m, n) +=! A(m, k) * W(n, k)\n"
                   "  mean(m) +=! C(m, n) / N\n"
                   "  d(m, n) = C(m, n) - mean(m)\n"
                   "  var(m) +=! d(m, n) * d(m, n) / N\n"
                   "  Y(m, n) = d(m, n) * rsqrt(var(m) + 1e-5) * gamma(n)\n"
                   "}\n",
                   {{"M", 77}, {"N", 250}, {"K", 40}}});
  for (const Case& c : cases) {
    const Program program = compile_program(c.source, c.sizes);
    std::string sizes;
    for (const auto& [name, value] : c.sizes) sizes += fmt::format(" {}={}", name, value);
    SCOPED_TRACE(program.name + sizes);
    const EmuRun run = expect_runs(c.source, c.sizes, 1, {}, Arch::sm_90a);
    EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u) << "the wgmma main loop";
    std::uint64_t outputs_bytes = 0;  // every output stored once
    for (const Tensor& t : program.tensors)
      if (t.role == TensorRole::output) {
        std::uint64_t elements = 1;
        for (const Size& dim : t.dims) elements *= static_cast<std::uint64_t>(bound_size(program, dim).value);
        outputs_bytes += elements * static_cast<std::uint64_t>(size_in_bytes(t.type));
        ASSERT_NE(run.stats.buffer(t.name), nullptr) << t.name;
        EXPECT_EQ(run.stats.buffer(t.name)->bytes_stored, elements * static_cast<std::uint64_t>(size_in_bytes(t.type))) << t.name;
      }
    EXPECT_EQ(run.stats.counter("global_bytes_stored"), outputs_bytes) << run.stats.details();
  }
  // the consumer schedules and clusters: a 1 x 2 cluster's second tile lies past the row (it holds
  // none of it: neither the chain nor C's store runs there)
  for (const std::string& source : {example_source("layernorm"), c_output}) {
    const Program program = compile_program(source, {{"M", 300}, {"N", 200}, {"K", 136}});
    for (const ClusterShape cluster : {ClusterShape{1, 1}, ClusterShape{2, 1}, ClusterShape{1, 2}})
      for (const ConsumerSchedule consumers : {ConsumerSchedule::cooperative, ConsumerSchedule::pingpong}) {
        SCOPED_TRACE(fmt::format("{}, --cluster {}, {}", program.name, to_string(cluster), to_string(consumers)));
        GpuOptions options = default_choices(Arch::sm_90a);
        options.cluster = cluster;
        options.consumer_schedule = consumers;
        const EmuRun run = run_on_emulator(program, options);
        EXPECT_TRUE(run.check.ok) << run.check.to_string();
        EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u);
      }
  }
  // A K of 19 (A's rows 38 bytes apart) and an N of 101 (B's 202): TMA can load neither, the
  // mma.sync kernel runs the chain on its fragments
  const EmuRun fallback = expect_runs(example_source("rmsnorm"), {{"M", 37}, {"N", 101}, {"K", 19}}, 1, {}, Arch::sm_90a);
  EXPECT_EQ(fallback.stats.counter("wgmma_instructions"), 0u);
}

// The sm_90a chain's checks: a butterfly step missing (a wrong sum), the accumulators not staged
// (the chain reads shared memory nothing wrote), the staged tile read before the warpgroup's
// barrier (a race).
TEST(FusedRowChainEmu, BrokenSm90aChainsFail) {
  const Program program = compile_program(example_source("gemm_softmax"), {{"M", 70}, {"N", 100}, {"K", 16}});
  const auto broken = [&](const std::string& from, const std::string& to) {
    EmuRunOptions options;
    options.edit = replacing(from, to);
    try {  // "" when the check passes
      const EmuRun run = run_on_emulator(program, default_choices(Arch::sm_90a), options);
      return run.check.ok ? std::string() : run.check.to_string();
    } catch (const EmulatorError& e) {
      return std::string(e.what());
    }
  };
  const std::string staging = "    stage_wg_acc(acc, staging, epilogue_sync);\n";
  EXPECT_EQ(broken(staging, staging), "") << "the unedited kernel passes";
  EXPECT_NE(broken("for (int offset = 16; offset > 0; offset /= 2) v_s", "for (int offset = 8; offset > 0; offset /= 2) v_s"),
            "");
  EXPECT_NE(broken(staging, ""), "");
  // the staging without its barriers: the chain's reads race with the other warps' stores
  EXPECT_NE(broken(staging, "    stage_wg_acc(acc, staging, [] {});\n"), "");
}

// The generated kernel with `edit` applied: its check result, or the emulator's error.
std::string broken_run(SourceEdit edit) {
  const Program program = compile_program(example_source("gemm_softmax"), {{"M", 16}, {"N", 100}, {"K", 16}});
  EmuRunOptions options;
  options.edit = std::move(edit);
  try {
    return run_on_emulator(program, default_choices(), options).check.to_string();
  } catch (const EmulatorError& e) {
    return e.what();
  }
}

// `text` with the first occurrence of `needle` after the kernel's row chain starts replaced.
std::string replaced(const std::string& text, const std::string& needle, const std::string& by) {
  const std::size_t at = text.find(needle, text.find("the row chain on the accumulator fragments"));
  EXPECT_NE(at, std::string::npos) << needle;
  if (at == std::string::npos) return text;
  return text.substr(0, at) + by + text.substr(at + needle.size());
}

// The checks catch a broken chain: a quad's shuffle missing (a wrong sum), the barrier between
// the warps' partials and their reads missing (a shared-memory race), and the columns past the
// row entering the sum. (A wrong max goes unseen: softmax does not depend on the value it
// subtracts, only its range does.)
TEST(FusedRowChainEmu, BrokenChainsFail) {
  const std::string no_shuffle = broken_run([](const std::string& s) {
    return replaced(s, "s_row[i][h] + __shfl_xor_sync(0xffffffffu, s_row[i][h], 1)", "s_row[i][h]");
  });
  EXPECT_NE(no_shuffle.find("check: FAILED"), std::string::npos) << no_shuffle;
  const std::string no_barrier = broken_run([](const std::string& s) {
    return replaced(s, "  __syncthreads();\n  #pragma unroll", "  #pragma unroll");
  });
  EXPECT_NE(no_barrier.find("race"), std::string::npos) << no_barrier;
  const std::string padding =
      broken_run([](const std::string& s) { return replaced(s, "if (i_n < 100) s_row", "s_row"); });
  EXPECT_NE(padding.find("check: FAILED"), std::string::npos) << padding;
}

}  // namespace
}  // namespace polyfuse
