// General contractions run as GEMMs over grouped indices (schedule/contraction_to_gemm.h) on
// the emulator against the exact reference of the original program: the cases of
// tests/support/contraction_cases.h, with and without permutation copies, f16 and bf16 (two
// cases) on tensor cores (sm_80, and sm_90a once), at sizes that are not tile multiples; an f32
// contraction on TF32 tensor cores, and with `f32_matmul` f32 a reduction kernel; an operand
// computed by an earlier kernel (read from the f32 workspace).
#include <gtest/gtest.h>

#include <algorithm>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/program_plan.h"
#include "support/contraction_cases.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// `source` (one def) planned and run on the emulator; the check must pass, and the
// contraction must run in a tensor-core kernel (as a matmul the idioms take as written, or as
// a GEMM over a grouped view) when `tensor_cores`.
bool runs_on_tensor_cores(const ProgramPlan& plan) {
  return std::any_of(plan.kernels.begin(), plan.kernels.end(),
                     [](const PlannedKernel& k) { return k.kind == PlannedKernelKind::fused_matmul; });
}

void expect_contraction_runs(const std::string& source, const SizeBindings& sizes, bool tensor_cores = true,
                             Arch arch = Arch::sm_80, F32Matmul f32 = F32Matmul::tf32) {
  const Program program = compile_program(source, sizes);
  const std::string plan = to_string(plan_program(program, recognize_idioms(program), f32), program);
  EXPECT_EQ(runs_on_tensor_cores(plan_program(program, recognize_idioms(program), f32)), tensor_cores) << plan;
  GpuOptions options;
  options.arch = arch;
  options.f32_matmul = f32;
  options.choose_warp = true;
  const reference::CheckReport check = run_on_emulator(program, options).check;
  EXPECT_TRUE(check.ok) << check.to_string() << "\n" << plan;
}

class ContractionEmu : public ::testing::TestWithParam<Contraction> {};

TEST_P(ContractionEmu, F16MatchesTheReference) { expect_contraction_runs(def_of(GetParam(), "f16"), GetParam().sizes); }

// The cases but TC's first two Kronecker factors, which the matmul idiom takes as written (a
// batch index in A only: tests/codegen/batch_dims_emu_test.cc runs that path).
std::vector<Contraction> grouped_cases() {
  std::vector<Contraction> cases;
  for (const Contraction& c : contractions())
    if (c.name != "kronecker3_1" && c.name != "kronecker3_2") cases.push_back(c);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, ContractionEmu, ::testing::ValuesIn(grouped_cases()),
                         [](const ::testing::TestParamInfo<Contraction>& info) { return info.param.name; });

// bf16 operands: a case with views only and one with copies of an operand and the output.
TEST(ContractionEmu, Bf16MatchesTheReference) {
  for (const Contraction& c : contractions()) {
    if (c.name != "tensordot" && c.name != "batch_in_middle") continue;
    SCOPED_TRACE(c.name);
    expect_contraction_runs(def_of(c, "bf16"), c.sizes);
  }
}

// examples/tensordot.tc with the sm_90a main loop (TMA + wgmma) over the grouped view.
TEST(ContractionEmu, TensordotExampleWithTheSm90aMainLoop) {
  expect_contraction_runs(example_source("tensordot"), {{"A", 8}, {"B", 8}, {"K", 4}, {"L", 16}, {"C", 64}}, true,
                          Arch::sm_90a);
}

// Epilogues in the grouped GEMM's kernel: one kernel, T and O written by it.
TEST(ContractionEmu, EpiloguesInTheGemmKernel) {
  for (const Contraction& c : contractions()) {
    if (c.name != "tensordot_epilogue") continue;
    const Program program = compile_program(def_of(c, "f16"), c.sizes);
    EXPECT_EQ(plan_program(program, recognize_idioms(program)).kernels.size(), 1u);
  }
}

// f32 operands: a TF32 tensor-core GEMM over the grouped view by default, a reduction kernel
// with `f32_matmul` f32; both right within their mode's bound.
TEST(ContractionEmu, F32RunsOnTf32TensorCoresOrAsAReductionKernel) {
  expect_contraction_runs(def_of(contractions()[0], "f32"), contractions()[0].sizes);
  expect_contraction_runs(def_of(contractions()[0], "f32"), contractions()[0].sizes, false, Arch::sm_80, F32Matmul::f32);
}

// An operand computed by an earlier kernel is read from the plan's f32 workspace, never as its
// 16-bit type: viewed as it is, the GEMM has operands of two types (f32 and f16: TF32 tensor
// cores, the f16 one widened); copied into [M][K] order, the copy converts it (16-bit tensor
// cores). Both on tensor cores; with `f32_matmul` f32 the viewed one is a reduction kernel.
TEST(ContractionEmu, OperandComputedIntoTheWorkspace) {
  const SizeBindings sizes{{"A", 3}, {"B", 5}, {"K", 4}, {"L", 6}, {"C", 16}};
  const std::string viewed = R"(def viewed(f16(A, B, K, L) X, f16(K, L, C) Y) -> (f16(A, B, C) O) {
  T(a, b, k, l) = relu(X(a, b, k, l))
  O(a, b, c) +=! T(a, b, k, l) * Y(k, l, c)
})";
  expect_contraction_runs(viewed, sizes);
  expect_contraction_runs(viewed, sizes, false, Arch::sm_80, F32Matmul::f32);
  expect_contraction_runs(R"(def copied(f16(A, K, B, L) X, f16(K, L, C) Y) -> (f16(A, B, C) O) {
  T(a, k, b, l) = relu(X(a, k, b, l))
  O(a, b, c) +=! T(a, k, b, l) * Y(k, l, c)
})",
                          sizes);
}

}  // namespace
}  // namespace polyfuse
