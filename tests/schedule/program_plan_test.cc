// The fusion planner (schedule/program_plan.h): golden plans (`--emit=plan`) of the row-
// reduction examples and of a def that stays one fused kernel; what it refuses, located.
// UPDATE_GOLDEN=1 rewrites tests/golden/plan/*.plan.
#include <gtest/gtest.h>

#include "frontend/frontend.h"
#include "schedule/plan_from_program.h"
#include "schedule/program_plan.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

Program example(const std::string& name, const SizeBindings& sizes) {
  SourceFile source = read_source_file(polyfuse::testing::source_path("examples/" + name + ".tc"));
  source.name = "examples/" + name + ".tc";
  return compile_source(source, sizes).programs.front();
}

std::string plan_text(const Program& program) { return to_string(plan_program(program, recognize_idioms(program)), program); }

class ExamplePlan : public ::testing::TestWithParam<std::string> {};

TEST_P(ExamplePlan, MatchesGolden) {
  const Program program = example(GetParam(), {{"M", 64}, {"N", 128}, {"K", 32}});
  EXPECT_TRUE(polyfuse::testing::matches_golden(plan_text(program), "plan/" + GetParam() + ".plan"));
}

// Two matmuls chained through an f16 hidden activation (issue 21): one back-to-back kernel
// when H fits on chip (the activation in shared memory), else two tensor-core kernels with
// the activation in the workspace as f16 and a note saying why; and SwiGLU's gate, one
// kernel of one k-loop.
TEST(ExamplePlan, MatmulChainAndSharedOperand) {
  EXPECT_TRUE(polyfuse::testing::matches_golden(plan_text(example("mlp", {{"M", 64}, {"N", 128}, {"K", 32}, {"H", 96}})),
                                                "plan/mlp.plan"));
  EXPECT_TRUE(polyfuse::testing::matches_golden(plan_text(example("mlp", {{"M", 64}, {"N", 128}, {"K", 32}, {"H", 320}})),
                                                "plan/mlp_two_kernels.plan"));
  EXPECT_TRUE(polyfuse::testing::matches_golden(plan_text(example("swiglu", {{"M", 64}, {"N", 128}, {"K", 32}})),
                                                "plan/swiglu.plan"));
}

// examples/attention.tc: two kernels while T fits a block tile (Q·Kᵀ with the row chain in
// its epilogue, then e·V on TF32 tensor cores with / z), three when it does not (the chain in
// a kernel of its own, the cut says why).
TEST(ExamplePlan, Attention) {
  EXPECT_TRUE(polyfuse::testing::matches_golden(
      plan_text(example("attention", {{"B", 4}, {"S", 128}, {"T", 128}, {"D", 64}})), "plan/attention.plan"));
  EXPECT_TRUE(polyfuse::testing::matches_golden(
      plan_text(example("attention", {{"B", 4}, {"S", 128}, {"T", 300}, {"D", 64}})), "plan/attention_wide.plan"));
  // the causal mask in Q·Kᵀ's epilogue: still two kernels
  EXPECT_TRUE(polyfuse::testing::matches_golden(
      plan_text(example("causal_attention", {{"B", 4}, {"S", 128}, {"T", 128}, {"D", 64}})), "plan/causal_attention.plan"));
}

// A row of 300 columns does not fit the block tile: the matmul kernel, then the row chain's
// (the cut says why). At N = 128 (the golden above) the chain runs in the matmul kernel.
TEST(ExamplePlan, RowWiderThanTheBlockTile) {
  EXPECT_TRUE(polyfuse::testing::matches_golden(plan_text(example("gemm_softmax", {{"M", 64}, {"N", 300}, {"K", 32}})),
                                                "plan/gemm_softmax_300.plan"));
}

// The cut names the rule a row chain after a matmul breaks when it stays in a kernel of its own.
TEST(ExamplePlan, RowChainsThatStayOutOfTheMatmulKernel) {
  const auto cut_of = [](const std::string& text, const SizeBindings& sizes) {
    const Program program = compile_source(SourceFile{"p.tc", text}, sizes).programs.front();
    return plan_program(program, recognize_idioms(program)).kernels.front().cut;
  };
  // after a batched matmul the chain runs in its kernel (one cut-free kernel): rows (b, m)
  EXPECT_EQ(cut_of("def bsm(f16(B, M, K) A, f16(B, K, N) W) -> (f16(B, M, N) P) {\n"
                   "  C(b, m, n) +=! A(b, m, k) * W(b, k, n)\n"
                   "  mx(b, m) max=! C(b, m, n)\n"
                   "  P(b, m, n) = exp(C(b, m, n) - mx(b, m))\n"
                   "}\n",
                   {{"B", 2}, {"M", 20}, {"N", 24}, {"K", 16}}),
            "");
  // a max over the batch index too is no row of the matmul's output
  EXPECT_EQ(cut_of("def bsm(f16(B, M, K) A, f16(B, K, N) W) -> (f16(B, M, N) P) {\n"
                   "  C(b, m, n) +=! A(b, m, k) * W(b, k, n)\n"
                   "  mx(m) max=! C(b, m, n)\n"
                   "  P(b, m, n) = exp(C(b, m, n) - mx(m))\n"
                   "}\n",
                   {{"B", 2}, {"M", 20}, {"N", 24}, {"K", 16}}),
            "S1 (mx(m) max=! C(b, m, n)) starts a new kernel: a reduction that is not a matmul is not fused into a "
            "matmul kernel yet: it starts a memory-bound kernel, one warp or block per written element");
  EXPECT_EQ(cut_of("def acc(f16(M, K) A, f16(K, N) W) -> (f16(M, N) P, f32(M) s) {\n"
                   "  C(m, n) +=! A(m, k) * W(k, n)\n"
                   "  s(m) += C(m, n)\n"
                   "  P(m, n) = C(m, n) / s(m)\n"
                   "}\n",
                   {{"M", 20}, {"N", 24}, {"K", 16}}),
            "S1 (s(m) += C(m, n)) starts a new kernel: the row chain does not run in the matmul kernel's epilogue: S1 "
            "updates s from its value (`+=`), which the fragments do not hold");
}

INSTANTIATE_TEST_SUITE_P(Examples, ExamplePlan,
                         ::testing::Values("softmax", "layernorm_rows", "cross_entropy", "gemm_softmax", "layernorm",
                                           "rmsnorm", "gemm_bias_relu", "relu_gemm", "gemm_f32"));

TEST(ProgramPlan, OneFusedKernelStaysOneKernelWithUnboundSizes) {
  SourceFile source = read_source_file(polyfuse::testing::source_path("examples/gemm_bias_relu.tc"));
  const Program program = compile_source(source, {}).programs.front();
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_TRUE(plan.is_single_fused_kernel());
  EXPECT_EQ(plan.kernels.front().name, "gemm_bias_relu");
  EXPECT_TRUE(plan.temporaries.empty());
}

// The message of the UserError that planning `text` (sizes `sizes`) throws, "" if none.
std::string plan_error(const std::string& text, const SizeBindings& sizes) {
  try {
    const Program program = compile_source(SourceFile{"p.tc", text}, sizes).programs.front();
    plan_program(program, recognize_idioms(program));
  } catch (const UserError& e) {
    const Diagnostic& d = e.diagnostics().front();
    return d.line ? std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message : d.message;
  }
  return "";
}

TEST(ProgramPlan, SeveralKernelsNeedBoundSizes) {
  EXPECT_EQ(plan_error("def s(f32(M, N) X) -> (f32(M) Y) {\n  Y(m) max=! X(m, n)\n}\n", {{"M", 4}}),
            "1:5: def 's' is not one fused kernel, and a plan of several kernels needs every size bound (the "
            "workspace's layout is fixed at compile time): bind N");
}

// A temporary the program rounds (`e = f16(...)`) lives in the workspace in that type, and every
// kernel reading it declares it so: here e·V is a contraction (V has no g) run as a GEMM over
// grouped indices, whose view declared e f32 and read twice its bytes (found by
// scripts/random-programs; tests/programs/found/rounded_probabilities_into_a_contraction.tc).
TEST(ProgramPlan, AContractionReadsARoundedTemporaryInItsType) {
  const std::string text =
      "def a(f16(B, H, S, D) Q, f16(B, D, U) K, f16(B, U, N) V) -> (f16(B, H, S, N) O) {\n"
      "  L(b, g, s, u) +=! Q(b, g, s, d) * K(b, d, u)\n"
      "  mx(b, g, s) max=! L(b, g, s, u)\n"
      "  e(b, g, s, u) = f16(exp(L(b, g, s, u) - mx(b, g, s)))\n"
      "  z(b, g, s) +=! e(b, g, s, u)\n"
      "  P(b, g, s, n) +=! e(b, g, s, u) * V(b, u, n)\n"
      "  O(b, g, s, n) = P(b, g, s, n) / z(b, g, s)\n"
      "}\n";
  const Program program =
      compile_source(SourceFile{"p.tc", text}, {{"B", 2}, {"H", 3}, {"S", 5}, {"U", 7}, {"D", 16}, {"N", 8}}).programs.front();
  EXPECT_EQ(memory_type(program, "e"), ElementType::f16);
  EXPECT_EQ(memory_type(program, "L"), ElementType::f32);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  const PlanTemporary* e = plan.find_temporary("e");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->type, ElementType::f16);
  int readers = 0;
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const Program reads = plan.kernels[k].view ? *plan.kernels[k].view : kernel_program(program, plan, k);
    const Tensor* t = reads.find_tensor("e");
    if (!t || t->role != TensorRole::input) continue;
    ++readers;
    EXPECT_EQ(t->type, ElementType::f16) << plan.kernels[k].name;
  }
  EXPECT_EQ(readers, 1) << to_string(plan, program);
}

// FP8 tensors on the GPU path are the operands of one plain GEMM kernel (the sm_90a FP8 wgmma
// main loop; the arch and layout rules are the emitter's, fp8_gpu_rule.h): a def that is not one
// fused kernel is refused at the first FP8 tensor's declaration, with the planner's reason.
TEST(ProgramPlan, Fp8OutsideOneGemmKernelIsRefusedWhereDeclared) {
  EXPECT_EQ(plan_error("def g(f16(M, K) X, e4m3(N, K) W) -> (f16(M, N) C) {\n  C(m, n) +=! X(m, k) * W(n, k)\n}\n",
                       {{"M", 4}, {"N", 4}, {"K", 4}}),
            "1:31: tensor 'W' of def 'g' is e4m3: the GPU path reads FP8 only as the operands of one plain GEMM kernel "
            "(sm_90a TMA + wgmma), and this def is not one fused kernel (statement S0 of def 'g': tensor cores need "
            "operands of one type (f16, bf16, or f32 as TF32), two of f16, bf16 and f32 (as TF32), or two FP8 ones "
            "(e4m3, e5m2; mixed FP8 x 16-bit is not built); X is f16 and W is e4m3); run it on the CPU target (--target=cpu)");
  EXPECT_NE(plan_error("def s(e4m3(M) X) -> (f32(M) Y) {\n  Y(m) = X(m) * 2\n}\n", {{"M", 4}}).find(
                "1:15: tensor 'X' of def 's' is e4m3: the GPU path reads FP8 only as the operands of one plain GEMM"),
            std::string::npos);
  EXPECT_EQ(plan_error("def g(e4m3(M, K) X, e5m2(N, K) W) -> (f16(M, N) C) {\n  C(m, n) +=! X(m, k) * W(n, k)\n}\n",
                       {{"M", 4}, {"N", 4}, {"K", 16}}),
            "");
}

// Found by scripts/random-programs: a matmul that reads another matmul's result (f32: no type
// change splits them) was planned into the same kernel, whose code then read a tensor that
// lived in registers; and a matmul with a batch index beside one without crashed the planner.
// Both are two kernels now, the cut saying why.
TEST(ProgramPlan, MatmulChainsAndBatchRanksAreSeparateKernels) {
  const auto plan_of = [](const std::string& text, const SizeBindings& sizes) {
    const Program program = compile_source(SourceFile{"p.tc", text}, sizes).programs.front();
    return plan_program(program, recognize_idioms(program));
  };
  const ProgramPlan chain = plan_of("def c(f32(N, L) X, f32(M, N) Y, f32(M, N) W) -> (f32(L, N) Z) {\n"
                                    "  T(l, i) +=! X(j, l) * Y(i, j)\n  Z(l, j) +=! T(l, i) * W(i, j)\n}\n",
                                    {{"M", 13}, {"N", 20}, {"L", 9}});
  ASSERT_EQ(chain.kernels.size(), 2u);
  EXPECT_EQ(chain.kernels[0].cut,
            "S1 (Z(l, j) +=! T(l, i) * W(i, j)) starts a new kernel: the matmul kernel does not take it: p.tc:3:3: "
            "statement S1 of def 'c': a matmul that reads T, the result of statement S0, does not run in the kernel that "
            "computes it: its operands are read from memory");
  const ProgramPlan ranks = plan_of("def r(f32(M, K) A, f32(K, N) W, f32(B, M, K) X, f32(B, K, N) V) -> (f32(M, N) C, "
                                    "f32(B, M, N) D) {\n  C(i, j) +=! A(i, k) * W(k, j)\n"
                                    "  D(b, i, j) +=! X(b, i, k) * V(b, k, j)\n}\n",
                                    {{"M", 12}, {"N", 35}, {"K", 24}, {"B", 3}});
  ASSERT_EQ(ranks.kernels.size(), 2u);
  EXPECT_NE(ranks.kernels[0].cut.find("its output is 3 x 12 x 35 but statement S0's is 12 x 35: one kernel runs every "
                                      "statement over one grid of output tiles, with the same batch indices"),
            std::string::npos)
      << ranks.kernels[0].cut;
}

// A batch-reduce matmul of two reads is a contraction (a GEMM over grouped indices,
// contraction_to_gemm_test.cc); one with a prologue is not: a sum like any other, in a
// reduction kernel whose note says why (it was refused once).
TEST(ProgramPlan, BatchReduceMatmulsNoGemmTakesAreReductionKernels) {
  const Program program = compile_source(SourceFile{"p.tc",
                                                    "def f(f16(R, M, K) A, f16(R, K, N) B) -> (f16(M, N) C, f32(M) rowmax) {\n"
                                                    "  C(m, n) +=! relu(A(r, m, k)) * B(r, k, n)\n  rowmax(m) max=! C(m, n)\n}\n"},
                                         {{"M", 4}, {"N", 4}, {"K", 4}, {"R", 2}})
                              .programs.front();
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(plan.kernels.size(), 2u) << plan_text(program);
  EXPECT_EQ(plan.kernels[0].kind, PlannedKernelKind::row_reduction);
  EXPECT_EQ(plan.kernels[0].note,
            "a reduction kernel, not tensor cores: the sum over several indices is not a GEMM over grouped indices "
            "(its right-hand side is not a product of two tensor reads)");
}

// A matmul of f32 operands runs on tensor cores (TF32 or 3xTF32, the plan says which);
// with `f32_matmul` f32 it is a sum like any other: a reduction kernel, with a note saying why.
TEST(ProgramPlan, F32MatmulRunsOnTensorCoresOrAsAReductionKernel) {
  const Program program = compile_source(SourceFile{"p.tc",
                                                    "def g(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n"
                                                    "  C(m, n) +=! A(m, k) * B(k, n)\n}\n"},
                                         {{"M", 4}, {"N", 4}, {"K", 4}})
                              .programs.front();
  const ProgramPlan tf32 = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(tf32.kernels.size(), 1u);
  EXPECT_EQ(tf32.kernels[0].kind, PlannedKernelKind::fused_matmul);
  EXPECT_NE(to_string(tf32, program).find("f32 operands: tensor cores, TF32 (f32_matmul=tf32"), std::string::npos)
      << to_string(tf32, program);
  const ProgramPlan three = plan_program(program, recognize_idioms(program), F32Matmul::x3tf32);
  EXPECT_NE(to_string(three, program).find("f32 operands: tensor cores, 3xTF32"), std::string::npos);
  const ProgramPlan exact = plan_program(program, recognize_idioms(program), F32Matmul::f32);
  ASSERT_EQ(exact.kernels.size(), 1u);
  EXPECT_EQ(exact.kernels[0].kind, PlannedKernelKind::row_reduction);
  EXPECT_EQ(exact.kernels[0].note,
            "a reduction kernel, not tensor cores: p.tc:2:3: statement S0 of def 'g': `f32_matmul` f32: A and B are f32 "
            "and the matmul runs exactly, on CUDA cores");
}

// A prologue the tensor-core kernel does not take (an operand of another type than the
// operand's) leaves the matmul to a reduction kernel; the note names the place.
TEST(ProgramPlan, PrologueOperandOfAnotherTypeIsLocatedInTheNote) {
  const Program program = compile_source(SourceFile{"p.tc",
                                                    "def g(f16(M, K) A, bf16(K) s, f16(K, N) B) -> (f16(M, N) C) {\n"
                                                    "  C(m, n) +=! A(m, k) * s(k) * B(k, n)\n}\n"},
                                         {{"M", 4}, {"N", 4}, {"K", 4}})
                              .programs.front();
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].note,
            "a reduction kernel, not tensor cores: p.tc:2:3: statement S0 of def 'g': a prologue operand must be an "
            "input of A's type, f16 (its tiles are copied beside A's, and the prologue's result is rounded to that "
            "type); s is a bf16 input");
}

// Straight to the fused kernel's planner: a prologue statement without an input read at its
// own indices is refused at its place.
TEST(ProgramPlan, PrologueStatementWithoutAnOperandReadIsLocated) {
  const Program program = compile_source(SourceFile{"p.tc",
                                                    "def g(f16(K, M) At, f16(K, N) B) -> (f16(M, N) C) {\n"
                                                    "  T(m, k) = At(k, m) * 2\n  C(m, n) +=! T(m, k) * B(k, n)\n}\n"},
                                         {{"M", 4}, {"N", 4}, {"K", 4}})
                              .programs.front();
  try {
    plan_gpu_kernel(program, recognize_idioms(program));
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(e.diagnostics().front().line, 2);
    EXPECT_EQ(e.diagnostics().front().col, 3);
    EXPECT_EQ(e.diagnostics().front().message,
              "statement S0 of def 'g': a fused prologue must be a function of an input tensor read at the written "
              "indices and of inputs read at a subset of them (e.g. Ar(m, k) = relu(A(m, k) * g(k))); other prologues "
              "are not supported yet");
  }
}

TEST(ProgramPlan, PointwiseStatementsOfOneDomainShareAKernel) {
  const Program program = compile_source(SourceFile{"p.tc",
                                                    "def f(f32(M, N) X) -> (f32(M, N) Y, f32(N, M) Z) {\n"
                                                    "  T(m, n) = X(m, n) * 2\n"
                                                    "  Y(m, n) = T(m, n) + 1\n"
                                                    "  Z(n, m) = T(m, n)\n"
                                                    "}\n"},
                                         {{"M", 3}, {"N", 5}})
                              .programs.front();
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(plan.kernels.size(), 2u) << to_string(plan, program);
  EXPECT_EQ(plan.kernels[0].statements, (std::vector<std::string>{"S0", "S1"}));
  EXPECT_EQ(plan.kernels[0].cut, "S2 (Z(n, m) = T(m, n)) starts a new kernel: its domain (n, m) differs from the "
                                 "pointwise kernel's (m, n)");
  ASSERT_EQ(plan.temporaries.size(), 1u);
  EXPECT_EQ(plan.temporaries[0].tensor, "T");
  EXPECT_EQ(plan.temporaries[0].bytes, 3 * 5 * 4);
}

}  // namespace
}  // namespace polyfuse
