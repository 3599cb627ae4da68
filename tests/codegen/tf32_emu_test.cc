// f32 matmuls on the emulator in each `f32_matmul` mode (TF32 and 3xTF32 tensor cores, exact
// f32 reduction kernels): a GEMM and a GEMM + bias + ReLU at a default and an odd shape (one
// build per program and mode: sizes unbound in the kernel), each checked against the exact
// reference with its mode's bound; TF32's error shows (larger than 3xTF32's on random data),
// and a mode's bound that is too tight for another mode's result fails it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "runtime/reference/evaluate_exact.h"
#include "schedule/gpu_options.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

constexpr const char* kGemm = R"(
def gemm_f32(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! A(m, k) * B(k, n)
})";
constexpr const char* kGemmBiasRelu = R"(
def gemm_bias_relu_f32(f32(M, K) A, f32(K, N) B, f32(N) bias) -> (f32(M, N) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = relu(C(m, n) + bias(n))
})";

// The largest distance of `tensor` in `run` from the exact value.
double max_error(const Program& program, const EmuRun& run, const std::string& tensor) {
  const reference::ExactData exact = reference::evaluate_exact(program, run.outputs);
  double worst = 0;
  for (std::size_t i = 0; i < exact.at(tensor).size(); ++i)
    worst = std::max(worst, std::fabs(run.outputs.at(tensor)[i] - exact.at(tensor)[i].value));
  return worst;
}

struct Shape {
  std::int64_t m, n, k;
};

void expect_modes(const char* source, const std::string& output) {
  const Program kernel_program = compile_program(source);
  for (const Shape& shape : {Shape{64, 64, 32}, Shape{37, 45, 29}}) {
    const Program program = compile_program(source, {{"M", shape.m}, {"N", shape.n}, {"K", shape.k}});
    double error[3] = {0, 0, 0};
    EmuRun runs[3];
    const F32Matmul modes[3] = {F32Matmul::tf32, F32Matmul::x3tf32, F32Matmul::f32};
    for (int i = 0; i < 3; ++i) {
      GpuChoices choices;
      choices.arch = Arch::sm_80;
      choices.f32_matmul = modes[i];
      const GpuOptions options = gpu_options_from_choices(choices);
      runs[i] = run_on_emulator(program, options, 7, &kernel_program);
      SCOPED_TRACE(fmt::format("{} {}x{}x{}", to_string(modes[i]), shape.m, shape.n, shape.k));
      EXPECT_TRUE(runs[i].check.ok) << runs[i].check.to_string();
      error[i] = max_error(program, runs[i], output);
    }
    std::printf("%s %lldx%lldx%lld: max |error| tf32 %.3g, 3xtf32 %.3g, f32 %.3g\n", program.name.c_str(),
                static_cast<long long>(shape.m), static_cast<long long>(shape.n), static_cast<long long>(shape.k),
                error[0], error[1], error[2]);
    // TF32's rounding of the inputs shows; 3xTF32 is close to f32.
    EXPECT_GT(error[0], 16 * error[1]);
    EXPECT_LT(error[1], 1e-5);
    // TF32's result against the tighter bounds of 3xTF32 and of exact f32: they fail.
    for (F32Matmul tighter : {F32Matmul::x3tf32, F32Matmul::f32})
      EXPECT_FALSE(reference::check_outputs(program, runs[0].outputs, runs[0].outputs, tighter).ok) << to_string(tighter);
  }
}

TEST(Tf32Emu, GemmInEachMode) { expect_modes(kGemm, "C"); }

TEST(Tf32Emu, GemmBiasReluInEachMode) { expect_modes(kGemmBiasRelu, "D"); }

}  // namespace
}  // namespace polyfuse
