// A pointwise statement's arithmetic in one generated loop (codegen/cpu_pointwise_calls.h): which
// statements get the loop, and that it computes the bits of the kernels/cpu calls it replaces (one
// IEEE operation at a time: the generated code is built with -ffp-contract=off), on 1 and 3 threads,
// against the reference.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/cpu_emit.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

const char* const kOneLoop = "// the arithmetic, one pass";

RunRequest request_for(int threads, bool loops) {
  RunRequest request = cpu_run_request(11);
  request.cpu_schedule.threads = threads;
  request.cpu_schedule.min_parallel_flops = 0;
  request.cpu_schedule.pointwise_loops = loops;
  return request;
}

// The outputs with the loops are those of the calls, bit for bit.
void expect_the_calls_bits(const Program& program) {
  expect_option_keeps_the_bits(program, &CpuScheduleOptions::pointwise_loops, 11);
}

TEST(PointwiseLoops, LayerNormsScaleAndShiftIsOneLoop) {
  const Program program =
      compile_text(example_text("layernorm_rows", "f32"), {{"M", 37}, {"N", 29}}, "layernorm_rows.tc");
  const std::string code = emit_cpu(program, request_for(1, true).cpu_schedule);
  // Y = d * rsqrt(var(m) + 1e-5) * gamma(n) + beta(n): the row's factor by a call, once a row;
  // the two products and the sum in the loop.
  EXPECT_NE(code.find("S3_add_rsqrt(var + m0"), std::string::npos) << code;
  EXPECT_NE(code.find(kOneLoop), std::string::npos) << code;
  EXPECT_EQ(code.find("S3_mul("), std::string::npos) << code;
  EXPECT_EQ(emit_cpu(program, request_for(1, false).cpu_schedule).find(kOneLoop), std::string::npos);
  expect_the_calls_bits(program);
}

// Every arithmetic operation, a negation, literals, a row and a column vector, and a
// transcendental part that the calls compute first into a scratch block.
TEST(PointwiseLoops, EveryOperationGivesTheCallsBits) {
  const Program program = compile_text(R"(def f(f32(M, N) A, f32(M, N) B, f32(N) c, f32(M) r) -> (f32(M, N) Y) {
  Y(m, n) = max(A(m, n) * B(m, n) + c(n), -A(m, n)) / (B(m, n) * B(m, n) + r(m) * r(m) + 1.0)
            + exp(A(m, n)) * 0.5 - min(A(m, n), B(m, n) - c(n))
})",
                                       {{"M", 41}, {"N", 35}}, "arithmetic.tc");
  const std::string code = emit_cpu(program, request_for(1, true).cpu_schedule);
  EXPECT_NE(code.find(kOneLoop), std::string::npos) << code;
  EXPECT_NE(code.find("binary_max("), std::string::npos) << code;
  EXPECT_NE(code.find("binary_min("), std::string::npos) << code;
  EXPECT_NE(code.find("UnaryOp::exp"), std::string::npos) << code;
  expect_the_calls_bits(program);
}

// Two statements of one block function with loops: the second reads the first's target and the
// same inputs through the pointers the first declared (it declared them again, and the generated
// code did not build: random program 5498).
TEST(PointwiseLoops, StatementsOfOneBlockShareTheirBlockPointers) {
  const Program program = compile_text(R"(def f(f32(M, N) A, f32(M, N) B, f32(N) c) -> (f32(M, N) Y, f32(M, N) Z) {
  Y(m, n) = A(m, n) * B(m, n) + c(n)
  Z(m, n) = Y(m, n) * A(m, n) - B(m, n)
})",
                                       {{"M", 37}, {"N", 29}}, "two.tc");
  const std::string code = emit_cpu(program, request_for(1, true).cpu_schedule);
  for (const std::string declaration : {"float* const Y_block = ", "const float* const A_block = "}) {
    const std::size_t first = code.find(declaration);
    EXPECT_NE(first, std::string::npos) << code;
    EXPECT_EQ(code.find(declaration, first + 1), std::string::npos) << "declared twice:\n" << code;
  }
  EXPECT_NE(code.find("Z_block[row * 29 + col] = ((Y_block[row * 29 + col] * A_block[row * 29 + col])"),
            std::string::npos)
      << code;
  expect_the_calls_bits(program);
}

// Where the loop would not make fewer passes over the block, the calls stay: one operation (the
// library's vector loop), or two with an f16 target (the loop and the rounding: two passes too).
TEST(PointwiseLoops, WithoutFewerPassesTheCallsStay) {
  const Program softmax = compile_text(example_text("softmax", "f32"), {{"M", 9}, {"N", 40}}, "softmax.tc");
  const std::string code = emit_cpu(softmax, request_for(1, true).cpu_schedule);
  EXPECT_EQ(code.find(kOneLoop), std::string::npos) << code;
  EXPECT_NE(code.find("S3_div("), std::string::npos) << code;
  const Program rmsnorm = compile_text(example_text("rmsnorm"), {{"M", 9}, {"N", 40}, {"K", 24}}, "rmsnorm.tc");
  const std::string rmsnorm_code = emit_cpu(rmsnorm, request_for(1, true).cpu_schedule);
  EXPECT_EQ(rmsnorm_code.find(kOneLoop), std::string::npos) << rmsnorm_code;
  EXPECT_NE(rmsnorm_code.find("S2_mul_2("), std::string::npos) << rmsnorm_code;
}

// f16 and bf16 reads are widened by calls (exactly) and an f16 or bf16 target rounded by one: the
// calls' bits still.
TEST(PointwiseLoops, NarrowValuesAreWidenedAndTheTargetRounded) {
  const Program layernorm = compile_text(example_text("layernorm_rows"), {{"M", 9}, {"N", 40}}, "layernorm_rows.tc");
  const std::string code = emit_cpu(layernorm, request_for(1, true).cpu_schedule);
  EXPECT_NE(code.find(kOneLoop), std::string::npos) << code;
  EXPECT_NE(code.find("S3_widen(gamma + n0"), std::string::npos) << code;
  EXPECT_NE(code.find("S3_store("), std::string::npos) << code;
  expect_the_calls_bits(layernorm);
  const Program bf16 = compile_text(R"(def f(bf16(M, N) A, f32(M, N) B, bf16(N) c, bf16 s) -> (bf16(M, N) Y) {
  Y(m, n) = (A(m, n) - c(n)) * B(m, n) * s + A(m, n)
})",
                                    {{"M", 23}, {"N", 19}}, "narrow.tc");
  const std::string bf16_code = emit_cpu(bf16, request_for(1, true).cpu_schedule);
  EXPECT_NE(bf16_code.find(kOneLoop), std::string::npos) << bf16_code;
  expect_the_calls_bits(bf16);
}

// relu and abs are the loop's too (binary_max(x, 0.0f), unary_abs: exact), and a function of
// arithmetic that takes more passes as calls than as a loop is the loop then one call: a binary
// cross-entropy's log(0.001 + 0.998 * abs(P)) (abs, *, then + and log: three passes) is the loop
// into a scratch block, then log in place (two); an f16 target from that scratch block.
TEST(PointwiseLoops, AFunctionOfLoopArithmeticIsTheLoopThenOneCall) {
  for (const char* type : {"f32", "f16"}) {
    SCOPED_TRACE(type);
    const Program program = compile_text(fmt::format(R"(def bce(f32(M, N) P, f32(M, N) Y) -> ({0}(M, N) L, {0}(M, N) R) {{
  L(m, n) = -(Y(m, n) * log(0.001 + 0.998 * abs(P(m, n))) + (1.0 - Y(m, n)) * log(0.999 - 0.998 * abs(P(m, n))))
  R(m, n) = sqrt(relu(P(m, n) - Y(m, n)) * 2 + abs(Y(m, n)))
}})", type),
                                         {{"M", 29}, {"N", 43}}, "bce.tc");
    const std::string code = emit_cpu(program, request_for(1, true).cpu_schedule);
    EXPECT_NE(code.find("= (0.001f + (0.998f * unary_abs(P_block[row * 43 + col])));"), std::string::npos) << code;
    EXPECT_NE(code.find("static const Unary S0_log({"), std::string::npos) << code;
    EXPECT_NE(code.find("= ((binary_max((P_block[row * 43 + col] - Y_block[row * 43 + col]), 0.0f) * 2.0f) + "
                        "unary_abs(Y_block[row * 43 + col]));"),
              std::string::npos)
        << code;
    EXPECT_NE(code.find("static const Unary S1_sqrt({"), std::string::npos) << code;
    EXPECT_EQ(code.find("UnaryOp::abs"), std::string::npos) << code;
    expect_the_calls_bits(program);
  }
}

}  // namespace
}  // namespace polyfuse::testing
