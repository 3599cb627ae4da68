// The identifiers of the CPU target's generated code (codegen/cpu_names.h): a def's tensors
// named like the identifiers the code makes from statements and stages ("S0", "S10",
// "stage0", "S1_main") or like C++ keywords get other names, and the program runs. A tensor
// named S<digit> once sent CpuNames into an endless loop of appended underscores ("out of
// memory", found by scripts/random-programs). So do tensors named like the helpers it calls.
#include <gtest/gtest.h>

#include "codegen/cpu_emit.h"
#include "codegen/cpu_names.h"
#include "runtime/api/run_program.h"
#include "schedule/cpu_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

const std::string named_like_the_code = R"(def names(f32(M, K) S0, f32(K, N) stage0, f32(N) S1_main, f32(N) t_S2, f32(N) new) -> (f32(M, N) S2, f32() S10) {
  S3(i, j) +=! S0(i, k) * stage0(k, j)
  S2(i, j) = relu(S3(i, j) + S1_main(j)) + t_S2(j) * new(j)
  S10() max=! S2(i, j)
})";

TEST(CpuNames, TensorsNamedLikeTheGeneratedIdentifiers) {
  const Program program = compile_text(named_like_the_code, {{"M", 30}, {"N", 39}, {"K", 16}}, "names.tc");
  const CpuNames names(plan_cpu(program, CpuScheduleOptions{}));
  EXPECT_EQ(names.tensor("S0"), "t_S0");
  EXPECT_EQ(names.tensor("S10"), "t_S10");
  EXPECT_EQ(names.tensor("stage0"), "t_stage0");
  EXPECT_EQ(names.tensor("S1_main"), "t_S1_main");
  EXPECT_EQ(names.tensor("new"), "new_");
  EXPECT_NE(names.tensor("t_S2"), names.tensor("S2"));
  const RunReport report = run_program(program, cpu_run_request(5));
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

// Tensors named like the helpers the generated code defines or calls (line_aligned, kept, apply,
// INFINITY...): a tensor called line_aligned once made the code fail to build ("'line_aligned'
// cannot be used as a function": an internal error for a valid program).
TEST(CpuNames, TensorsNamedLikeTheHelpersTheCodeCalls) {
  const std::string helpers = R"(def helpers(f32(M, N) line_aligned, f32(N) kept, f32(N) apply) -> (f32(M, N) INFINITY) {
  mx(m) max=! line_aligned(m, n)
  e(m, n) = exp(line_aligned(m, n) - mx(m)) * kept(n) + apply(n)
  s(m) +=! e(m, n)
  INFINITY(m, n) = e(m, n) / s(m)
})";
  const Program program = compile_text(helpers, {{"M", 37}, {"N", 20}}, "helpers.tc");
  const CpuNames names(plan_cpu(program, CpuScheduleOptions{}));
  for (const char* tensor : {"line_aligned", "kept", "apply", "INFINITY"}) EXPECT_EQ(names.tensor(tensor), std::string(tensor) + "_");
  const RunReport report = run_program(program, cpu_run_request(5));
  EXPECT_TRUE(report.check.ok) << report.check.to_string();
}

}  // namespace
}  // namespace polyfuse::testing
