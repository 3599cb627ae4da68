// Every example built for the CPU, run through the driver (runtime/api/run_program.h) on
// random inputs and checked against the exact reference: shapes that are not multiples of any block (1, 7, 33, 100) and
// larger ones, every element type, small blocks (so every edge and k-slice path runs)
// and the default Goto blocking. One shared object per (program, sizes), cached.
#include <gtest/gtest.h>

#include "schedule/cpu_parallel_stages.h"
#include "schedule/cpu_plan.h"

#include <optional>

#include <fmt/format.h>

#include "codegen/cpu_emit.h"
#include "runtime/api/run_program.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

struct RunCase {
  std::string example;
  std::string dtype;       // "" = as written in examples/
  SizeBindings sizes;
  bool small_blocks = true;  // mc = 32, nc = 24, kc = 32 instead of the Goto blocking
};

std::string case_name(const RunCase& c) {
  std::string name = c.example + "_" + (c.dtype.empty() ? "native" : c.dtype);
  for (const auto& [size, value] : c.sizes) name += "_" + size + std::to_string(value);
  return name + (c.small_blocks ? "_small_blocks" : "_goto_blocks");
}

// For gtest's messages and CTest's names: the case name, not the object's bytes.
void PrintTo(const RunCase& c, std::ostream* out) { *out << case_name(c); }

// The bindings of `sizes` that `text` uses.
SizeBindings sizes_used(const std::string& text, const SizeBindings& sizes) {
  SizeBindings used;
  for (const auto& [size, value] : sizes)
    if (text.find("(" + size + ",") != std::string::npos || text.find(" " + size + ",") != std::string::npos ||
        text.find(" " + size + ")") != std::string::npos)
      used[size] = value;
  return used;
}

// Each example at each shape, bound to the sizes it uses (the case names say them).
std::vector<RunCase> run_cases() {
  const std::vector<SizeBindings> shapes = {
      {{"M", 1}, {"N", 1}, {"K", 1}, {"B", 1}, {"H", 1}, {"R", 1}},
      {{"M", 7}, {"N", 33}, {"K", 100}, {"B", 2}, {"H", 3}, {"R", 3}},
      {{"M", 100}, {"N", 7}, {"K", 33}, {"B", 3}, {"H", 2}, {"R", 2}},
      {{"M", 33}, {"N", 100}, {"K", 7}, {"B", 1}, {"H", 2}, {"R", 1}},
      {{"M", 160}, {"N", 200}, {"K", 256}, {"B", 2}, {"H", 2}, {"R", 2}},
  };
  std::vector<RunCase> cases;
  for (const std::string& example : example_names()) {
    const std::string text = example_text(example);
    for (const SizeBindings& shape : shapes) cases.push_back({example, "", sizes_used(text, shape)});
    const bool native_f32 = example == "brgemm";
    for (const std::string dtype : {native_f32 ? "f16" : "f32", "bf16"}) {
      cases.push_back({example, dtype, sizes_used(text, shapes[1])});
      cases.push_back({example, dtype, sizes_used(text, shapes[4])});
    }
    // The default blocking over one batch entry and head (the batch loops run in the cases
    // above; the exact reference's time grows with them), R = 2 for the batch-reduce.
    RunCase goto_blocks{example, "", sizes_used(text, {{"M", 300}, {"N", 260}, {"K", 520}, {"B", 1}, {"H", 1}, {"R", 2}})};
    goto_blocks.small_blocks = false;
    cases.push_back(goto_blocks);
  }
  return cases;
}

class RunExample : public ::testing::TestWithParam<RunCase> {};


TEST_P(RunExample, MatchesTheReference) {
  const RunCase& c = GetParam();
  const std::string text = example_text(c.example, c.dtype);
  const Program program = compile_text(text, sizes_used(text, c.sizes), c.example + ".tc");
  RunRequest request;
  request.target = Target::cpu;
  request.cpu_schedule.target = default_cpu_target();
  if (c.small_blocks) request.cpu_schedule.blocking = {32, 24, 32};
  request.repeats = 0;
  request.seed = 42;
  const RunReport report = run_program(program, request);
  EXPECT_TRUE(report.check.ok) << report.check.to_string() << "\n" << report.library;
  EXPECT_EQ(report.check.compared > 0, true);
}

INSTANTIATE_TEST_SUITE_P(Examples, RunExample, ::testing::ValuesIn(run_cases()),
                         [](const auto& info) { return case_name(info.param); });

// The row reductions without a matmul (loop-nest stages between blocked pointwise ones): odd
// and larger shapes, every element type.
std::vector<RunCase> loop_nest_cases() {
  std::vector<RunCase> cases;
  for (const std::string& example : loop_nest_examples()) {
    for (const SizeBindings& shape :
         std::vector<SizeBindings>{{{"M", 1}, {"N", 1}}, {{"M", 7}, {"N", 33}}, {{"M", 100}, {"N", 7}}, {{"M", 64}, {"N", 1000}}})
      cases.push_back({example, "", shape});
    for (const std::string dtype : {"f32", "f16", "bf16"}) cases.push_back({example, dtype, {{"M", 33}, {"N", 100}}});
  }
  return cases;
}

// A CPU run at small blocks (32 x 24, kc = 32), every stage parallel, no timing.
RunRequest small_parallel_blocks() {
  RunRequest request;
  request.target = Target::cpu;
  request.cpu_schedule.target = default_cpu_target();
  request.cpu_schedule.blocking = {32, 24, 32};
  request.cpu_schedule.min_parallel_flops = 0;  // parallel at these small sizes
  request.repeats = 0;
  return request;
}

// `program` checked against the reference on 1, 2 and 3 threads, all three the same bits.
void expect_same_results_on_1_2_3_threads(const std::string& example, const Program& program) {
  RunRequest request = small_parallel_blocks();
  std::optional<reference::TensorData> one_thread;
  for (int threads : {1, 2, 3}) {
    request.cpu_schedule.threads = threads;
    const RunReport report = run_program(program, request);
    EXPECT_TRUE(report.check.ok) << example << " on " << threads << " threads: " << report.check.to_string();
    if (!one_thread) one_thread = report.outputs;
    else EXPECT_TRUE(report.outputs == *one_thread) << example << ": " << threads << " threads differ from 1";
  }
}

// The thread count (a num_threads clause) splits output blocks, never a reduction: 1, 2 and
// 3 threads (uneven over the blocks) give the same bits, at small blocks (many of them,
// with edges) for every blocked example (the row-reduction ones add single-threaded loop-nest
// stages to blocked stages like the others': left out, for the CI's time).
TEST(CpuThreads, ResultsDoNotDependOnTheThreadCount) {
  for (const std::string& example : example_names()) {
    if (example == "gemm_softmax" || example == "layernorm" || example == "rmsnorm") continue;
    const std::string text = example_text(example);
    const Program program =
        compile_text(text, sizes_used(text, {{"M", 100}, {"N", 130}, {"K", 70}, {"B", 2}, {"H", 2}, {"R", 2}}), example + ".tc");
    expect_same_results_on_1_2_3_threads(example, program);
  }
}

// B packed once per call by the entry function and shared by every row block (and every
// thread): three column blocks of 24, row blocks of 32 with a tail, k in slices with a tail
// (gemm_bias_relu), the batch-reduce index (brgemm) and f32 (gemm_f32): the same bits on 1,
// 2 and 3 threads, and the code does share B (else the test proves nothing).
TEST(CpuThreads, SharedPackedBGivesTheSameResultsOnAnyThreadCount) {
  for (const std::string example : {"gemm_bias_relu", "brgemm", "gemm_f32"}) {
    const std::string text = example_text(example);
    const Program program =
        compile_text(text, sizes_used(text, {{"M", 100}, {"N", 72}, {"K", 70}, {"R", 3}}), example + ".tc");
    EXPECT_NE(emit_cpu(program, small_parallel_blocks().cpu_schedule).find(".pack_b("), std::string::npos)
        << example << ": B not shared";
    expect_same_results_on_1_2_3_threads(example, program);
  }
}

// Stages of fewer blocks than threads split their blocks (schedule/cpu_parallel_stages.h): at
// the default blocking, a 196 x 144 x 600 GEMM + bias + ReLU and a 1x1 convolution of 196
// pixels are one block, split for 2 and 3 threads; the same bits as on one thread.
TEST(CpuThreads, BlocksSplitForTheThreadsGiveTheSameResults) {
  for (const auto& [example, sizes] :
       {std::pair<std::string, SizeBindings>{"gemm_bias_relu", {{"M", 196}, {"N", 144}, {"K", 600}}},
        std::pair<std::string, SizeBindings>{"conv2d_1x1", {{"N", 1}, {"H", 14}, {"W", 14}, {"C", 600}, {"K", 144}}}}) {
    const Program program = compile_text(example_text(example), sizes, example + ".tc");
    RunRequest request;
    request.target = Target::cpu;
    request.cpu_schedule.target = default_cpu_target();
    request.cpu_schedule.min_parallel_flops = 0;
    request.repeats = 0;
    std::optional<reference::TensorData> one_thread;
    for (int threads : {1, 2, 3}) {
      request.cpu_schedule.threads = threads;
      if (threads > 1) {
        const CpuPlan plan = plan_cpu(program, request.cpu_schedule);
        EXPECT_GE(stage_blocks(plan.stages.back()), threads) << example << ": not split";
      }
      const RunReport report = run_program(program, request);
      EXPECT_TRUE(report.check.ok) << example << " on " << threads << " threads: " << report.check.to_string();
      if (!one_thread) one_thread = report.outputs;
      else EXPECT_TRUE(report.outputs == *one_thread) << example << ": " << threads << " threads differ from 1";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(LoopNests, RunExample, ::testing::ValuesIn(loop_nest_cases()),
                         [](const auto& info) { return case_name(info.param); });

// Every reduction operator, with and without '!', into temporaries and outputs (whose
// initial values `op=` reads), every function, a scalar result: plain loop nests against
// the exact reference.
TEST(LoopNest, EveryOperatorAndFunction) {
  const Program program = compile_text(R"(
def row_ops(f32(M, N) X, f16(N) b) -> (f32(M) out, f32(M) acc, bf16(M) lo, f32() total) {
  mx(m) max=! X(m, n)
  mn(m) min=! abs(X(m, n)) - 0.5
  p(m) *=! 1 + X(m, n) * 0.125
  s(m) +=! exp(X(m, n) - mx(m))
  acc(m) max= X(m, n) * b(n)
  acc(m) *= 1 + X(m, n) * 0.01
  lo(m) min= X(m, n)
  total() +=! s(m) * 2
  out(m) = log(s(m)) + sqrt(abs(mn(m))) * rsqrt(p(m) * p(m) + 1e-5) + silu(mx(m)) + gelu_tanh(mn(m)) +
           gelu_erf(mx(m)) - gelu(p(m)) + max(lo(m), -0.25) / N
})", {{"M", 13}, {"N", 29}}, "row_ops.tc");
  RunRequest request;
  request.target = Target::cpu;
  request.repeats = 0;
  for (std::uint64_t seed : {1, 2, 3}) {
    request.seed = seed;
    const RunReport report = run_program(program, request);
    EXPECT_TRUE(report.check.ok) << report.check.to_string() << "\n" << report.library;
  }
}

}  // namespace
}  // namespace polyfuse::testing

namespace polyfuse::testing {
namespace {

// The CPU target with small blocks, untimed, on the inputs of `seed`.
RunRequest quick_request(std::uint64_t seed) {
  RunRequest request;
  request.target = Target::cpu;
  request.cpu_schedule.target = default_cpu_target();
  request.cpu_schedule.blocking = {32, 24, 32};
  request.repeats = 0;
  request.seed = seed;
  return request;
}

// `request` running `source` in place of the emitted C++.
RunRequest with_source(RunRequest request, std::string source) {
  request.kernel_source = std::move(source);
  return request;
}

// Statements the blocks do not take, beside matmuls, as loop-nest stages between the blocked
// ones: a padded shifted read, a '?:' with an index value, a row max feeding a pointwise stage
// and a column sum of a matmul's result read again by a second matmul; odd shapes, small
// blocks (several blocks and edges), against the exact reference.
TEST(CpuLoopNestStages, BesideMatmulsMatchTheReference) {
  const Program program = compile_text(R"(
def mixed(f16(M, K) A, f16(K, N) B, f16(M, N) X, f16(N, P) W) -> (f16(M, N) D, f32(M, P) Y) {
  C(m, n) +=! A(m, k) * B(k, n)
  S(m, n) = C(m, n) + X(m, n + 1) where X = 0 outside
  mx(m) max=! S(m, n)
  T(m, n) = n < 3 ? S(m, n) - mx(m) : relu(S(m, n) - mx(m) * 0.5)
  D(m, n) = T(m, n)
  colsum(n) +=! T(m, n)
  Y(m, p) +=! T(m, n) * W(n, p) + colsum(n) * 0.0
})", {{"M", 37}, {"N", 29}, {"K", 19}, {"P", 26}}, "mixed.tc");
  const CpuPlan plan = plan_cpu(program, quick_request(1).cpu_schedule);
  int loop_nests = 0;
  for (const CpuStage& stage : plan.stages) loop_nests += stage.loop_nest.has_value();
  EXPECT_GE(loop_nests, 3) << to_string(plan);
  for (std::uint64_t seed : {1, 2}) {
    const RunReport report = run_program(program, quick_request(seed));
    EXPECT_TRUE(report.check.ok) << report.check.to_string() << "\n" << report.library;
  }
}

// Issue 21's attention program on the CPU target (its GPU plan: plan_emu_test.cc's
// PlanEmu.AttentionRunsAsAPlan), odd sizes.
TEST(CpuLoopNestStages, AttentionMatchesTheReference) {
  const Program program = compile_text(R"(
def attention(f16(B, H, S, D) Q, f16(B, H, T, D) Kt, f16(B, H, T, D) V) -> (f16(B, H, S, D) O) {
  L(b, h, s, t) +=! Q(b, h, s, d) * Kt(b, h, t, d)
  mx(b, h, s) max=! L(b, h, s, t)
  e(b, h, s, t) = exp(L(b, h, s, t) * 0.125 - mx(b, h, s) * 0.125)
  z(b, h, s) +=! e(b, h, s, t)
  O(b, h, s, d) +=! e(b, h, s, t) * V(b, h, t, d) / z(b, h, s)
})", {{"B", 1}, {"H", 2}, {"S", 19}, {"T", 37}, {"D", 16}}, "attention.tc");
  const RunReport report = run_program(program, quick_request(1));
  EXPECT_TRUE(report.check.ok) << report.check.to_string() << "\n" << report.library;
}

// examples/attention.tc on the CPU target at odd sizes and at a head's (D = 64), in f16 as
// written and in f32 (its golden schedule and code: emit_golden_test.cc).
TEST(CpuExamples, AttentionMatchesTheReference) {
  for (const std::string& name : attention_examples())
    for (const SizeBindings& sizes : {SizeBindings{{"B", 2}, {"S", 19}, {"T", 37}, {"D", 24}},
                                      SizeBindings{{"B", 1}, {"S", 64}, {"T", 128}, {"D", 64}}})
      for (const std::string dtype : {"", "f32"}) {
        SCOPED_TRACE(fmt::format("{} {} T={}", name, dtype, sizes.at("T")));
        const Program program = compile_text(example_text(name, dtype), sizes, name + ".tc");
        const RunReport report = run_program(program, quick_request(1));
        EXPECT_TRUE(report.check.ok) << report.check.to_string() << "\n" << report.library;
      }
}

// The check is not vacuous: emitted code with a first touch that keeps the (random)
// old outputs, or with the epilogue's bias dropped, fails it.
TEST(RunCheck, WrongCodeFailsTheCheck) {
  const Program gemm =
      compile_text(example_text("gemm", "f32"), {{"M", 40}, {"N", 30}, {"K", 20}});
  std::string accumulating = emit_cpu(gemm, quick_request(3).cpu_schedule);
  const std::size_t first_touch = accumulating.find(".accumulate = false");
  ASSERT_NE(first_touch, std::string::npos);
  accumulating.replace(first_touch, 19, ".accumulate = true");  // C starts from random values
  const auto report = run_program(gemm, with_source(quick_request(3), accumulating));
  EXPECT_FALSE(report.check.ok);
  EXPECT_EQ(report.check.to_string().rfind("check: FAILED (", 0), 0u) << report.check.to_string();

  const Program program =
      compile_text(example_text("gemm_bias_relu"), {{"M", 40}, {"N", 30}, {"K", 20}});
  std::string no_bias = emit_cpu(program, quick_request(3).cpu_schedule);
  const std::size_t bias = no_bias.find("bias + n0");
  ASSERT_NE(bias, std::string::npos);
  no_bias.replace(bias, 9, "bias + 0 ");  // every column block reads the first bias values
  EXPECT_FALSE(run_program(program, with_source(quick_request(3), no_bias)).check.ok);
}

TEST(RunCheck, ReportHasCheckTimeAndFlops) {
  const Program program = compile_text(example_text("gemm"), {{"M", 64}, {"N", 64}, {"K", 64}});
  RunRequest request = quick_request(1);
  request.repeats = 2;
  const RunReport report = run_program(program, request);
  EXPECT_TRUE(report.check.ok);
  EXPECT_EQ(report.flops, 2 * 64 * 64 * 64);
  EXPECT_EQ(report.timed_runs, 2);
  EXPECT_GT(report.median_ms, 0);
  EXPECT_GT(report.flops_per_second(), 0);
  EXPECT_EQ(report.check.to_string().rfind("check: ok (max abs err ", 0), 0u) << report.check.to_string();
  EXPECT_FALSE(report.library.empty());
  // A second load of the same code comes from the cache.
  EXPECT_TRUE(run_program(program, request).cached);
}

// More than the examples: column-major operands, `+=` into an output, a factor prologue,
// mixed types, broadcasts along rows and columns, a chain of epilogues, a constant.
TEST(RunCheck, MoreIdioms) {
  const std::vector<std::pair<std::string, SizeBindings>> programs = {
      {R"(def colmajor(f16(K, M) At, bf16(N, K) Bt, f32(M, N) R0) -> (f32(M, N) C) {
  C(m, n) += At(k, m) * Bt(n, k)
})", {{"M", 37}, {"N", 29}, {"K", 70}}},
      {R"(def chain(bf16(M, K) A, bf16(K, N) B, bf16(M) scale, f32(N) shift, bf16(M, N) res) -> (bf16(M, N) D, f32(M, N) E) {
  C(m, n) +=! sigmoid(A(m, k)) * B(k, n)
  D(m, n) = max(gelu(C(m, n) * scale(m) - shift(n)), res(m, n) / 2) + tanh(-C(m, n))
  E(m, n) = exp(min(C(m, n), 0.5)) + D(m, n)
})", {{"M", 50}, {"N", 33}, {"K", 41}}},
      {R"(def shared_weight(f16(B, M, K) A, f16(K, N) W, f16(M, K) X, f16(B, N, K) V) -> (f16(B, M, N) C, f16(B, M, N) D) {
  C(b, m, n) +=! A(b, m, k) * W(k, n)
  D(b, m, n) +=! X(m, k) * V(b, n, k)
})", {{"B", 3}, {"M", 37}, {"N", 29}, {"K", 41}}},
      {R"(def prologue_operands(f16(M, K) A, f16(K) g, f16(M) s, f16(K, N) B, f16(N) t) -> (f16(M, N) C) {
  C(m, n) +=! relu(A(m, k) * g(k) + s(m)) * (B(k, n) - t(n))
})", {{"M", 37}, {"N", 29}, {"K", 41}}},
      {R"(def pointwise_only(f16(B, N) x, f16(N) y) -> (f16(B, N) z) {
  z(b, n) = relu(x(b, n) - y(n)) * 3
})", {{"B", 5}, {"N", 77}}},
  };
  for (const auto& [text, sizes] : programs) {
    const Program program = compile_text(text, sizes);
    const auto report = run_program(program, quick_request(5));
    EXPECT_TRUE(report.check.ok) << program.name << ": " << report.check.to_string() << "\n"
                                 << report.library;
  }
}

}  // namespace
}  // namespace polyfuse::testing
