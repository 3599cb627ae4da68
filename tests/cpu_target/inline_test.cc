// Cheap temporaries computed where they are read on the CPU target (schedule/cpu_inline.h):
// which temporaries go (a layer norm's d, readers at other indices, a reduction over the
// temporary) and which stay (each rule of the pass broken once), and that the program computes
// the bits of the stored temporary, on 1 and 3 threads, checked against the reference.
#include <gtest/gtest.h>

#include <algorithm>

#include "codegen/cpu_emit.h"
#include "frontend/ir_printer.h"
#include "schedule/cpu_inline.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

RunRequest request_for(int threads, bool inline_temporaries) {
  RunRequest request = cpu_run_request(13);
  request.cpu_schedule.threads = threads;
  request.cpu_schedule.min_parallel_flops = 0;
  request.cpu_schedule.inline_temporaries = inline_temporaries;
  return request;
}

bool has_tensor(const Program& program, const std::string& name) {
  return std::any_of(program.tensors.begin(), program.tensors.end(), [&](const Tensor& t) { return t.name == name; });
}

// The outputs with the temporaries inlined are those with them stored, bit for bit.
void expect_the_stored_bits(const Program& program) {
  expect_option_keeps_the_bits(program, &CpuScheduleOptions::inline_temporaries, 13);
}

// An f32 layer norm's d goes; with f16 X, d stays (X would be widened where d is read: three
// times, by scalar conversions in the loop nests, instead of once by a vector call).
TEST(CpuInline, LayerNormsDIsComputedWhereItIsRead) {
  const Program f16 = compile_text(example_text("layernorm_rows"), {{"M", 7}, {"N", 29}}, "layernorm_rows.tc");
  EXPECT_TRUE(has_tensor(inline_cheap_temporaries(f16), "d"));
  expect_the_stored_bits(f16);
  for (const auto& [m, n] : {std::pair<std::int64_t, std::int64_t>{37, 29}, {5, 300}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
    const Program program = compile_text(example_text("layernorm_rows", "f32"), {{"M", m}, {"N", n}}, "layernorm_rows.tc");
    const Program inlined = inline_cheap_temporaries(program);
    EXPECT_FALSE(has_tensor(inlined, "d"));
    ASSERT_EQ(inlined.statements.size(), 3u);
    EXPECT_EQ(print_statement_source(inlined.statements[1]), "var(m) +=! (X(m, n) - mean(m)) * (X(m, n) - mean(m)) / " + std::to_string(n));
    const std::string code = emit_cpu(program, request_for(1, true).cpu_schedule);
    EXPECT_EQ(code.find("d(m, n) ="), std::string::npos) << code;
    EXPECT_NE(emit_cpu(program, request_for(1, false).cpu_schedule).find("d(m, n) = X(m, n) - mean(m)"), std::string::npos);
    expect_the_stored_bits(program);
  }
}

// Readers at other indices (transposed), a row reduction over the temporary and a reader of
// two cheap temporaries, one made of the other.
TEST(CpuInline, ReadersGetTheElementTheyRead) {
  const Program program = compile_text(R"(def f(f32(M, N) X, f32(N) c) -> (f32(N, M) Y, f32(N) S) {
  t(m, n) = X(m, n) - c(n)
  u(m, n) = t(m, n) * 0.5
  Y(n, m) = u(m, n) + t(m, n)
  S(n) +=! t(m, n)
})",
                                       {{"M", 13}, {"N", 22}}, "readers.tc");
  const Program inlined = inline_cheap_temporaries(program);
  EXPECT_FALSE(has_tensor(inlined, "t"));
  EXPECT_FALSE(has_tensor(inlined, "u"));
  ASSERT_EQ(inlined.statements.size(), 2u);
  EXPECT_EQ(print_statement_source(inlined.statements[0]), "Y(n, m) = (X(m, n) - c(n)) * 0.5 + (X(m, n) - c(n))");
  EXPECT_EQ(print_statement_source(inlined.statements[1]), "S(n) +=! X(m, n) - c(n)");
  expect_the_stored_bits(program);
}

// Each rule broken once: the temporary stays, and the program still runs right.
TEST(CpuInline, TemporariesOutsideTheRuleStay) {
  struct Case {
    const char* why;
    const char* text;
    const char* stays;
  };
  const Case cases[] = {
      {"a call (exp)", "def f(f32(M, N) X) -> (f32(M, N) Y) {\n  t(m, n) = exp(X(m, n))\n  Y(m, n) = t(m, n) * 2\n}\n", "t"},
      {"an f16 temporary", "def f(f16(M, N) X, f16(N) c) -> (f32(M, N) Y) {\n  t(m, n) = X(m, n) + c(n)\n  Y(m, n) = t(m, n) * 2\n}\n",
       "t"},
      {"an f16 source", "def f(f16(M, N) X, f32(N) c) -> (f32(M, N) Y) {\n  t(m, n) = X(m, n) + c(n)\n  Y(m, n) = t(m, n) * 2\n}\n",
       "t"},
      {"a matmul's result (its epilogue)",
       "def f(f32(M, K) A, f32(K, N) B, f32(N) c) -> (f32(M, N) Y) {\n  C(m, n) +=! A(m, k) * B(k, n)\n"
       "  t(m, n) = C(m, n) + c(n)\n  Y(m, n) = t(m, n) * t(m, n)\n}\n",
       "t"},
      {"a matmul operand",
       "def f(f32(M, K) A, f32(M) c, f32(K, N) B) -> (f32(M, N) C) {\n  t(m, k) = A(m, k) - c(m)\n  C(m, n) +=! t(m, k) * B(k, n)\n}\n",
       "t"},
      {"five reads",
       "def f(f32(M, N) X) -> (f32(M, N) Y) {\n  t(m, n) = X(m, n) + 1\n"
       "  Y(m, n) = t(m, n) * t(m, n) + t(m, n) * t(m, n) + t(m, n)\n}\n",
       "t"},
      {"a source written after it",
       "def f(f32(M, N) X) -> (f32(M, N) Y) {\n  u(m) +=! X(m, n)\n  t(m, n) = X(m, n) - u(m)\n  u(m) = u(m) * 2\n"
       "  Y(m, n) = t(m, n) + u(m)\n}\n",
       "t"},
      {"a reader's shifted read",
       "def f(f32(M, N) X) -> (f32(M, P) Y) {\n  t(m, n) = X(m, n) * 3\n  Y(m, j) = t(m, j + 1)\n}\n",
       "t"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    const Program program = compile_text(c.text, {{"M", 9}, {"N", 11}, {"K", 7}, {"P", 10}}, "stays.tc");
    EXPECT_TRUE(has_tensor(inline_cheap_temporaries(program), c.stays));
    const RunReport report = run_program(program, request_for(1, true));
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

}  // namespace
}  // namespace polyfuse::testing
