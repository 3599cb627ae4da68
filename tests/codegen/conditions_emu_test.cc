// `?:`, comparisons and index values (frontend/condition.h) on the GPU path, run on the
// emulator against the exact reference: a `?:` fused into a matmul kernel's epilogue and
// prologue, an index value in an epilogue (a pointwise kernel of its own: the matmul kernel
// does not take it), and in a row reduction. Small odd shapes.
#include <gtest/gtest.h>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

void expect_ok(const std::string& source, const SizeBindings& sizes, const std::string& plan_note = "") {
  const Program program = compile_program(source, sizes);
  GpuOptions options;
  options.arch = Arch::sm_90;
  options.choose_warp = true;
  const EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  if (!plan_note.empty()) {
    const std::string plan = to_string(plan_program(program, recognize_idioms(program)), program);
    EXPECT_NE(plan.find(plan_note), std::string::npos) << plan;
  }
}

TEST(ConditionsEmu, SelectInAMatmulEpilogueAndPrologue) {
  expect_ok(R"(def leaky(f16(M, K) A, f16(K, N) B) -> (O) {
  C(m, n) +=! (A(m, k) > 0 ? A(m, k) : 0) * B(k, n)
  O(m, n) = C(m, n) > 0 && C(m, n) < 4 ? C(m, n) : 0.5 * C(m, n)
})", {{"M", 33}, {"N", 17}, {"K", 24}});
}

TEST(ConditionsEmu, IndexValueAfterAMatmulIsAPointwiseKernel) {
  expect_ok(R"(def lower(f16(M, K) A, f16(K, N) B) -> (O) {
  C(m, n) +=! A(m, k) * B(k, n)
  O(m, n) = n <= m ? C(m, n) : m + 1
})", {{"M", 33}, {"N", 17}, {"K", 24}}, "an index variable used as a value is not fused into a matmul kernel yet");
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
