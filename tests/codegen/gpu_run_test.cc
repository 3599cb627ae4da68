// Generated kernels on a real GPU (through the runtime API: NVRTC, driver launch), one test
// per kernel family and configuration, so that the GPU check kit (gpu-kit/check) reports
// pass/fail per family:
//   CudaGemm/*         every A/B layout x macro-MMA shape x split-K x stages, against the reference
//   CudaSm90a/*        the sm_90a TMA + wgmma main loop: layouts, thread-copied operands (Hopper only)
//   CudaSm90aFp8.*     the FP8 GEMM on FP8 wgmma (Hopper only)
//   CudaSm90aTf32.*    an f32 linear layer on TF32 wgmma (Hopper only)
//   CudaLarge.*        the default configuration on a 4096^3 bf16 GEMM, sampled
//   CudaFused/*        every fused example with the default tiles, against the reference
//   CudaExamples/*     every GPU example at an odd size on the GPU's own arch (sm_90a on a Hopper
//                      GPU: its TMA + wgmma kernels, the implicit GEMM's gather, the chained
//                      added matmuls) and on sm_80 (the mma.sync kernels, the landed prologues)
//   CudaAttention.*    the attention kernel on (B, S, H, D), grouped-query and shuffled layouts
//   CudaFusedVariants/* the emulator tests' epilogues, prologues, macro-MMAs and split-K, odd sizes
//   CudaOddShapes/*    one kernel per idiom with its sizes left unbound, on the 54 odd shapes
//   CudaBoundSizes/*   kernels generated for bound odd sizes (access widths, K tails)
//   CudaVsEmu/*        the same inputs on the GPU and on the emulator, compared within the
//                      reference's tolerance model (tensor cores do not sum in its order)
// Without a CUDA device every test is skipped with "no CUDA device: <why>". RunProgramOnEmu
// runs this file's harness (run_program with a kernel for unbound sizes, and without the
// reference) on the emulator and generates every fused variant, so that they are tested on
// machines without a GPU too.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <ostream>
#include <random>

#include "attention_programs.h"
#include "codegen/cuda_emitter.h"
#include "example_shapes.h"
#include "gemm_programs.h"
#include "polyfuse/device.h"
#include "runtime/api/run_program.h"
#include "runtime/reference/compare.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

RunReport run_on(Backend backend, const Program& program, const GpuOptions& options,
                 const Program* kernel_program = nullptr) {
  RunRequest request;
  request.backend = backend;
  request.options = options;
  request.repeats = 1;
  request.kernel_program = kernel_program;
  return run_program(program, request);
}

std::string shape_text(const Program& program) {
  std::string text;
  for (const auto& [name, value] : program.size_bindings) text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return text;
}

void expect_ok_on_gpu(const Program& program, const GpuOptions& options, const Program* kernel_program = nullptr) {
  const RunReport report = run_on(Backend::cuda, program, options, kernel_program);
  EXPECT_TRUE(report.check.ok) << shape_text(program) << ": " << report.check.to_string();
}

// Skips the test, visibly, on a machine without a CUDA device.
template <class Base>
class OnGpu : public Base {
 protected:
  void SetUp() override {
    if (!cuda_device_available()) GTEST_SKIP() << cuda_device_description();
  }
};

// ---- CudaGemm: layouts x macro-MMA shapes x split-K x stages -------------------------------
struct GemmConfig {
  bool a_row, b_row;
  MmaShape mma;
  int split_k, stages;
};

void PrintTo(const GemmConfig& c, std::ostream* out) {
  *out << (c.a_row ? "row" : "col") << (c.b_row ? "row" : "col") << " " << to_string(c.mma) << " split-K " << c.split_k
       << " stages " << c.stages;
}

std::vector<GemmConfig> gemm_configs() {
  std::vector<GemmConfig> configs;
  for (bool a_row : {true, false})
    for (bool b_row : {true, false})
      for (MmaShape mma : {MmaShape::m16n8k16, MmaShape::m16n16k8, MmaShape::m32n32k8})
        for (int split_k : {1, 2})
          for (int stages : {1, 2, 4}) configs.push_back({a_row, b_row, mma, split_k, stages});
  return configs;
}

std::string gemm_config_name(const ::testing::TestParamInfo<GemmConfig>& info) {
  const GemmConfig& c = info.param;
  std::string mma = to_string(c.mma);
  std::replace(mma.begin(), mma.end(), 'x', '_');
  return fmt::format("{}{}_{}_splitk{}_stages{}", c.a_row ? "row" : "col", c.b_row ? "row" : "col", mma, c.split_k,
                     c.stages);
}

using CudaGemm = OnGpu<::testing::TestWithParam<GemmConfig>>;

TEST_P(CudaGemm, MatchesReference) {
  const GemmConfig& c = GetParam();
  GpuOptions o;
  o.mma = c.mma;
  o.split_k = c.split_k;
  o.stages = c.stages;
  o.block = {128, 128, 32};
  o.warp = {64, 32, 32 / c.split_k};
  expect_ok_on_gpu(compile_program(gemm_source("f16", c.a_row, c.b_row), {{"M", 512}, {"N", 256}, {"K", 384}}), o);
}

INSTANTIATE_TEST_SUITE_P(Configs, CudaGemm, ::testing::ValuesIn(gemm_configs()), gemm_config_name);

// ---- CudaSm90a: the TMA + wgmma main loop (issue 17) on a Hopper GPU -------------------------
// Every layout, an operand copied by threads (N = 257, K = 128: issue 17's done-when shape),
// edge tiles and K tails, f16 and bf16; skipped visibly on GPUs that are not sm_90.
struct Sm90aCase {
  const char* type;
  bool a_row, b_row;
  int m, n, k;
};

std::string sm90a_case_name(const ::testing::TestParamInfo<Sm90aCase>& info) {
  const Sm90aCase& c = info.param;
  return fmt::format("{}_{}{}_{}x{}x{}", c.type, c.a_row ? "row" : "col", c.b_row ? "row" : "col", c.m, c.n, c.k);
}

class CudaSm90a : public OnGpu<::testing::TestWithParam<Sm90aCase>> {
 protected:
  void SetUp() override {
    OnGpu::SetUp();
    if (!IsSkipped() && default_arch() != Arch::sm_90a)
      GTEST_SKIP() << "the sm_90a kernels need a Hopper GPU (compute capability 9.0), this one is "
                   << cuda_device_description();
  }
};

TEST_P(CudaSm90a, MatchesReference) {
  const Sm90aCase& c = GetParam();
  expect_ok_on_gpu(compile_program(gemm_source(c.type, c.a_row, c.b_row), {{"M", c.m}, {"N", c.n}, {"K", c.k}}),
                   default_gpu_options(Arch::sm_90a));
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaSm90a,
                         ::testing::Values(Sm90aCase{"f16", true, true, 300, 257, 128}, Sm90aCase{"f16", true, true, 300, 256, 129},
                                           Sm90aCase{"f16", true, true, 512, 512, 1024}, Sm90aCase{"bf16", true, true, 129, 136, 328},
                                           Sm90aCase{"f16", false, true, 72, 136, 200}, Sm90aCase{"f16", true, false, 72, 136, 200},
                                           Sm90aCase{"bf16", false, false, 67, 130, 128}, Sm90aCase{"bf16", false, true, 66, 136, 128}),
                         sm90a_case_name);

// ---- CudaSm90aFp8: the FP8 GEMM (issue 22 item 4) on a Hopper GPU -----------------------------
// examples/gemm_fp8.tc (e4m3, scales, bias, ReLU) on FP8 wgmma, checked with the reference's
// bound for the hardware's narrower FP8 accumulator (Fp8Accumulation::hopper); whole tiles, and
// edge tiles with a K tail.
class CudaSm90aFp8 : public OnGpu<::testing::Test> {
 protected:
  void SetUp() override {
    OnGpu::SetUp();
    if (!IsSkipped() && default_arch() != Arch::sm_90a)
      GTEST_SKIP() << "FP8 wgmma needs a Hopper GPU (compute capability 9.0), this one is " << cuda_device_description();
  }
};

TEST_F(CudaSm90aFp8, GemmFp8MatchesReference) {
  for (auto [m, n, k] : {std::array{256, 256, 512}, std::array{300, 200, 208}})
    expect_ok_on_gpu(compile_program(example_source("gemm_fp8"), {{"M", m}, {"N", n}, {"K", k}}),
                     default_gpu_options(Arch::sm_90a));
}

// ---- CudaSm90aTf32: f32 matmuls on TF32 wgmma on a Hopper GPU --------------------------------
// f32 A(m, k) and B(n, k) loaded by TMA, wgmma m64nNk8.tf32 (the hardware reads TF32 out of the
// f32 tiles; the reference's TF32 bound covers rounding and truncation), bias and ReLU; whole
// tiles, and edge tiles with a K tail.
using CudaSm90aTf32 = CudaSm90aFp8;

TEST_F(CudaSm90aTf32, LinearMatchesReference) {
  const std::string source = "def linear(f32(M, K) A, f32(N, K) W, f32(N) bias) -> (f32(M, N) D) {\n"
                             "  C(m, n) +=! A(m, k) * W(n, k)\n  D(m, n) = relu(C(m, n) + bias(n))\n}\n";
  for (auto [m, n, k] : {std::array{256, 256, 512}, std::array{300, 200, 100}})
    expect_ok_on_gpu(compile_program(source, {{"M", m}, {"N", n}, {"K", k}}), default_gpu_options(Arch::sm_90a));
}

// ---- CudaLarge: 4096^3 bf16, 4096 sampled elements against a host reference ----------------
using CudaLarge = OnGpu<::testing::Test>;

TEST_F(CudaLarge, Bf16Gemm4096) {
  const int size = 4096;
  const Program program =
      compile_program(gemm_source("bf16", true, false), {{"M", size}, {"N", size}, {"K", size}});
  GpuOptions o;
  o.choose_warp = true;
  RunRequest request;
  request.backend = Backend::cuda;
  request.options = o;
  request.repeats = 1;
  request.evaluate_reference = false;  // 6.9e10 multiply-adds: sampled below instead
  const RunReport report = run_program(program, request);
  const std::vector<float>& a = report.outputs.at("A");
  const std::vector<float>& b = report.outputs.at("B");
  const std::vector<float>& c = report.outputs.at("C");
  std::mt19937 random(5);
  std::uniform_int_distribution<int> index(0, size - 1);
  std::vector<float> actual, expected;
  for (int s = 0; s < 4096; ++s) {
    const int i = index(random), j = index(random);
    actual.push_back(c[static_cast<size_t>(i) * size + j]);
    expected.push_back(reference_gemm_element(a, b, size, size, size, true, false, i, j));
  }
  const reference::CheckReport check =
      reference::compare(actual, expected, reference::tolerance_for(ElementType::bf16, size), "C (sampled)");
  EXPECT_TRUE(check.ok) << check.to_string();
}

// ---- CudaExamples: every GPU example on the GPU's arch and on sm_80 --------------------------
using CudaExamples = OnGpu<::testing::TestWithParam<ExampleShape>>;

TEST_P(CudaExamples, MatchTheReference) {
  const Program program = example_program(GetParam());
  std::vector<Arch> archs = {default_arch()};
  if (archs.front() != Arch::sm_80) archs.push_back(Arch::sm_80);
  for (const Arch arch : archs) {
    SCOPED_TRACE(to_string(arch));
    if (to_string(arch) != "sm_90a" && program.find_tensor("A") && is_fp8(program.find_tensor("A")->type)) continue;
    expect_ok_on_gpu(program, default_gpu_options(arch));
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaExamples, ::testing::ValuesIn(example_shapes(true)),
                         [](const auto& info) { return example_test_name(info.param); });

// ---- CudaAttention: the one attention kernel on tensors in other layouts ----------------------
using CudaAttention = OnGpu<::testing::Test>;

TEST_F(CudaAttention, LayoutsMatchTheReference) {
  const SizeBindings sizes{{"B", 2}, {"H", 3}, {"G", 2}, {"R", 2}, {"S", 200}, {"T", 333}, {"D", 64}, {"E", 40}};
  for (const std::string& source : {bshd_attention_source(), gqa_attention_source(), shuffled_attention_source()}) {
    const Program program = compile_program(source, sizes);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program));
    ASSERT_EQ(plan.kernels.size(), 1u) << to_string(plan, program);
    EXPECT_EQ(plan.kernels[0].kind, PlannedKernelKind::attention) << to_string(plan, program);
    for (const Arch arch : {default_arch(), Arch::sm_80}) {
      SCOPED_TRACE(program.name + " on " + to_string(arch));
      expect_ok_on_gpu(program, default_gpu_options(arch));
    }
  }
}

// ---- CudaFused: every fused example, default tiles -------------------------------------------
using CudaFused = OnGpu<::testing::TestWithParam<std::string>>;

TEST_P(CudaFused, MatchesReference) {
  GpuOptions o;
  o.choose_warp = true;
  expect_ok_on_gpu(compile_program(example_source(GetParam()), {{"M", 1024}, {"N", 512}, {"K", 256}, {"B", 4}}), o);
}

std::string example_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(Examples, CudaFused,
                         ::testing::Values("gemm_bias_relu", "relu_gemm", "add_gemms", "batched_gemm"), example_name);

// ---- CudaFusedVariants: the emulator tests' epilogues, prologues and options, odd sizes ------
struct Variant {
  std::string name;
  std::string source;
  GpuOptions options = small_tiles();
  SizeBindings sizes{{"M", 200}, {"N", 136}, {"K", 72}};
};

void PrintTo(const Variant& v, std::ostream* out) { *out << v.name; }

std::vector<Variant> fused_variants() {
  const std::string bias = ", f16(N) bias", bias_relu = "  D(m, n) = relu(C(m, n) + bias(n))";
  GpuOptions split_k2 = small_tiles();
  split_k2.split_k = 2;
  split_k2.warp = {32, 32, 16};
  std::vector<Variant> list = {
      {"bias_relu", fused_source(bias, bias_relu)},
      {"scale_along_m", fused_source(", f16(M) scale", "  D(m, n) = C(m, n) * scale(m)")},
      {"residual_add", fused_source(", f16(M, N) R", "  D(m, n) = C(m, n) + R(m, n)")},
      {"max_min", fused_source(bias, "  D(m, n) = max(C(m, n), bias(n)) - min(C(m, n), -0.5)")},
      {"chain_of_four", fused_source(bias + ", f16(M) scale", "  D(m, n) = tanh(relu(C(m, n) + bias(n)) * scale(m)) / 2")},
      {"temporary", fused_source(bias, "  T(m, n) = C(m, n) + bias(n)\n  D(m, n) = sigmoid(T(m, n)) * T(m, n)")},
      {"bf16_transposed_a", fused_source(", bf16(N) bias", bias_relu, "bf16", "(K, M) A", "A(k, m)")},
      {"batched_bias_relu",
       "def f(f16(B, M, K) A, f16(B, K, N) W, f16(N) bias) -> (f16(B, M, N) D) {\n"
       "  C(b, m, n) +=! A(b, m, k) * W(b, k, n)\n  D(b, m, n) = relu(C(b, m, n) + bias(n))\n}\n",
       small_tiles(), {{"B", 3}, {"M", 200}, {"N", 136}, {"K", 72}}},
      {"split_k2_matmul_result_live_out",
       "def f(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) C, f16(M, N) D) {\n"
       "  C(m, n) +=! A(m, k) * B(k, n)\n  D(m, n) = relu(C(m, n) + bias(n))\n}\n",
       split_k2},
      {"two_matmuls_other_k",
       "def f(f16(M, K) A, f16(K, N) B, f16(L, M) E, f16(N, L) F) -> (bf16(M, N) D) {\n"
       "  X(m, n) +=! A(m, k) * B(k, n)\n  Y(m, n) +=! E(l, m) * F(n, l)\n  D(m, n) = sigmoid(X(m, n) - Y(m, n))\n}\n",
       small_tiles(), {{"M", 200}, {"N", 136}, {"K", 72}, {"L", 40}}},
      {"inline_prologues",
       "def f(f16(K, M) A, f16(N, K) B, f16(N) bias) -> (f16(M, N) D) {\n"
       "  C(m, n) +=! relu(A(k, m)) * tanh(B(n, k) * 2)\n  D(m, n) = C(m, n) + bias(n)\n}\n"}};
  for (const char* f : {"relu", "sigmoid", "tanh", "gelu", "exp"})
    list.push_back({std::string("activation_") + f, fused_source("", fmt::format("  D(m, n) = {}(C(m, n) * 0.25)", f))});
  for (MmaShape shape : {MmaShape::m16n16k8, MmaShape::m32n32k8}) {
    Variant v{"epilogue_" + to_string(shape),
              fused_source(bias + ", f16(M) scale", "  D(m, n) = relu(C(m, n) + bias(n)) * scale(m)")};
    v.options.mma = shape;
    list.push_back(v);
  }
  for (int split : {2, 4}) {
    Variant v{fmt::format("split_k{}_epilogue", split), fused_source(bias, bias_relu)};
    v.options.split_k = split;
    v.options.block.k = 16 * split;
    v.options.warp = {32, 32, 16};
    list.push_back(v);
  }
  return list;
}

std::string variant_name(const ::testing::TestParamInfo<Variant>& info) { return info.param.name; }

using CudaFusedVariants = OnGpu<::testing::TestWithParam<Variant>>;

TEST_P(CudaFusedVariants, MatchReference) {
  const Variant& v = GetParam();
  expect_ok_on_gpu(compile_program(v.source, v.sizes), v.options);
}

INSTANTIATE_TEST_SUITE_P(Emulator, CudaFusedVariants, ::testing::ValuesIn(fused_variants()), variant_name);

// ---- Idiom families for odd shapes and the emulator comparison -------------------------------
struct Family {
  std::string name;
  std::function<std::string()> source;  // read when the test runs, not at static initialisation
  bool batched = false;
  GpuOptions options = small_tiles();
};

void PrintTo(const Family& f, std::ostream* out) { *out << f.name; }

std::function<std::string()> example(const std::string& name) {
  return [name] { return example_source(name); };
}

std::vector<Family> families() {
  GpuOptions split_k = small_tiles();
  split_k.split_k = 2;
  split_k.warp.k = 16;
  GpuOptions paper = small_tiles();
  paper.mma = MmaShape::m32n32k8;
  return {{"gemm", example("gemm")},
          {"gemm_bias_relu", example("gemm_bias_relu")},
          {"gemm_bias_relu_splitk2", example("gemm_bias_relu"), false, split_k},
          {"relu_gemm", example("relu_gemm")},
          {"add_gemms", example("add_gemms")},
          {"batched_gemm", example("batched_gemm"), true},
          {"colcol_f16_32x32x8", [] { return gemm_source("f16", false, false); }, false, paper},
          {"colrow_bf16", [] { return gemm_source("bf16", false, true); }}};
}

std::string family_name(const ::testing::TestParamInfo<Family>& info) { return info.param.name; }

// ---- CudaOddShapes: one kernel (sizes unbound) per family, every odd shape ------------------
using CudaOddShapes = OnGpu<::testing::TestWithParam<Family>>;

TEST_P(CudaOddShapes, MatchReference) {
  const Family& f = GetParam();
  const std::string source = f.source();
  const Program kernel_program = compile_program(source);
  for (const std::array<int, 3>& shape : odd_shapes())
    expect_ok_on_gpu(compile_program(source, odd_shape_sizes(shape, f.batched)), f.options, &kernel_program);
}

INSTANTIATE_TEST_SUITE_P(Idioms, CudaOddShapes, ::testing::ValuesIn(families()), family_name);

// ---- CudaBoundSizes: kernels generated for bound odd sizes -----------------------------------
using CudaBoundSizes = OnGpu<::testing::TestWithParam<std::string>>;

TEST_P(CudaBoundSizes, MatchReference) {
  const std::string source = example_source(GetParam());
  for (auto [m, n, k] : bound_shapes())
    expect_ok_on_gpu(compile_program(source, {{"M", m}, {"N", n}, {"K", k}}), small_tiles());
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaBoundSizes, ::testing::Values("gemm_bias_relu", "relu_gemm"), example_name);

// ---- CudaVsEmu: the same inputs on both backends ---------------------------------------------
using CudaVsEmu = OnGpu<::testing::TestWithParam<Family>>;

TEST_P(CudaVsEmu, AgreeWithinTolerance) {
  const Family& f = GetParam();
  const Program program = compile_program(f.source(), odd_shape_sizes({200, 136, 72}, f.batched));
  const RunReport gpu = run_on(Backend::cuda, program, f.options);
  const RunReport emu = run_on(Backend::emu, program, f.options);
  EXPECT_TRUE(gpu.check.ok) << "GPU vs reference: " << gpu.check.to_string();
  EXPECT_TRUE(emu.check.ok) << "emulator vs reference: " << emu.check.to_string();
  const reference::CheckReport agree = reference::compare_outputs(program, gpu.outputs, emu.outputs);
  EXPECT_TRUE(agree.ok) << "GPU vs emulator: " << agree.to_string();
}

INSTANTIATE_TEST_SUITE_P(Idioms, CudaVsEmu, ::testing::ValuesIn(families()), family_name);

// ---- RunProgramOnEmu: the harness above, on the emulator (no GPU needed) --------------------
TEST(RunProgramOnEmu, OneKernelForUnboundSizesServesOddShapes) {
  const std::string source = example_source("gemm_bias_relu");
  const Program kernel_program = compile_program(source);
  const std::vector<std::array<int, 3>> shapes{{1, 1, 1}, {65, 33, 17}, {200, 136, 72}};
  for (const std::array<int, 3>& shape : shapes) {
    const RunReport report = run_on(Backend::emu, compile_program(source, odd_shape_sizes(shape, false)), small_tiles(),
                                    &kernel_program);
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
    EXPECT_EQ(report.check.compared, static_cast<std::int64_t>(shape[0]) * shape[1]);
  }
}

// Every fused variant above is one the code generator accepts (a variant it refused would
// first show on a GPU machine).
TEST(RunProgramOnEmu, EveryFusedVariantGenerates) {
  for (const Variant& v : fused_variants()) {
    CudaEmitRequest request;
    request.options = v.options;
    EXPECT_NO_THROW(emit_cuda(compile_program(v.source, v.sizes), request)) << v.name;
  }
}

TEST(RunProgramOnEmu, OutputsWithoutTheReference) {
  const int m = 96, n = 80, k = 40;
  const Program program = compile_program(gemm_source("bf16", true, false), {{"M", m}, {"N", n}, {"K", k}});
  RunRequest request;
  request.options = small_tiles();
  request.evaluate_reference = false;
  const RunReport report = run_program(program, request);
  EXPECT_EQ(report.check.compared, 0);
  const std::vector<float>& c = report.outputs.at("C");
  ASSERT_EQ(c.size(), static_cast<size_t>(m) * n);
  std::vector<float> expected;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      expected.push_back(reference_gemm_element(report.outputs.at("A"), report.outputs.at("B"), m, n, k, true, false, i, j));
  const reference::CheckReport check = reference::compare(c, expected, reference::tolerance_for(ElementType::bf16, k));
  EXPECT_TRUE(check.ok) << check.to_string();
}

}  // namespace
}  // namespace polyfuse
