// The CPU target's flags of `compile` and `run` (tools/cpu_flags.h): --threads, --cpu-block,
// --min-parallel-flops and --constant, each honoured (what it does to the schedule, the code and
// the run) or refused (on the GPU path, malformed values). cli_flags_test.cc's
// HelpListsExactlyTheTestedFlags counts them as tested here.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cli_runner.h"

namespace {

using polyfuse::testing::CliResult;
using polyfuse::testing::expect_checked_on_cpu;
using polyfuse::testing::expect_refused;
using polyfuse::testing::run_cli;

const std::string sizes = "-D M=64 -D N=64 --define K=64";

// `flag` (its name first, then its value) is refused by compile for the GPU and by run on the
// emulator, each saying why.
void expect_the_gpu_path_refuses(const std::string& flag) {
  const std::string name = flag.substr(0, flag.find(' '));
  const std::string refusal = "polyfuse: error: " + name + " is an option of the CPU target (--target=cpu), but ";
  expect_refused("compile examples/gemm.tc --emit=cuda " + flag,
                 refusal + "this compiles for the GPU (add --target=cpu)\n");
  expect_refused("run examples/gemm.tc " + sizes + " --backend=emu " + flag,
                 refusal + "this runs the GPU kernel (add --target=cpu)\n");
}

// --threads: the CPU target's OpenMP threads, a num_threads clause on the block loops (the
// same results on any count: CpuThreads.* in cpu_target_tests); refused on the GPU path.
TEST(CliCpu, ThreadsReachTheBlockLoops) {
  // several blocks of the Goto blocking in both dimensions (256 x 1024 for a 1 MiB L2), and more
  // work than the parallel threshold (2^23 flops)
  const std::string blocks = "-D M=512 -D N=2048 -D K=64";
  const CliResult three = run_cli("compile examples/gemm_bias_relu.tc " + blocks + " --emit=cpu --threads 3");
  EXPECT_EQ(three.exit_code, 0) << three.err;
  // (the region's threads pack the shared B, then split the blocks)
  EXPECT_NE(three.out.find("#pragma omp parallel num_threads(3)\n"), std::string::npos) << three.out;
  EXPECT_NE(three.out.find("#pragma omp for collapse(2) schedule(static)"), std::string::npos) << three.out;
  EXPECT_TRUE(std::regex_search(three.out, std::regex("//   stage0: parallel over m < 512 in blocks of [0-9]+, n < "
                                                       "2048 in blocks of [0-9]+ on 3 threads \\(")))
      << three.out;
  const CliResult all = run_cli("compile examples/gemm_bias_relu.tc " + blocks + " --emit=cpu");
  EXPECT_EQ(all.out.find(" num_threads("), std::string::npos) << "no --threads: OpenMP's default";
  expect_checked_on_cpu("run examples/gemm_bias_relu.tc " + blocks + " --target=cpu --threads 2 --repeat 1",
                        "gemm_bias_relu");

  expect_the_gpu_path_refuses("--threads 2");
  expect_refused("run examples/gemm.tc " + sizes + " --target=cpu --threads 0",
                 "polyfuse: error: --threads: Value 0 not in range 1 to 4096\nRun 'polyfuse --help' for usage.\n");
}

// --cpu-block and --min-parallel-flops: the CPU target's blocks and parallel threshold (the
// schedule prints both; the code runs and checks at odd blocks on more threads than blocks
// in a row); refused on the GPU path and for malformed values.
TEST(CliCpu, BlocksAndTheParallelThresholdReachTheSchedule) {
  const std::string small = "-D M=30 -D N=30 -D K=100";
  const CliResult blocked =
      run_cli("compile examples/gemm_bias_relu.tc " + small + " --emit=schedule --target=cpu --cpu-block 8x16x24");
  EXPECT_EQ(blocked.exit_code, 0) << blocked.err;
  EXPECT_NE(blocked.out.find("one thread over m < 30 in blocks of 8, n < 30 in blocks of 16 (mc=8 nc=16 kc=24; "),
            std::string::npos)
      << blocked.out;
  EXPECT_NE(blocked.out.find("k = 100 as batch = 4 slice(s) of 24 + a tail of 4"), std::string::npos) << blocked.out;
  const CliResult parallel = run_cli("compile examples/gemm_bias_relu.tc " + small +
                                     " --emit=schedule --target=cpu --cpu-block 8x16x24 --min-parallel-flops 0");
  EXPECT_EQ(parallel.exit_code, 0) << parallel.err;
  EXPECT_NE(parallel.out.find("parallel over m < 30 in blocks of 8, n < 30 in blocks of 16 (mc=8 nc=16 kc=24)"),
            std::string::npos)
      << parallel.out;
  expect_checked_on_cpu("run examples/gemm_bias_relu.tc " + small +
                            " --target=cpu --cpu-block 5x7x3 --min-parallel-flops 0 --threads 3 --repeat 1",
                        "gemm_bias_relu");

  expect_the_gpu_path_refuses("--cpu-block 8x8x8");
  expect_the_gpu_path_refuses("--min-parallel-flops 0");
  expect_refused("run examples/gemm.tc " + sizes + " --target=cpu --cpu-block 8x0x8",
                 "polyfuse: error: cpu-block: expected MxNxK with three positive integers (e.g. 128x128x32), got "
                 "'8x0x8'\n");
  expect_refused("run examples/gemm.tc " + sizes + " --target=cpu --min-parallel-flops -1",
                 "polyfuse: error: --min-parallel-flops: expected 0 or more, got -1\nRun 'polyfuse --help' for "
                 "usage.\n");
}

// --constant: an input whose packed copy the generated code keeps between calls (CpuConstants.*
// in cpu_target_tests); the schedule says so, the library exports forget_constants, the run
// checks; an unknown name and the GPU path are refused.
TEST(CliCpu, ConstantInputsReachTheScheduleAndTheCode) {
  const std::string shape = "-D M=64 -D N=96 -D K=80";
  const CliResult schedule =
      run_cli("compile examples/gemm_bias_relu.tc " + shape + " --target=cpu --emit=schedule --constant B");
  EXPECT_EQ(schedule.exit_code, 0) << schedule.err;
  EXPECT_NE(schedule.out.find("B: input f16 [80, 96], parameter, constant"), std::string::npos) << schedule.out;
  EXPECT_NE(schedule.out.find("B packed on the first call and kept (a constant input)"), std::string::npos)
      << schedule.out;
  const CliResult code = run_cli("compile examples/gemm_bias_relu.tc " + shape + " --emit=cpu --constant B");
  EXPECT_NE(code.out.find("extern \"C\" void polyfuse_gemm_bias_relu_forget_constants()"), std::string::npos) << code.out;
  const CliResult run = run_cli("run examples/gemm_bias_relu.tc " + shape + " --target=cpu --constant B --repeat 3");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("check: ok ("), std::string::npos) << run.out;
  const CliResult unknown = run_cli("compile examples/gemm_bias_relu.tc " + shape + " --emit=cpu --constant W");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("constant input 'W': def 'gemm_bias_relu' has no input of that name (its inputs: A, B, bias)"),
            std::string::npos)
      << unknown.err;
  expect_the_gpu_path_refuses("--constant B");
}

}  // namespace
