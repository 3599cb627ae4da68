// Plans of several kernels (schedule/program_plan.h) run on the emulator against the exact
// reference: the row-reduction examples (with and without a matmul) at power-of-two and odd
// sizes, rows reduced by one warp (<= 1024 terms) and by one block (more), row chains kept in
// registers and re-read (the emulator's byte counters show how often a row is read), every reduction
// operator with and without its initial value, a softmax of large inputs (the max is
// subtracted: no overflow), and programs the GPU path used to refuse as unfusable.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/cuda_plan.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "polyfuse/errors.h"
#include "schedule/program_plan.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// The emulator run of `source` with `sizes`; the check must pass.
void expect_plan_runs(const std::string& source, const SizeBindings& sizes, std::size_t min_kernels = 2,
                      Arch arch = Arch::sm_90) {
  const Program program = compile_program(source, sizes);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_GE(plan.kernels.size(), min_kernels) << to_string(plan, program);
  GpuOptions options;
  options.arch = arch;
  options.choose_warp = true;
  const EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string() << "\n" << to_string(plan, program);
}

struct ExampleShape {
  std::string example;
  SizeBindings sizes;
  std::size_t kernels = 2;  // in the plan
};

void PrintTo(const ExampleShape& e, std::ostream* out) { *out << e.example; }

class PlanExamplesEmu : public ::testing::TestWithParam<ExampleShape> {};

TEST_P(PlanExamplesEmu, MatchesTheReference) {
  const Program program = compile_program(example_source(GetParam().example), GetParam().sizes);
  EXPECT_EQ(plan_program(program, recognize_idioms(program)).kernels.size(), GetParam().kernels);
  expect_plan_runs(example_source(GetParam().example), GetParam().sizes, GetParam().kernels);
}

std::vector<ExampleShape> example_shapes() {
  std::vector<ExampleShape> shapes;
  // One row-chain kernel each.
  for (const char* example : {"softmax", "layernorm_rows", "cross_entropy"}) {
    shapes.push_back({example, {{"M", 64}, {"N", 128}}, 1});
    shapes.push_back({example, {{"M", 37}, {"N", 101}}, 1});    // one access a term
    shapes.push_back({example, {{"M", 3}, {"N", 1500}}, 1});    // more than 1024 terms: one block a row
    shapes.push_back({example, {{"M", 2}, {"N", 9000}}, 1});    // the rows do not fit in registers: re-read
    shapes.push_back({example, {{"M", 1}, {"N", 1}}, 1});
  }
  // The matmul kernel, then one row-chain kernel: rows wider than a block tile (the narrower
  // ones run in the matmul kernel's epilogue: fused_row_chain_emu_test.cc).
  for (const char* example : {"gemm_softmax", "layernorm", "rmsnorm"}) {
    shapes.push_back({example, {{"M", 37}, {"N", 301}, {"K", 19}}});
    shapes.push_back({example, {{"M", 5}, {"N", 1100}, {"K", 8}}});
  }
  return shapes;
}

INSTANTIATE_TEST_SUITE_P(Examples, PlanExamplesEmu, ::testing::ValuesIn(example_shapes()),
                         [](const ::testing::TestParamInfo<ExampleShape>& info) {
                           return example_test_name(info.param.example, info.param.sizes);
                         });

// Inputs scaled to +-1000: exp(X) alone would overflow f32 (exp(88.7) is its largest value),
// exp(X - max) never does.
TEST(PlanEmu, SoftmaxOfLargeInputsDoesNotOverflow) {
  const char* source =
      "def softmax_large(f32(M, N) X) -> (f32(M, N) Y) {\n"
      "  Z(m, n) = X(m, n) * 1000\n"
      "  mx(m) max=! Z(m, n)\n"
      "  e(m, n) = exp(Z(m, n) - mx(m))\n"
      "  s(m) +=! e(m, n)\n"
      "  Y(m, n) = e(m, n) / s(m)\n"
      "}\n";
  expect_plan_runs(source, {{"M", 19}, {"N", 77}}, 1);
  expect_plan_runs(source, {{"M", 2}, {"N", 2049}}, 1);
  expect_plan_runs(source, {{"M", 2}, {"N", 8500}}, 1);  // re-read
}

// The emulator's byte counters: a row chain kept in registers reads its input once and writes
// its output once (softmax: max, exp, sum and divide in one kernel); one whose rows do not fit
// reads the input once per loop over the row (3 for softmax: the max, the sum, the quotient).
TEST(PlanEmu, RowChainsReadEachRowOnce) {
  struct Case {
    SizeBindings sizes;
    std::uint64_t passes;
  };
  for (const Case& c : {Case{{{"M", 64}, {"N", 128}}, 1}, Case{{{"M", 5}, {"N", 2000}}, 1},
                        Case{{{"M", 37}, {"N", 101}}, 1}, Case{{{"M", 2}, {"N", 9000}}, 3}}) {
    const Program program = compile_program(example_source("softmax"), c.sizes);
    const std::uint64_t bytes = 2ull * c.sizes.at("M") * c.sizes.at("N");
    const EmuRun run = run_on_emulator(program, GpuOptions{});
    ASSERT_TRUE(run.check.ok) << run.check.to_string();
    ASSERT_NE(run.stats.buffer("X"), nullptr);
    ASSERT_NE(run.stats.buffer("Y"), nullptr);
    EXPECT_EQ(run.stats.buffer("X")->bytes_loaded, c.passes * bytes) << run.stats.details();
    EXPECT_EQ(run.stats.buffer("Y")->bytes_stored, bytes) << run.stats.details();
    EXPECT_EQ(run.stats.counter("global_bytes_loaded"), c.passes * bytes) << run.stats.details();
  }
  // Layer norm's row (mean, variance, normalise): X once, gamma and beta once a row.
  const Program layernorm = compile_program(example_source("layernorm_rows"), {{"M", 16}, {"N", 256}});
  const EmuRun run = run_on_emulator(layernorm, GpuOptions{});
  ASSERT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_EQ(run.stats.buffer("X")->bytes_loaded, 2u * 16 * 256) << run.stats.details();
}

// 128-bit row accesses of every element type: bf16 rows read and f32 rows written (8 terms a
// vector: two 128-bit stores of f32), f32 rows read and bf16 written, and a row length that is
// no multiple of the vector (term by term).
TEST(PlanEmu, RowChainsOfEveryElementType) {
  for (const char* types : {"bf16(M, N) X) -> (f32(M, N) Y", "f32(M, N) X) -> (bf16(M, N) Y"})
    for (std::int64_t n : {64, 200, 45}) {
      SCOPED_TRACE(fmt::format("{}, N = {}", types, n));
      expect_plan_runs(fmt::format("def rows({}) {{\n"
                                   "  mx(m) max=! X(m, n)\n"
                                   "  s(m) +=! exp(X(m, n) - mx(m))\n"
                                   "  Y(m, n) = exp(X(m, n) - mx(m)) / s(m)\n"
                                   "}}\n",
                                   types),
                       {{"M", 11}, {"N", n}}, 1);
    }
}

// A layer norm of rows with a large mean (1e4 + noise): the variance is taken of the centred
// row (two passes over the registers), so it keeps its precision.
TEST(PlanEmu, LayerNormWithALargeMean) {
  const char* source =
      "def layernorm_offset(f32(M, N) X, f32(N) gamma, f32(N) beta) -> (f32(M, N) Y) {\n"
      "  Z(m, n) = X(m, n) + 10000\n"
      "  mean(m) +=! Z(m, n) / N\n"
      "  d(m, n) = Z(m, n) - mean(m)\n"
      "  var(m) +=! d(m, n) * d(m, n) / N\n"
      "  Y(m, n) = d(m, n) * rsqrt(var(m) + 1e-5) * gamma(n) + beta(n)\n"
      "}\n";
  expect_plan_runs(source, {{"M", 9}, {"N", 300}}, 1);
  expect_plan_runs(source, {{"M", 2}, {"N", 5000}}, 1);
}

// Every reduction operator, initialised (`op=!`) or from the output's value (`op=`), by warps
// and by blocks, into a row and into a scalar.
TEST(PlanEmu, EveryReductionOperator) {
  for (const char* op : {"+=!", "*=!", "max=!", "min=!", "+=", "*=", "max=", "min="})
    for (int n : {24, 1025}) {
      SCOPED_TRACE(fmt::format("{} over {} terms", op, n));
      // |1 + X/n| stays near 1, so a product of many terms neither overflows nor vanishes.
      expect_plan_runs(fmt::format("def r(f32(M, N) X) -> (f32(M) Y, f32() T) {{\n"
                                   "  Y(m) {0} 1 + X(m, n) / N\n"
                                   "  T() {0} 1 + Y(m) / M\n"
                                   "}}\n",
                                   op),
                       {{"M", 9}, {"N", n}});
    }
}

// Reductions over an outer index (a column sum: strided loads), over two indices (into a
// scalar), and a temporary updated in place inside a pointwise kernel.
TEST(PlanEmu, ColumnScalarAndInPlaceStatements) {
  expect_plan_runs("def c(f16(M, N) X) -> (f32(N) colsum, f32() total, f16(M, N) Y) {\n"
                   "  colsum(n) +=! X(m, n)\n"
                   "  total() max=! X(m, n) * X(m, n)\n"
                   "  T(m, n) = X(m, n) * 2\n"
                   "  T(m, n) = T(m, n) + colsum(n)\n"
                   "  Y(m, n) = T(m, n) / total()\n"
                   "}\n",
                   {{"M", 45}, {"N", 29}}, 3);
}

// The fuzzer's seeds that need plans: every reduction operator over expressions, a tensor
// updated by statements of several kernels (`acc max=!`, then `acc min=`, then `acc *=`), and
// f32 matmuls (a matrix-vector product, a Gram matrix) as reduction kernels.
TEST(PlanEmu, FuzzSeedsOfReductions) {
  const std::string row_ops = read_text_file(source_path("tests/fuzz/seeds/row_reductions.tc"));
  const std::string gemv = read_text_file(source_path("tests/fuzz/seeds/reductions.tc"));
  ASSERT_FALSE(row_ops.empty() || gemv.empty());
  expect_plan_runs(row_ops, {{"M", 7}, {"N", 33}}, 3);  // a row chain, acc's `min=`, acc's `*=` and out
  expect_plan_runs(gemv, {{"M", 7}, {"K", 1030}}, 3);
  expect_plan_runs(gemv, {{"M", 40}, {"K", 9}}, 3);
}

// A matmul whose output is reduced and then used again (issue 20's "previously rejected as
// unfusable" program): one kernel, the row chain in the matmul kernel's epilogue (rowmax stored
// by each row's first warp); a plan of a matmul kernel and a row-chain kernel past 256 columns.
TEST(PlanEmu, MatmulOutputReducedAndUsedAgain) {
  const char* source =
      "def centred(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D, f32(M) rowmax) {\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n"
      "  rowmax(m) max=! C(m, n)\n"
      "  D(m, n) = relu(C(m, n) - rowmax(m))\n"
      "}\n";
  expect_plan_runs(source, {{"M", 40}, {"N", 72}, {"K", 24}}, 1);
  expect_plan_runs(source, {{"M", 33}, {"N", 65}, {"K", 17}}, 1);
  expect_plan_runs(source, {{"M", 9}, {"N", 260}, {"K", 16}}, 2);  // the matmul kernel, then a row chain
}

// Issue 21's attention program with the scale inside the exponential (`exp(L * 0.125 - mx *
// 0.125)`: not the attention kernel's form exp(X - mx), schedule/attention.h) runs as a plan of
// two kernels: the batched Q·Kᵀ on tensor cores with its row chain (max, exp, sum over t) in the
// epilogue (T fits a block tile), then e·V on TF32 tensor cores (e f32, V f16 widened) with / z
// as its epilogue (the t-invariant 1/z factored out of the sum: frontend/matmul_factors.h).
TEST(PlanEmu, AttentionRunsAsAPlan) {
  const char* source =
      "def attention(f16(B, H, S, D) Q, f16(B, H, T, D) Kt, f16(B, H, T, D) V) -> (f16(B, H, S, D) O) {\n"
      "  L(b, h, s, t) +=! Q(b, h, s, d) * Kt(b, h, t, d)\n"
      "  mx(b, h, s) max=! L(b, h, s, t)\n"
      "  e(b, h, s, t) = exp(L(b, h, s, t) * 0.125 - mx(b, h, s) * 0.125)\n"
      "  z(b, h, s) +=! e(b, h, s, t)\n"
      "  O(b, h, s, d) +=! e(b, h, s, t) * V(b, h, t, d) / z(b, h, s)\n"
      "}\n";
  expect_plan_runs(source, {{"B", 1}, {"H", 2}, {"S", 19}, {"T", 37}, {"D", 16}}, 2);
}

// Attention with its probabilities rounded to f16 (`e = f16(exp(...))`, as examples/attention.tc
// suggests): one attention kernel whose row sums add the rounded values; with the sums an
// output of the def too, two kernels: e lives in the workspace as f16 and e·V runs on 16-bit
// tensor cores, the TMA + wgmma loop on sm_90a.
TEST(PlanEmu, AttentionWithF16Probabilities) {
  std::string source = example_source("attention");
  const std::string exp = "e(b, s, t) = exp(L(b, s, t) - mx(b, s))";
  ASSERT_NE(source.find(exp), std::string::npos);
  source.replace(source.find(exp), exp.size(), "e(b, s, t) = f16(exp(L(b, s, t) - mx(b, s)))");
  const SizeBindings sizes{{"B", 2}, {"S", 37}, {"T", 48}, {"D", 24}};
  const Program program = compile_program(source, sizes);
  const std::string plan = to_string(plan_program(program, recognize_idioms(program)), program);
  EXPECT_NE(plan.find("kernel 0 attention_k0 (attention)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("e (f16 as the program says)"), std::string::npos) << plan;
  for (Arch arch : {Arch::sm_90, Arch::sm_90a}) expect_plan_runs(source, sizes, 1, arch);

  std::string stored = source;
  const std::string signature = "-> (f16(B, S, D) O)";
  ASSERT_NE(stored.find(signature), std::string::npos);
  stored.replace(stored.find(signature), signature.size(), "-> (f16(B, S, D) O, z)");
  const Program two = compile_program(stored, sizes);
  const std::string two_plan = to_string(plan_program(two, recognize_idioms(two)), two);
  EXPECT_NE(two_plan.find("temporary e: f16(2, 37, 48)"), std::string::npos) << two_plan;
  EXPECT_NE(two_plan.find("not one attention kernel: z is an output of the def"), std::string::npos) << two_plan;
  EXPECT_EQ(two_plan.find("mixed operands"), std::string::npos) << two_plan;
  for (Arch arch : {Arch::sm_90, Arch::sm_90a}) expect_plan_runs(stored, sizes, 2, arch);
}

// On sm_90a the plan's matmul kernel takes the TMA + wgmma main loop (its operands as tensor
// maps the runtime encodes); the memory-bound kernels are the same.
TEST(PlanEmu, GemmSoftmaxWithTheSm90aMainLoop) {
  expect_plan_runs(example_source("gemm_softmax"), {{"M", 64}, {"N", 264}, {"K", 64}}, 2, Arch::sm_90a);
  expect_plan_runs(example_source("rmsnorm"), {{"M", 70}, {"N", 272}, {"K", 40}}, 2, Arch::sm_90a);
}

// An epilogue that accumulates into an output (`+=` without a reduction index) or reads an
// output's value before the def writes it: refused inside the fused kernel (it would drop the
// value), run as a pointwise kernel of the plan that reads it.
TEST(PlanEmu, EpilogueReadingAnOutputsValue) {
  expect_plan_runs("def acc(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D) {\n"
                   "  C(m, n) +=! A(m, k) * B(k, n)\n"
                   "  D(m, n) += C(m, n)\n"
                   "}\n",
                   {{"M", 20}, {"N", 36}, {"K", 16}});
  expect_plan_runs("def upd(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D) {\n"
                   "  C(m, n) +=! A(m, k) * B(k, n)\n"
                   "  D(m, n) = D(m, n) * 0.5 + C(m, n)\n"
                   "}\n",
                   {{"M", 20}, {"N", 36}, {"K", 16}});
}

// Pointwise statements with no matmul (refused by the GPU path before plans): one kernel.
TEST(PlanEmu, PointwiseWithoutMatmul) {
  expect_plan_runs("def f(f16(M, N) X, f16(N) b) -> (f16(M, N) Y) {\n"
                   "  T(m, n) = X(m, n) * 2 + b(n)\n"
                   "  Y(m, n) = sigmoid(T(m, n)) * T(m, n)\n"
                   "}\n",
                   {{"M", 33}, {"N", 47}}, 1);
}

// `source`'s plan with `edit` applied to the generated source: its check result, or the
// emulator's error.
std::string broken_run(const std::string& source, const SizeBindings& sizes, SourceEdit edit) {
  const Program program = compile_program(source, sizes);
  EmuRunOptions options;
  options.edit = std::move(edit);
  try {
    return run_on_emulator(program, GpuOptions{}, options).check.to_string();
  } catch (const EmulatorError& e) {
    return e.what();
  }
}

// `text` without the first line containing `needle` after the helpers (which must be there).
std::string without_line(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle, text.find("// ==== kernel 0"));
  EXPECT_NE(at, std::string::npos) << needle;
  if (at == std::string::npos) return text;
  const std::size_t start = text.rfind('\n', at) + 1;
  return text.substr(0, start) + text.substr(text.find('\n', at) + 1);
}

// The checks catch broken row-chain kernels: a warp reduction without its shuffles (a wrong
// result), a block reduction without its barrier (a shared-memory race), a row loop that reads
// one vector past the row (a global access out of bounds).
TEST(PlanEmu, BrokenReductionKernelsFail) {
  const std::string row_sum = "def row_sum(f32(M, N) X) -> (f32(M) Y, f32(M, N) Z) {\n"
                              "  Y(m) +=! X(m, n)\n"
                              "  Z(m, n) = X(m, n) / Y(m)\n"
                              "}\n";
  const std::string no_shuffles = broken_run(row_sum, {{"M", 9}, {"N", 100}}, [](const std::string& s) {
    return without_line(s, "for (int offset = 16; offset > 0; offset /= 2)");
  });
  EXPECT_NE(no_shuffles.find("check: FAILED"), std::string::npos) << no_shuffles;
  const std::string no_barrier = broken_run(row_sum, {{"M", 2}, {"N", 2000}}, [](const std::string& s) {
    return without_line(s, "  __syncthreads();");
  });
  EXPECT_NE(no_barrier.find("race"), std::string::npos) << no_barrier;
  // Out of bounds: the row loop one term too far.
  const std::string past_the_row = broken_run(row_sum, {{"M", 3}, {"N", 100}}, [](const std::string& s) {
    std::string edited = s;
    const std::size_t at = edited.find("first < 100LL");
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos) edited.replace(at, 13, "first <= 100LL");
    return edited;
  });
  EXPECT_NE(past_the_row.find("out-of-bounds global load"), std::string::npos) << past_the_row;
}

// The plan's source: every kernel, one host launcher, no kernel twice.
TEST(PlanSource, HoldsEveryKernelAndALauncher) {
  const Program program = compile_program(example_source("gemm_softmax"), {{"M", 64}, {"N", 300}, {"K", 64}});
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  CudaEmitRequest request;
  request.helpers = CudaEmitRequest::Helpers::include;
  const EmittedPlan emitted = emit_cuda_plan(program, plan, request);
  ASSERT_EQ(emitted.kernels.size(), plan.kernels.size());
  std::size_t kernels = 0;
  for (std::size_t at = emitted.source.find("__global__ void"); at != std::string::npos;
       at = emitted.source.find("__global__ void", at + 1))
    ++kernels;
  EXPECT_EQ(kernels, plan.kernels.size());
  for (const LaunchMetadata& m : emitted.kernels)
    EXPECT_NE(emitted.source.find(fmt::format(" {}(", m.kernel)), std::string::npos) << m.kernel;
  EXPECT_NE(emitted.source.find("extern \"C\" cudaError_t polyfuse_launch_gemm_softmax(const __half* A, const __half* B, "
                                "__half* P, void* workspace, cudaStream_t stream)"),
            std::string::npos)
      << emitted.source;
  EXPECT_EQ(emitted.source.find("#include \"polyfuse_cuda.cuh\""), emitted.source.rfind("#include \"polyfuse_cuda.cuh\""));
}

}  // namespace
}  // namespace polyfuse
