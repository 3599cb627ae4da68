// The benchmark's idioms and host reference against polyfuse's reference evaluator: the
// .tc program of every idiom (f16 and bf16) parses, and the sampled reference values
// equal what reference::evaluate computes for that program on the same inputs. Also the
// output checks: they pass identical outputs and catch wrong, NaN and missing elements.
#include <gtest/gtest.h>

#include <set>

#include "bench/gpu/checks.h"
#include "bench/gpu/host_reference.h"
#include "frontend/frontend.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/evaluate.h"

namespace polyfuse::bench {
namespace {

Program compile_idiom(const Idiom& idiom, DType dtype, const ProblemSize& size) {
  SizeBindings sizes = {{"M", size.m}, {"N", size.n}, {"K", size.k}};
  if (idiom.batched) sizes["NB"] = size.batch;
  return compile_source(SourceFile{idiom.name + ".tc", tc_source(idiom, dtype)}, sizes).programs.at(0);
}

TEST(BenchIdioms, TenIdiomsSixFromIssue7) {
  EXPECT_EQ(all_idioms().size(), 10u);
  int in_issue = 0;
  for (const Idiom& idiom : all_idioms()) in_issue += idiom.in_issue;
  EXPECT_EQ(in_issue, 6);
  EXPECT_EQ(find_idiom("gemm_bias_tanh")->activation, Activation::tanh);
  EXPECT_EQ(find_idiom("nope"), nullptr);
}

TEST(BenchIdioms, TensorsFollowTheSignature) {
  const ProblemSize size{64, 32, 16, 3};
  const Program program = compile_idiom(*find_idiom("add_gemms"), DType::f16, size);
  const std::vector<TensorSpec> specs = tensors(*find_idiom("add_gemms"), size);
  std::vector<std::string> names;
  for (const TensorSpec& spec : specs) names.push_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "E", "F", "D"}));
  const std::vector<TensorSpec> batched = tensors(*find_idiom("batched_gemm_bias"), size);
  EXPECT_EQ(batched[0].shape, (std::vector<std::int64_t>{3, 64, 16}));
  EXPECT_EQ(batched.back().shape, (std::vector<std::int64_t>{3, 64, 32}));
  EXPECT_TRUE(batched.back().output);
  EXPECT_DOUBLE_EQ(idiom_flops(*find_idiom("add_gemms"), size), 2 * 2.0 * 64 * 32 * 16);
  // SwiGLU's gate: the second matmul reads A again, with its own weight F.
  names.clear();
  for (const TensorSpec& spec : tensors(*find_idiom("swiglu"), size)) names.push_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "F", "D"}));
  EXPECT_DOUBLE_EQ(idiom_flops(*find_idiom("swiglu"), size), 2 * 2.0 * 64 * 32 * 16);
  const std::string source = tc_source(*find_idiom("swiglu"), DType::bf16);
  EXPECT_NE(source.find("U(m, n) +=! A(m, k) * F(k, n)"), std::string::npos) << source;
  EXPECT_NE(source.find("D(m, n) = silu(C(m, n)) * U(m, n)"), std::string::npos) << source;
}

// The row idioms (issue 20): the examples' statements, and layer norm's gamma and beta after
// the bias.
TEST(BenchIdioms, RowIdiomsAreTheExamplesStatements) {
  const ProblemSize size{64, 32, 16, 1};
  std::vector<std::string> names;
  for (const TensorSpec& spec : tensors(*find_idiom("gemm_layernorm"), size)) names.push_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "bias", "gamma", "beta", "D"}));
  EXPECT_DOUBLE_EQ(idiom_flops(*find_idiom("gemm_softmax"), size), 2.0 * 64 * 32 * 16);
  const std::string softmax = tc_source(*find_idiom("gemm_softmax"), DType::f16);
  EXPECT_NE(softmax.find("mx(m) max=! C(m, n)"), std::string::npos) << softmax;
  EXPECT_NE(softmax.find("D(m, n) = e(m, n) / s(m)"), std::string::npos) << softmax;
  const std::string norm = tc_source(*find_idiom("gemm_layernorm"), DType::bf16);
  EXPECT_NE(norm.find("var(m) +=! d(m, n) * d(m, n) / N"), std::string::npos) << norm;
  EXPECT_NE(norm.find("rsqrt(var(m) + 1e-5) * gamma(n) + beta(n)"), std::string::npos) << norm;
}

// Row idioms are checked on whole rows (a softmax couples the row); the others on samples.
TEST(BenchHostReference, RowIdiomsCheckWholeRows) {
  const ProblemSize size{100, 24, 16, 1};
  const std::vector<std::int64_t> rows = check_indices(*find_idiom("gemm_softmax"), size, 100 * 24, 64, 3);
  ASSERT_EQ(rows.size(), 4u * 24);
  for (size_t i = 0; i < rows.size(); i += 24) {
    EXPECT_EQ(rows[i] % 24, 0);
    EXPECT_EQ(rows[i + 23], rows[i] + 23);
  }
  EXPECT_EQ(rows.front(), 0);             // the first row
  EXPECT_EQ(rows.back(), 100 * 24 - 1);   // and the last
  EXPECT_EQ(check_indices(*find_idiom("gemm"), size, 100 * 24, 64, 3), sample_indices(100 * 24, 64, 3));
}

// Every idiom and dtype: reference_element == reference::evaluate, element for element.
TEST(BenchHostReference, MatchesTheReferenceEvaluator) {
  const ProblemSize size{48, 40, 72, 2};
  for (const Idiom& idiom : all_idioms()) {
    for (DType dtype : all_dtypes()) {
      SCOPED_TRACE(idiom.name + " " + to_string(dtype));
      const Program program = compile_idiom(idiom, dtype, size);
      const HostProblem host = make_host_problem(idiom, dtype, size, 7);
      reference::TensorData data;
      for (const auto& [name, values] : host.values) data[name] = values;
      EXPECT_FALSE(data.contains("D"));  // outputs are not kept on the host
      data["D"] = std::vector<float>(static_cast<size_t>(host.tensors.back().elements()), 0.0f);
      reference::evaluate(program, data);
      const std::vector<float>& d = data.at("D");
      ASSERT_EQ(static_cast<std::int64_t>(d.size()), tensors(idiom, idiom.batched ? size : ProblemSize{48, 40, 72, 1}).back().elements());
      const ProblemSize effective = idiom.batched ? size : ProblemSize{48, 40, 72, 1};
      int mismatches = 0;
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(d.size()); ++i) {
        const float mine = reference_element(idiom, dtype, effective, host, i);
        // Same operations in the same order: equal but for libm's tanh/erf vs the evaluator's.
        if (std::abs(mine - d[static_cast<size_t>(i)]) > 1e-6f + 4 * reference::unit_roundoff(element_type(dtype)) * std::abs(d[static_cast<size_t>(i)]))
          ++mismatches;
      }
      EXPECT_EQ(mismatches, 0);
      // The inputs are the reference generator's: values of the element type, not all zero.
      const std::vector<std::uint16_t>& a_bits = host.bits.at("A");
      EXPECT_EQ(reference::from_bits(element_type(dtype), a_bits[1]), host.values.at("A")[1]);
      EXPECT_NE(host.values.at("A")[0], host.values.at("A")[1]);
    }
  }
}

TEST(BenchHostReference, SampleIndicesAreDeterministicDistinctAndCoverTheEnds) {
  const std::vector<std::int64_t> a = sample_indices(1 << 20, 1024, 5);
  EXPECT_EQ(a, sample_indices(1 << 20, 1024, 5));
  EXPECT_NE(a, sample_indices(1 << 20, 1024, 6));
  ASSERT_EQ(a.size(), 1024u);
  EXPECT_EQ(std::set<std::int64_t>(a.begin(), a.end()).size(), 1024u);
  EXPECT_EQ(a.front(), 0);
  EXPECT_EQ(a.back(), (1 << 20) - 1);
  EXPECT_EQ(sample_indices(10, 1024, 5).size(), 10u);  // small outputs: every element
}

class BenchChecks : public ::testing::Test {
 protected:
  const Idiom& idiom = *find_idiom("gemm_bias_relu");
  const ProblemSize size{32, 16, 64, 1};
  HostProblem host = make_host_problem(idiom, DType::f16, size, 3);
  std::vector<std::uint16_t> exact;  // the reference result as the GPU would store it
  std::vector<std::int64_t> indices;
  std::vector<float> expected;

  void SetUp() override {
    for (std::int64_t i = 0; i < size.m * size.n; ++i)
      exact.push_back(reference::to_bits(ElementType::f16, reference_element(idiom, DType::f16, size, host, i)));
    indices = sample_indices(size.m * size.n, 64, 1);
    for (std::int64_t index : indices) expected.push_back(reference_element(idiom, DType::f16, size, host, index));
  }
};

TEST_F(BenchChecks, ExactOutputPasses) {
  EXPECT_TRUE(check_against_reference(idiom, DType::f16, size, exact, indices, expected).ok);
  EXPECT_TRUE(check_against_variant(idiom, DType::f16, size, exact, exact).ok);
}

TEST_F(BenchChecks, OneUlpOffPassesAWrongValueFails) {
  std::vector<std::uint16_t> near = exact, wrong = exact;
  for (std::uint16_t& bits : near)
    if ((bits & 0x7fff) != 0) bits = static_cast<std::uint16_t>(bits + 1);
  const std::int64_t index = indices[5];
  wrong[static_cast<size_t>(index)] = reference::to_bits(ElementType::f16, expected[5] + 1.0f);
  EXPECT_TRUE(check_against_reference(idiom, DType::f16, size, near, indices, expected).ok);
  const CheckOutcome outcome = check_against_reference(idiom, DType::f16, size, wrong, indices, expected);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.failures, 1);
  EXPECT_EQ(outcome.first_failure.rfind(output_position(idiom, size, index) + " = ", 0), 0u) << outcome.first_failure;
  EXPECT_FALSE(check_against_variant(idiom, DType::f16, size, wrong, exact).ok);
}

TEST_F(BenchChecks, UnwrittenOutputFails) {
  const std::vector<std::uint16_t> poisoned(exact.size(), 0xFFFF);  // NaN: what the GPU output holds before a run
  const CheckOutcome outcome = check_against_reference(idiom, DType::f16, size, poisoned, indices, expected);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.failures, static_cast<std::int64_t>(indices.size()));
  EXPECT_NE(outcome.to_string().find("FAILED"), std::string::npos);
  EXPECT_FALSE(check_against_variant(idiom, DType::f16, size, poisoned, exact).ok);
  EXPECT_FALSE(check_against_variant(idiom, DType::f16, size, exact, std::vector<std::uint16_t>(3)).ok);
}

TEST(BenchChecksPosition, NamesBatchRowAndColumn) {
  EXPECT_EQ(output_position(*find_idiom("gemm"), {4, 8, 16, 1}, 8 * 2 + 3), "D[2, 3]");
  EXPECT_EQ(output_position(*find_idiom("batched_gemm_bias"), {4, 8, 16, 2}, 32 + 8 * 2 + 3), "D[1, 2, 3]");
}

// The row idioms' tolerance: the exact rows pass, a softmax element 10% off or a layer-norm
// element 0.05 off fails (the tolerance is relative for the softmax's small outputs).
TEST(BenchChecksRows, ExactRowsPassAWrongElementFails) {
  const ProblemSize size{16, 40, 64, 1};
  for (const char* name : {"gemm_softmax", "gemm_layernorm"}) {
    SCOPED_TRACE(name);
    const Idiom& idiom = *find_idiom(name);
    const HostProblem host = make_host_problem(idiom, DType::f16, size, 5);
    const std::vector<std::int64_t> indices = check_indices(idiom, size, size.m * size.n, 64, 2);
    std::vector<float> expected;
    for (std::int64_t index : indices) expected.push_back(reference_element(idiom, DType::f16, size, host, index));
    std::vector<std::uint16_t> exact;
    for (std::int64_t i = 0; i < size.m * size.n; ++i)
      exact.push_back(reference::to_bits(ElementType::f16, reference_element(idiom, DType::f16, size, host, i)));
    EXPECT_TRUE(check_against_reference(idiom, DType::f16, size, exact, indices, expected).ok);
    std::vector<std::uint16_t> wrong = exact;
    const size_t at = static_cast<size_t>(indices[3]);
    const float value = reference::from_bits(ElementType::f16, wrong[at]);
    const float off = idiom.row == RowOp::softmax ? value * 1.1f : value + 0.05f;
    wrong[at] = reference::to_bits(ElementType::f16, off);
    EXPECT_FALSE(check_against_reference(idiom, DType::f16, size, wrong, indices, expected).ok);
  }
}

}  // namespace
}  // namespace polyfuse::bench
