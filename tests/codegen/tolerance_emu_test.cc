// The reference check is exercised on the emulator: kernels with f32 outputs (so no
// output rounding hides the f32 sums) checked against the exact reference pass with a
// nonzero error, and split-K kernels, which sum in another order than the f32 reference
// evaluator, give other f32 values than it and still pass.
#include <gtest/gtest.h>

#include <cstdio>
#include <fmt/format.h>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "runtime/reference/evaluate.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// Elements of `tensor` where the emulator's values differ from the f32 reference's.
int differences_from_f32_reference(const Program& program, const EmuRun& run, const std::string& tensor,
                                   std::uint64_t seed) {
  reference::TensorData f32 = reference::random_tensors(program, seed);
  reference::evaluate(program, f32);
  int differ = 0;
  for (std::size_t i = 0; i < f32.at(tensor).size(); ++i) differ += f32.at(tensor)[i] != run.outputs.at(tensor)[i];
  return differ;
}

TEST(ToleranceEmu, F32OutputsSummedInAnotherOrderPass) {
  const Program program = compile_program(R"(
def g(f16(M, K) A, f16(K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! A(m, k) * B(k, n)
})", {{"M", 64}, {"N", 64}, {"K", 512}});
  for (MmaShape mma : {MmaShape::m16n8k16, MmaShape::m16n16k8, MmaShape::m32n32k8})
    for (int split_k : {1, 2, 4}) {
      GpuOptions options;
      options.mma = mma;
      options.split_k = split_k;
      options.block = {64, 64, 16 * split_k};
      options.warp = {32, 32, 16};
      const EmuRun run = run_on_emulator(program, options, 3);
      const std::string what = fmt::format("{} split-K {}", to_string(mma), split_k);
      EXPECT_TRUE(run.check.ok) << what << ": " << run.check.to_string();
      EXPECT_GT(run.check.max_abs_err, 0) << what;
      const int differ = differences_from_f32_reference(program, run, "C", 3);
      if (split_k > 1) {
        EXPECT_GT(differ, 0) << what << ": the same order as the f32 reference";
      }
      std::printf("%s: %s, %.3g of the bound used, %d of %d elements differ from the f32 reference\n",
                  what.c_str(), run.check.to_string().c_str(), run.check.max_tolerance_used, differ, 64 * 64);
    }
}

TEST(ToleranceEmu, FusedFunctionsWithF32OutputsPass) {
  const Program program = compile_program(R"(
def f(bf16(M, K) A, bf16(K, N) B, bf16(M) scale, bf16(N) bias) -> (f32(M, N) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = gelu(C(m, n) * scale(m)) + tanh(C(m, n) - bias(n)) / sigmoid(C(m, n))
})", {{"M", 64}, {"N", 64}, {"K", 96}});
  GpuOptions options;
  options.block = {64, 64, 32};
  options.warp = {32, 32, 32};
  const EmuRun run = run_on_emulator(program, options, 5);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_GT(run.check.max_abs_err, 0);
  std::printf("fused functions: %s, %.3g of the bound used\n", run.check.to_string().c_str(),
              run.check.max_tolerance_used);
}

}  // namespace
}  // namespace polyfuse
