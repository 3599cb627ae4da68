// The reference evaluator on tiny programs whose results are computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "frontend/frontend.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/evaluate.h"

namespace polyfuse::reference {
namespace {

Program compile(const std::string& text, const SizeBindings& sizes) {
  return compile_source(SourceFile{"test.tc", text}, sizes).programs.at(0);
}

const char* const kGemm = R"(
def gemm(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! A(m, k) * B(k, n)
})";

TEST(Evaluate, GemmByHand) {
  const Program program = compile(kGemm, {{"M", 2}, {"N", 2}, {"K", 2}});
  TensorData data{{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7, 8}}, {"C", {100, 100, 100, 100}}};
  evaluate(program, data);
  EXPECT_EQ(data["C"], (std::vector<float>{19, 22, 43, 50}));  // +=! ignores old C
}

TEST(Evaluate, AccumulatingReductionStartsFromTheOutput) {
  const Program program = compile(R"(
def acc(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {
  C(m, n) += A(m, k) * B(k, n)
})", {{"M", 2}, {"N", 2}, {"K", 2}});
  TensorData data{{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7, 8}}, {"C", {1, -1, 0.5f, 0}}};
  evaluate(program, data);
  EXPECT_EQ(data["C"], (std::vector<float>{20, 21, 43.5f, 50}));
}

TEST(Evaluate, TemporaryBiasBroadcastAndRelu) {
  const Program program = compile(R"(
def f(f32(M, K) A, f32(K, N) B, f32(N) bias, f32(M) scale) -> (f32(M, N) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = relu(C(m, n) + bias(n)) * scale(m)
})", {{"M", 2}, {"N", 2}, {"K", 2}});
  TensorData data{{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7, 8}}, {"bias", {-20, -50}},
                  {"scale", {2, -1}}, {"D", {0, 0, 0, 0}}};
  evaluate(program, data);
  // C = [[19, 22], [43, 50]]; + bias = [[-1, -28], [23, 0]]; relu; * scale(m).
  EXPECT_EQ(data["D"], (std::vector<float>{0, 0, -23, 0}));
  EXPECT_EQ(data["C"], (std::vector<float>{19, 22, 43, 50}));  // the temporary is kept
}

TEST(Evaluate, ColumnMajorOperandAndFunctions) {
  const Program program = compile(R"(
def f(f32(K, M) At, f32(N, K) Bt) -> (f32(M, N) C, f32(M, N) E) {
  C(m, n) +=! At(k, m) * Bt(n, k)
  E(m, n) = max(sigmoid(C(m, n)), min(exp(C(m, n) - 20), gelu(tanh(-C(m, n)) / 2)))
})", {{"M", 2}, {"N", 2}, {"K", 2}});
  // At = A^T with A = [[1, 2], [3, 4]]; Bt = B^T with B = [[5, 6], [7, 8]].
  TensorData data{{"At", {1, 3, 2, 4}}, {"Bt", {5, 7, 6, 8}}, {"C", {0, 0, 0, 0}}, {"E", {0, 0, 0, 0}}};
  evaluate(program, data);
  EXPECT_EQ(data["C"], (std::vector<float>{19, 22, 43, 50}));
  const float c = 19;
  const float expected = std::max(1.0f / (1.0f + std::exp(-c)),
                                  std::min(std::exp(c - 20),
                                           0.5f * (std::tanh(-c) / 2) *
                                               (1.0f + std::erf(std::tanh(-c) / 2 * 0.70710678f))));
  EXPECT_FLOAT_EQ(data["E"][0], expected);
}

TEST(Evaluate, BatchReduceSumsOverRThenK) {
  const Program program = compile(R"(
def brgemm(f32(R, M, K) A, f32(R, K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! A(r, m, k) * B(r, k, n)
})", {{"R", 2}, {"M", 1}, {"N", 1}, {"K", 2}});
  TensorData data{{"A", {1, 2, 3, 4}}, {"B", {10, 20, 30, 40}}, {"C", {7}}};
  evaluate(program, data);
  EXPECT_EQ(data["C"], (std::vector<float>{1 * 10 + 2 * 20 + 3 * 30 + 4 * 40}));
}

TEST(Evaluate, BatchedGemmKeepsBatchesApart) {
  const Program program = compile(R"(
def bg(f32(B, M, K) A, f32(B, K, N) W) -> (f32(B, M, N) C) {
  C(b, m, n) +=! A(b, m, k) * W(b, k, n)
})", {{"B", 2}, {"M", 1}, {"N", 1}, {"K", 2}});
  TensorData data{{"A", {1, 2, 3, 4}}, {"W", {10, 20, 30, 40}}, {"C", {0, 0}}};
  evaluate(program, data);
  EXPECT_EQ(data["C"], (std::vector<float>{50, 250}));
}

TEST(Evaluate, F16ReductionAccumulatesInF32AndRoundsOnce) {
  // 4096 ones: an f16 accumulator would stop at 2048; f32 reaches 4096 (exact in f16).
  const Program program = compile(R"(
def s(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {
  C(m, n) +=! A(m, k) * B(k, n)
})", {{"M", 1}, {"N", 1}, {"K", 4096}});
  TensorData data{{"A", std::vector<float>(4096, 1.0f)}, {"B", std::vector<float>(4096, 1.0f)}, {"C", {0}}};
  evaluate(program, data);
  EXPECT_EQ(data["C"][0], 4096.0f);
  // 1 + 3 * 2^-12 is not an f16; the f32 sum is rounded once, to nearest: 1 + 2^-10.
  data["A"] = std::vector<float>(4096, 0.0f);
  data["A"][0] = 1.0f;
  data["A"][1] = data["A"][2] = data["A"][3] = std::ldexp(1.0f, -12);
  evaluate(program, data);
  EXPECT_EQ(data["C"][0], 1.0f + std::ldexp(1.0f, -10));
}

TEST(Evaluate, PointwiseRoundsToTheWrittenType) {
  const Program program = compile(R"(
def p(f16(N) x, f16(N) y) -> (bf16(N) z) {
  t(n) = x(n) + y(n)
  z(n) = t(n) * 3
})", {{"N", 1}});
  // t is an f16 temporary: 1 + 2^-10 (exact); z = 3 + 3 * 2^-10 rounded to bf16 = 3.
  TensorData data{{"x", {1.0f}}, {"y", {std::ldexp(1.0f, -10)}}, {"z", {0}}};
  evaluate(program, data);
  EXPECT_EQ(data["t"][0], 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(data["z"][0], 3.0f);
  // 2^-11 is lost when t is rounded to f16 (tie to even): z = 3.
  data["y"][0] = std::ldexp(1.0f, -11);
  evaluate(program, data);
  EXPECT_EQ(data["t"][0], 1.0f);
}

TEST(Evaluate, MissingOrMisSizedBuffersAreRejected) {
  const Program program = compile(kGemm, {{"M", 2}, {"N", 2}, {"K", 2}});
  TensorData missing{{"A", {1, 2, 3, 4}}, {"C", {0, 0, 0, 0}}};
  EXPECT_THROW(evaluate(program, missing), std::invalid_argument);
  TensorData short_buffer{{"A", {1, 2, 3}}, {"B", {1, 2, 3, 4}}, {"C", {0, 0, 0, 0}}};
  EXPECT_THROW(evaluate(program, short_buffer), std::invalid_argument);
}

TEST(Evaluate, UnboundSizesAreAUserError) {
  const Program program = compile(kGemm, {{"M", 2}, {"K", 2}});
  TensorData data;
  try {
    evaluate(program, data);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("size 'N' of def 'gemm' is not bound"), std::string::npos)
        << error.what();
  }
}

TEST(RandomTensors, DeterministicInRangeAndRepresentable) {
  const Program program = compile(R"(
def g(f16(M, K) A, bf16(K, N) B) -> (f32(M, N) C) {
  C(m, n) +=! A(m, k) * B(k, n)
})", {{"M", 3}, {"N", 5}, {"K", 64}});
  const TensorData first = random_tensors(program, 7);
  EXPECT_EQ(first, random_tensors(program, 7));
  EXPECT_NE(first.at("A"), random_tensors(program, 8).at("A"));
  ASSERT_EQ(first.at("A").size(), 3u * 64u);
  ASSERT_EQ(first.at("C").size(), 15u);
  double sum = 0;
  for (float v : first.at("A")) {
    EXPECT_LE(std::fabs(v), 1.0f);
    EXPECT_EQ(v, round_to(ElementType::f16, v));
    sum += v;
  }
  for (float v : first.at("B")) EXPECT_EQ(v, round_to(ElementType::bf16, v));
  EXPECT_LT(std::fabs(sum / 192), 0.2);  // roughly centred
  // Fixed values: the stream is part of the contract (the same on every machine).
  EXPECT_EQ(random_values(3, ElementType::f32, 1), random_values(3, ElementType::f32, 1));
}

TEST(RandomTensors, ARangeMovesOneTensorsValues) {
  const Program program = compile(R"(
def g(f16(M) X, f32(M) Z, int32(M) I) -> (f32(M) Y) {
  Y(m) = sqrt(X(m)) + log(Z(m)) + I(m)
})", {{"M", 4096}});
  const TensorData plain = random_tensors(program, 3);
  const TensorData ranged = random_tensors(program, 3, {{"Z", {0.5, 2.0}}});
  EXPECT_EQ(plain.at("X"), ranged.at("X"));  // the others keep their values
  EXPECT_EQ(plain.at("Y"), ranged.at("Y"));
  float low = 2, high = 0;
  for (float v : ranged.at("Z")) {
    low = std::min(low, v);
    high = std::max(high, v);
  }
  EXPECT_GE(low, 0.5f);
  EXPECT_LT(low, 0.51f);
  EXPECT_LT(high, 2.0f);
  EXPECT_GT(high, 1.99f);
  const TensorData wide = random_tensors(program, 3, {{"X", {0, 1000}}});
  for (float v : wide.at("X")) {
    EXPECT_GE(v, 0.0f);
    EXPECT_EQ(v, round_to(ElementType::f16, v));
  }
  // Refused, each naming the tensor and the rule.
  const std::pair<ValueRanges, const char*> refused[] = {
      {{{"Q", {0, 1}}}, "no input or output of that name (its floating-point tensors: X, Z, Y)"},
      {{{"I", {0, 1}}}, "'I' is int32: integer tensors get integers"},
      {{{"Z", {1, 1}}}, "finite LOW < HIGH"},
      {{{"Z", {0, INFINITY}}}, "finite LOW < HIGH"},
      {{{"X", {0, 70000}}}, "f16 holds finite values up to 65504"},
  };
  for (const auto& [ranges, rule] : refused) {
    try {
      random_tensors(program, 3, ranges);
      ADD_FAILURE() << "accepted: " << rule;
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find(rule), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("input range of '" + ranges.begin()->first + "'"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace polyfuse::reference
