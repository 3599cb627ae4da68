// The exact reference and its bounds on whole programs: results computed by hand, the
// f32 reference evaluator (a backend that sums in program order and rounds where the
// program stores) within the bounds with a nonzero error on every program, backends that
// round differently (wider temporaries, GPU prologue factors) within them too, and results
// one precision too coarse or one term short outside them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "frontend/frontend.h"
#include "runtime/reference/compare.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/evaluate.h"
#include "runtime/reference/evaluate_exact.h"
#include "support/golden.h"

namespace polyfuse::reference {
namespace {

Program compile(const std::string& text, const SizeBindings& sizes) {
  return compile_source(SourceFile{"test.tc", text}, sizes).programs.at(0);
}

// `text` with every "f32(" written "<type>(".
std::string with_type(std::string text, const std::string& type) {
  for (std::size_t at = text.find("f32("); at != std::string::npos; at = text.find("f32(", at + type.size()))
    text.replace(at, 3, type);
  return text;
}

std::vector<double> values(const ExactTensor& tensor) {
  std::vector<double> result;
  for (const Bounded& element : tensor) result.push_back(element.value);
  return result;
}

// The f32 reference's outputs for `inputs`.
TensorData f32_reference(const Program& program, const TensorData& inputs) {
  TensorData outputs = inputs;
  evaluate(program, outputs);
  return outputs;
}

const char* const kGemmF32 = R"(
def gemm(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! A(m, k) * B(k, n)
})";

TEST(EvaluateExact, GemmByHand) {
  const Program program = compile(kGemmF32, {{"M", 2}, {"N", 2}, {"K", 2}});
  const TensorData inputs{{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7, 8}}, {"C", {100, 100, 100, 100}}};
  const ExactData exact = evaluate_exact(program, inputs);
  EXPECT_EQ(values(exact.at("C")), (std::vector<double>{19, 22, 43, 50}));
  // C[0, 0] = 1 * 5 + 2 * 7: the products of exact integers are f32 values, exact on every
  // backend (error_bound.cc's binary); three operands (0 and the two products) summed with
  // round-to-nearest's factor 1 (f32 operands).
  const double u = std::ldexp(1.0, -24), t = 3 * u;
  EXPECT_NEAR(exact.at("C")[0].bound, t / (1 - t) * 19, 1e-12);
  // Non-integer inputs: the products are rounded (u |x y| each).
  const ExactData halves = evaluate_exact(program, {{"A", {0.1, 0.2, 0.3, 0.4}}, {"B", {5, 6, 7, 8}}, {"C", {0, 0, 0, 0}}});
  EXPECT_GT(halves.at("C")[0].bound, t / (1 - t) * std::fabs(halves.at("C")[0].value));
  for (const Bounded& a : exact.at("A")) EXPECT_EQ(a.bound, 0);  // inputs are exact
  const TensorData missing{{"A", {1, 2, 3, 4}}};
  EXPECT_THROW(evaluate_exact(program, missing), std::invalid_argument);
}

TEST(EvaluateExact, AccumulatingReductionStartsFromTheOutput) {
  const Program program = compile(R"(
def acc(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {
  C(m, n) += A(m, k) * B(k, n)
})", {{"M", 2}, {"N", 2}, {"K", 2}});
  const ExactData exact = evaluate_exact(program, {{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7, 8}}, {"C", {1, -1, 0.5f, 0}}});
  EXPECT_EQ(values(exact.at("C")), (std::vector<double>{20, 21, 43.5, 50}));
}

// Programs of every kind, as the f32 reference runs them.
std::vector<Program> sample_programs() {
  const std::string fcrelu = testing::read_text_file(testing::source_path("tests/programs/4fcrelu.tc"));
  const SizeBindings layers{{"B", 8}, {"M", 300}, {"N", 64}, {"O", 48}, {"P", 32}, {"Q", 16}};
  std::vector<Program> programs;
  for (const char* type : {"f16", "bf16", "f32"})
    programs.push_back(compile(with_type(kGemmF32, type),
                               {{"M", 9}, {"N", 7}, {"K", 300}}));
  programs.push_back(compile(R"(
def chain(bf16(M, K) A, bf16(K, N) B, bf16(M) scale, f32(N) shift, bf16(M, N) res) -> (bf16(M, N) D, f32(M, N) E) {
  C(m, n) +=! sigmoid(A(m, k)) * B(k, n)
  D(m, n) = max(gelu(C(m, n) * scale(m) - shift(n)), res(m, n) / 2) + tanh(-C(m, n))
  E(m, n) = exp(min(C(m, n), 0.5)) + D(m, n)
})", {{"M", 20}, {"N", 13}, {"K", 41}}));
  programs.push_back(compile(R"(
def brgemm(f16(R, M, K) A, f16(R, K, N) B, f32(N) bias) -> (f32(M, N) C, f16(M, N) D) {
  C(m, n) +=! A(r, m, k) * B(r, k, n)
  D(m, n) = relu(C(m, n) + bias(n)) / 3
})", {{"R", 3}, {"M", 10}, {"N", 12}, {"K", 50}}));
  programs.push_back(compile(fcrelu, layers));
  programs.push_back(compile(with_type(fcrelu, "f16"), layers));
  // Issue 20's language: the row-reduction examples, every reduction operator and every
  // function.
  const SizeBindings rows{{"M", 6}, {"N", 70}, {"K", 33}};
  for (const char* example : {"gemm_softmax", "softmax", "layernorm", "rmsnorm", "cross_entropy"})
    programs.push_back(
        compile(testing::read_text_file(testing::source_path(std::string("examples/") + example + ".tc")), rows));
  programs.push_back(compile(R"(
def row_ops(f32(M, N) X, f16(N) b) -> (f32(M) p, f32(M) lo, f16(M) hi, f32(M, N) Y, f16(M, N) Z) {
  p(m) *=! 1 + X(m, n) * 0.125
  lo(m) min=! X(m, n) * 3
  hi(m) max=! exp(X(m, n) * b(n))
  hi(m) max= lo(m)
  Y(m, n) = gelu_tanh(X(m, n)) + silu(X(m, n)) * 0.5 - abs(X(m, n)) + sqrt(abs(X(m, n)) + 1) +
            rsqrt(abs(X(m, n)) + 1e-3) + log(abs(X(m, n)) + 0.25)
  Z(m, n) = gelu_erf(X(m, n) * b(n)) - gelu(X(m, n)) + p(m) / N
})", rows));
  return programs;
}

// The f32 reference sums in program order and rounds exactly where the program stores:
// one conforming backend. It passes on every program and seed, and its error from the
// exact values is never zero: the comparison is exercised.
TEST(EvaluateExact, TheF32ReferenceIsWithinTheBounds) {
  for (const Program& program : sample_programs())
    for (std::uint64_t seed : {1, 2, 3}) {
      const TensorData inputs = random_tensors(program, seed);
      const CheckReport report = check_outputs(program, inputs, f32_reference(program, inputs));
      EXPECT_TRUE(report.ok) << program.name << " seed " << seed << ": " << report.to_string();
      EXPECT_GT(report.max_abs_err, 0) << program.name;
      EXPECT_LT(report.max_tolerance_used, 1) << program.name;
      std::printf("%s seed %d: %s, %.3g of the bound used\n", program.name.c_str(), static_cast<int>(seed),
                  report.to_string().c_str(), report.max_tolerance_used);
    }
}

// A temporary kept in f32 registers (the GPU path) instead of rounded to its f16 type
// (the f32 reference) is right either way.
// The reduction operators by hand: max, min and product from their identities and from
// the element (`op=`).
TEST(EvaluateExact, ReductionOperatorsByHand) {
  const Program program = compile(R"(
def ops(f32(M, N) X) -> (f32(M) hi, f32(M) lo, f32(M) p, f32(M) acc) {
  hi(m) max=! X(m, n)
  lo(m) min=! X(m, n) - 1
  p(m) *=! X(m, n)
  acc(m) *= X(m, n) * 2
  acc(m) max= X(m, n)
})", {{"M", 2}, {"N", 3}});
  const TensorData inputs{{"X", {1, -4, 2, 0.5, 3, -1}}, {"hi", {0, 0}}, {"lo", {0, 0}}, {"p", {0, 0}},
                          {"acc", {10, -10}}};
  const ExactData exact = evaluate_exact(program, inputs);
  EXPECT_EQ(values(exact.at("hi")), (std::vector<double>{2, 3}));
  EXPECT_EQ(values(exact.at("lo")), (std::vector<double>{-5, -2}));
  EXPECT_EQ(values(exact.at("p")), (std::vector<double>{-8, -1.5}));
  // acc: 10 * 2 * -8 * 4 = -640, then max(-640, 1, -4, 2) = 2; -10 * 1 * 6 * -2 = 120.
  EXPECT_EQ(values(exact.at("acc")), (std::vector<double>{2, 120}));
  EXPECT_EQ(exact.at("hi")[0].bound, 0);  // max of exact inputs is exact
  TensorData f32 = inputs;
  evaluate(program, f32);
  EXPECT_EQ(f32.at("acc"), (std::vector<float>{2, 120}));
  EXPECT_EQ(f32.at("lo"), (std::vector<float>{-5, -2}));
}

TEST(EvaluateExact, TemporariesMayBeKeptWider) {
  const Program program = compile(R"(
def t(f16(M, N) A, f16(M, N) B) -> (f16(M, N) D) {
  T(m, n) = A(m, n) * B(m, n) * 3
  D(m, n) = T(m, n) * T(m, n) - A(m, n)
})", {{"M", 16}, {"N", 16}});
  const TensorData inputs = random_tensors(program, 4);
  TensorData wide = inputs;
  int differ = 0;
  for (std::size_t i = 0; i < wide["D"].size(); ++i) {
    const float t = inputs.at("A")[i] * inputs.at("B")[i] * 3.0f;
    wide["D"][i] = round_to(ElementType::f16, t * t - inputs.at("A")[i]);
  }
  const TensorData rounded = f32_reference(program, inputs);
  for (std::size_t i = 0; i < wide["D"].size(); ++i) differ += wide["D"][i] != rounded.at("D")[i];
  EXPECT_GT(differ, 0);
  EXPECT_TRUE(check_outputs(program, inputs, wide).ok) << check_outputs(program, inputs, wide).to_string();
  EXPECT_TRUE(check_outputs(program, inputs, rounded).ok);
}

// A matmul factor computed by a prologue and stored in shared memory as f16 (the GPU
// path) before the product, with an f32 output that shows every error.
TEST(EvaluateExact, PrologueFactorsMayBeRoundedToTheOperandType) {
  const Program program = compile(R"(
def p(f16(M, K) A, f16(K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! (A(m, k) * 0.3) * B(k, n)
})", {{"M", 8}, {"N", 8}, {"K", 200}});
  const TensorData inputs = random_tensors(program, 6);
  TensorData gpu = inputs;
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n) {
      float sum = 0;
      for (int k = 0; k < 200; ++k)
        sum += round_to(ElementType::f16, inputs.at("A")[m * 200 + k] * 0.3f) * inputs.at("B")[k * 8 + n];
      gpu["C"][m * 8 + n] = sum;
    }
  const CheckReport report = check_outputs(program, inputs, gpu);
  EXPECT_TRUE(report.ok) << report.to_string();
  EXPECT_GT(report.max_tolerance_used, 0.01);  // the factors' rounding is most of the error
}

// exp of large values overflows f16: exactly infinite where all of the bound does, not
// judged where the backend may round either way.
TEST(EvaluateExact, OverflowToInfinity) {
  const Program program = compile(R"(
def e(f16(N) A) -> (f16(N) D) {
  D(n) = exp(A(n) * 20)
})", {{"N", 512}});
  const TensorData inputs = random_tensors(program, 2);
  const ExactData exact = evaluate_exact(program, inputs);
  int infinite = 0;
  for (const Bounded& d : exact.at("D")) infinite += std::isinf(d.value);
  EXPECT_GT(infinite, 80);  // e^(20 a) > 65520 for a > 0.555
  EXPECT_TRUE(check_outputs(program, inputs, f32_reference(program, inputs)).ok);
  TensorData finite = f32_reference(program, inputs);
  for (std::size_t i = 0; i < finite["D"].size(); ++i)
    if (std::isinf(exact.at("D")[i].value)) finite["D"][i] = 65504;
  EXPECT_FALSE(check_outputs(program, inputs, finite).ok);
}

// The bounds are worst cases, yet they still fail an f32 output that went through f16
// or bf16, f32 inputs converted to f16 on the way, and sums that miss one term.
TEST(EvaluateExact, CoarserPrecisionFails) {
  const Program program = compile(kGemmF32, {{"M", 16}, {"N", 16}, {"K", 64}});
  const TensorData inputs = random_tensors(program, 3);
  for (ElementType coarse : {ElementType::f16, ElementType::bf16}) {
    TensorData actual = f32_reference(program, inputs);
    for (float& value : actual["C"]) value = round_to(coarse, value);
    const CheckReport report = check_outputs(program, inputs, actual);
    std::printf("C through %s: %s\n", std::string(to_string(coarse)).c_str(), report.to_string().c_str());
    EXPECT_FALSE(report.ok);
    EXPECT_GT(report.failures, report.compared / (coarse == ElementType::f16 ? 4 : 2)) << report.to_string();
  }
}

TEST(EvaluateExact, F32InputsConvertedToF16Fail) {
  const Program program = compile(kGemmF32, {{"M", 16}, {"N", 16}, {"K", 300}});
  const TensorData inputs = random_tensors(program, 12);
  TensorData converted = inputs;
  for (const char* operand : {"A", "B"})
    for (float& value : converted[operand]) value = round_to(ElementType::f16, value);
  TensorData actual = inputs;
  actual["C"] = f32_reference(program, converted).at("C");
  const CheckReport report = check_outputs(program, inputs, actual);
  std::printf("A and B through f16: %s\n", report.to_string().c_str());
  EXPECT_GT(report.failures, report.compared / 4) << report.to_string();
}

TEST(EvaluateExact, OneMissingTermFails) {
  const Program program = compile(kGemmF32, {{"M", 16}, {"N", 16}, {"K", 256}});
  const TensorData inputs = random_tensors(program, 8);
  TensorData short_of_one = inputs;
  for (int m = 0; m < 16; ++m) short_of_one["A"][m * 256 + 255] = 0;  // k = K - 1 dropped
  TensorData actual = inputs;
  actual["C"] = f32_reference(program, short_of_one).at("C");
  const CheckReport report = check_outputs(program, inputs, actual);
  std::printf("k = K - 1 missing: %s\n", report.to_string().c_str());
  EXPECT_GT(report.failures, report.compared * 9 / 10) << report.to_string();
}

}  // namespace
}  // namespace polyfuse::reference
