// Integer tensors and gathers on the GPU path (issue 23 item 3), run on the emulator against
// the exact reference: TC's lookup table (a gathered reduction), a gathered column with an
// integer output, a gathered matmul operand (a reduction kernel: integer data never goes on
// tensor cores), and the run-time bounds check (an index one past the dimension is an
// emulator error naming the tensor; the reference refuses it too). Small odd shapes.
#include <gtest/gtest.h>

#include <algorithm>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "runtime/reference/evaluate_exact.h"
#include "runtime/reference/tensor_data.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

EmuRun run(const std::string& source, const SizeBindings& sizes) {
  const Program program = compile_program(source, sizes);
  GpuOptions options;
  options.arch = Arch::sm_80;
  return run_on_emulator(program, options);
}

TEST(GatherEmu, LookupTableReduction) {
  const std::string lut = R"(def lut(float(E, D) LUT, int32(B, L) I) -> (O) {
  O(i, j) +=! LUT(I(i, k), j)
})";
  for (const SizeBindings& sizes : {SizeBindings{{"E", 7}, {"D", 5}, {"B", 3}, {"L", 4}},
                                    SizeBindings{{"E", 8}, {"D", 6}, {"B", 4}, {"L", 2}}}) {
    const EmuRun result = run(lut, sizes);
    EXPECT_TRUE(result.check.ok) << result.check.to_string();
  }
}

TEST(GatherEmu, GatheredColumnsAndIntegerOutputs) {
  const EmuRun result = run(R"(def perm(float(B, N) X, int64(N) Idx, uint8(B, N) M, int32(N) S) -> (O, Count) {
  O(b, n) = M(b, n) == 1 ? X(b, Idx(n)) : -X(b, n)
  Count(n) +=! (r < n) ? S(r) * 2 : 1 where n in 0:N
})", {{"B", 3}, {"N", 5}});
  EXPECT_TRUE(result.check.ok) << result.check.to_string();
}

// An integer element written twice in one pointwise kernel (found by scripts/random-programs,
// seed 1266): the second statement reads the element as stored (rounded, saturated), not the
// f32 value before the store; the thread's local used to keep the latter (112 of 425 elements
// off by one). A uint8 output saturates a negative value to 0 before it is read back.
TEST(GatherEmu, IntegerElementReadAfterItsStoreIsTheStoredValue) {
  const EmuRun result = run(R"(def twice(int32(M, N) I, f32(M, N) X, f32(N) V) -> (int64(M, N) Z, uint8(M, N) U, f32(M, N) O) {
  Z(i, j) = I(i, j) + X(i, j)
  Z(i, j) += X(i, j) * 0.5
  U(i, j) = X(i, j) - 0.25
  U(i, j) += 1
  O(i, j) = Z(i, j) * V(j) + U(i, j)
})", {{"M", 17}, {"N", 25}});
  EXPECT_TRUE(result.check.ok) << result.check.to_string();
}

TEST(GatherEmu, GatheredMatmulOperandIsAReductionKernel) {
  const std::string source = R"(def embed_mm(f16(E, K) W, int32(B) I, f16(K, N) X) -> (O) {
  O(b, n) +=! W(I(b), k) * X(k, n)
})";
  const SizeBindings sizes = {{"E", 9}, {"K", 16}, {"B", 5}, {"N", 8}};
  const EmuRun result = run(source, sizes);
  EXPECT_TRUE(result.check.ok) << result.check.to_string();
  const Program program = compile_program(source, sizes);
  const std::string plan = to_string(plan_program(program, recognize_idioms(program)), program);
  EXPECT_NE(plan.find("integer tensors and gathers run in memory-bound kernels"), std::string::npos) << plan;
}

TEST(GatherEmu, OutOfRangeIndexIsAnError) {
  // I's values are drawn in 0..E-1, so I(b) + 1 reaches E for some b (seed 1: checked below).
  const std::string source = R"(def shifted(float(E, D) W, int32(B) I) -> (O) {
  O(b, d) = W(I(b) + 1, d)
})";
  const SizeBindings sizes = {{"E", 3}, {"D", 2}, {"B", 8}};
  const Program program = compile_program(source, sizes);
  const reference::TensorData inputs = reference::random_tensors(program, 1);
  const std::vector<float>& index = inputs.at("I");
  ASSERT_NE(std::find(index.begin(), index.end(), 2.0f), index.end()) << "no index at the last row: pick another seed";
  try {
    run(source, sizes);
    FAIL() << "an out-of-range gather ran";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("gather out of range"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("of dimension 1 of W, which holds 0..2"), std::string::npos) << e.what();
  }
  try {
    reference::evaluate_exact(program, inputs);
    FAIL() << "the reference read outside W";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("gather out of range: S0 reads W at position 3 of dimension 1, which holds "
                                         "0..2 (I holds 2 at b = "),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace polyfuse
