// Threads in the CPU target's plain loop nests (schedule/loop_nest_threads.h): which statements
// split their outermost written loop and why the others do not; the examples whose statements
// run as loop nests (a whole def, or stages between blocked ones) give the same bits on 1 and 3
// threads (uneven over the rows), and their code does split (else the test proves nothing).
#include <gtest/gtest.h>

#include <optional>
#include <regex>

#include "codegen/cpu_emit.h"
#include "codegen/cpu_loop_nest.h"
#include "runtime/api/run_program.h"
#include "schedule/loop_nest_threads.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

TEST(LoopNestThreads, WhichOuterLoopsSplit) {
  const Program program = compile_text(R"(
def rules(f32(M, N) X, int64(M) I, f32(N, D) W) -> (f32(M) Y, f32(M) R, f32() total, f32(M, D) G, f32(M) P) {
  Y(m) = X(m, 0) * 2
  Y(m) = Y(m) + X(m, 1)
  R(m) = X(m, 2)
  R(m) = X(m, 3) + R(M - 1 - m)
  total() +=! X(m, n)
  G(m, d) = W(I(m), d)
  P(m) *=! 1 + X(m, n) * 0.125
}
)",
                                       {{"M", 9}, {"N", 5}, {"D", 3}}, "rules.tc");
  std::vector<std::string> reasons;
  for (const Statement& statement : program.statements) reasons.push_back(loop_nest_serial_reason(statement));
  EXPECT_EQ(reasons, (std::vector<std::string>{"", "", "", "it reads R at another element than it writes", "a scalar result",
                                               "a gather (its range check throws)", ""}));
  EXPECT_EQ(loop_nest_outer_index(program.statements[6]), "m");
  // one point: 32 for its loads and stores, plus its operations (1 + X * 0.125: two)
  EXPECT_EQ(loop_nest_flops(program, program.statements[6]), 9 * 5 * (32 + 2));
  CpuScheduleOptions options;
  options.threads = 2;
  options.min_parallel_flops = 0;
  const std::string schedule = cpu_loop_nest_schedule(program, options, "no matmul");
  EXPECT_NE(schedule.find("S1: Y(m) = Y(m) + X(m, 1)  (parallel over m on 2 threads)"), std::string::npos) << schedule;
  EXPECT_NE(schedule.find("(one thread: it reads R at another element than it writes)"), std::string::npos) << schedule;
  options.min_parallel_flops = 1 << 20;
  EXPECT_NE(cpu_loop_nest_schedule(program, options, "no matmul").find("(one thread: 1530 flops, below the parallel threshold)"),
            std::string::npos);
}

TEST(LoopNestThreads, SameBitsOnOneAndThreeThreads) {
  for (const std::string example : {"softmax", "layernorm_rows", "gemm_softmax", "layernorm"}) {
    SCOPED_TRACE(example);
    const Program program = compile_text(example_text(example), {{"M", 37}, {"N", 53}, {"K", 20}}, example + ".tc");
    RunRequest request = cpu_run_request(42);
    request.cpu_schedule.min_parallel_flops = 0;
    std::optional<reference::TensorData> one_thread;
    for (const int threads : {1, 3}) {
      request.cpu_schedule.threads = threads;
      const std::string code = emit_cpu(program, request.cpu_schedule);
      // a row reduction's loop nest (its comment, `// S1: mx(m) max=! C(m, n)`), or the row chain it is
      // part of (schedule/cpu_row_chains.h), then its split outer loop
      const std::regex split("(// S[0-9]+: [^\n]*=! [^\n]*|// stage[0-9]+\\.\\.stage[0-9]+: a row chain \\(S[^\n]*)\n "
                             "*#pragma omp parallel for num_threads\\(" +
                             std::to_string(threads) + "\\) schedule\\(static\\)\n *for \\(");
      EXPECT_TRUE(std::regex_search(code, split)) << "no reduction's loop nest split:\n" << code;
      const RunReport report = run_program(program, request);
      EXPECT_TRUE(report.check.ok) << threads << " threads: " << report.check.to_string();
      if (!one_thread) one_thread = report.outputs;
      else EXPECT_TRUE(report.outputs == *one_thread) << threads << " threads differ from 1";
    }
  }
}

}  // namespace
}  // namespace polyfuse::testing
