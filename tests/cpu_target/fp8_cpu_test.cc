// FP8 on the CPU target (issue 22 item 4, CPU side): BRGEMM decodes e4m3/e5m2 exactly to f32 in
// its packing (kernels/cpu pack.cc, polyfuse/cpu/fp8.h); operands of two different types are
// decoded into f32 copies first; epilogue operands and loop nests decode their reads. Each run
// is checked against the exact reference on FP8 random inputs; examples/gemm_fp8.tc
// (per-channel scales, bias, ReLU) runs with the other examples (run_examples_test.cc).
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "schedule/cpu_target.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

const SizeBindings kEven = {{"M", 64}, {"N", 64}, {"K", 64}};
const SizeBindings kOdd = {{"M", 7}, {"N", 33}, {"K", 100}};

std::string gemm(const std::string& a_type, const std::string& b_type, bool b_k_major) {
  return "def g(" + a_type + "(M, K) A, " + b_type + (b_k_major ? "(N, K) B" : "(K, N) B") +
         ") -> (f16(M, N) C) {\n  C(m, n) +=! A(m, k) * " + (b_k_major ? "B(n, k)" : "B(k, n)") + "\n}\n";
}

TEST(Fp8Cpu, GemmsOfEveryFp8PairingMatchTheReference) {
  const std::vector<std::string> programs = {gemm("e4m3", "e4m3", true), gemm("e5m2", "e5m2", false),
                                             gemm("e4m3", "e5m2", true), gemm("f16", "e4m3", true)};
  for (const std::string& text : programs) {
    for (const SizeBindings& sizes : {kEven, kOdd}) {
      const RunReport report = run_text_on_cpu(text, sizes, "fp8.tc");
      EXPECT_TRUE(report.check.ok) << text << report.check.to_string();
      EXPECT_GT(report.check.compared, 0);
    }
  }
}

// FP8 reads outside a matmul: the elementwise primitives of an epilogue (DType::e4m3 and e5m2
// operands) and plain loop nests (a row reduction), each decoding exactly.
TEST(Fp8Cpu, EpilogueOperandsAndLoopNestsReadFp8) {
  const std::string epilogue = R"(def epi(f16(M, K) A, f16(K, N) B, e4m3(M, N) Z, e5m2(N) g) -> (f16(M, N) D) {
  C(m, n) +=! A(m, k) * B(k, n)
  D(m, n) = C(m, n) * Z(m, n) + g(n)
})";
  const std::string rows = R"(def rows(e4m3(M, N) X, e5m2(N) g) -> (f32(M, N) O, f32(M) s, f16(M, N) P) {
  s(m) +=! X(m, n) * X(m, n)
  O(m, n) = X(m, n) / (s(m) + 1)
  P(m, n) = X(m, n) * g(n)
})";
  for (const std::string& text : {epilogue, rows}) {
    const RunReport report = run_text_on_cpu(text, kOdd, "fp8.tc");
    EXPECT_TRUE(report.check.ok) << text << report.check.to_string();
  }
  const Program program = compile_text(epilogue, kOdd);
  const std::string code = emit_cpu(plan_cpu(program), program);
  EXPECT_NE(code.find("DType::e4m3, Broadcast::matrix"), std::string::npos) << code;
}

TEST(Fp8Cpu, BrgemmDecodesInItsPackingAndMixedTypesAreCopiedToF32) {
  const Program same = compile_text(gemm("e4m3", "e4m3", true), kEven);
  const std::string same_code = emit_cpu(plan_cpu(same), same);
  EXPECT_NE(same_code.find(".dtype = DType::e4m3"), std::string::npos) << same_code;
  const Program mixed = compile_text(gemm("e4m3", "e5m2", true), kEven);
  const std::string mixed_code = emit_cpu(plan_cpu(mixed), mixed);
  EXPECT_NE(mixed_code.find(".dtype = DType::f32"), std::string::npos) << mixed_code;
  EXPECT_NE(mixed_code.find("DType::e5m2"), std::string::npos) << mixed_code;
}

}  // namespace
}  // namespace polyfuse::testing
