// The `polyfuse` command line, run as a separate process: exit codes (0 success, 1 user
// error), located messages on stderr, output on stdout or -o, and --help.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

#include "cli_runner.h"
#include "support/golden.h"

namespace {

namespace fs = std::filesystem;
using Result = polyfuse::testing::CliResult;

Result run(const std::string& args) { return polyfuse::testing::run_cli(args); }
fs::path temp_dir() { return polyfuse::testing::cli_temp_dir(); }
fs::path write_temp(const std::string& name, const std::string& text) {
  return polyfuse::testing::write_temp_file(name, text);
}

class CliExamples : public ::testing::TestWithParam<std::string> {};

TEST_P(CliExamples, CompileEmitIrSucceeds) {
  Result r = run("compile examples/" + GetParam() + ".tc --emit=ir");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("def " + GetParam(), 0), 0u) << r.out.substr(0, 200);
  EXPECT_NE(r.out.find("idioms:"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Examples, CliExamples,
                         ::testing::Values("gemm", "gemm_bias_relu", "relu_gemm", "dequant_gemm", "multihead_batched_gemm", "add_gemms",
                                           "batched_gemm", "brgemm"));

TEST(Cli, BoundSizesGolden) {
  Result r = run("compile examples/gemm.tc -D M=128 -D N=256 -DK=64");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(polyfuse::testing::matches_golden(r.out, "tools/gemm_bound.ir"));
}

TEST(Cli, SyntaxErrorIsLocatedWithCaret) {
  fs::path file = write_temp("bad.tc", "def g(f16(M, K) A) -> (f16(M) C) {\n  C(m) +=! A(m, k) $ 2\n}\n");
  Result r = run("compile '" + file.string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, fmt::format("{}:2:20: error: unexpected character '$'\n"
                               "  C(m) +=! A(m, k) $ 2\n"
                               "                   ^\n", file.string()));
}

TEST(Cli, SeveralErrorsInOneRun) {
  fs::path file = write_temp("two.tc",
                             "def g(f16(M, K) A) -> (f16(M) C) {\n  C(m) +=! X(m, k)\n  C(m) += Y(m, k)\n}\n");
  Result r = run("compile '" + file.string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(":2:12: error: undeclared tensor 'X'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":3:11: error: undeclared tensor 'Y'"), std::string::npos) << r.err;
}

TEST(Cli, UserErrorsExitWithOne) {
  EXPECT_EQ(run("compile does/not/exist.tc").err, "polyfuse: error: cannot read 'does/not/exist.tc': no such file\n");
  EXPECT_EQ(run("compile examples").err, "polyfuse: error: cannot read 'examples': not a regular file\n");
  Result bad_define = run("compile examples/gemm.tc -D M=0");
  EXPECT_EQ(bad_define.exit_code, 1);
  EXPECT_EQ(bad_define.err, "polyfuse: error: -D 'M=0': sizes must be at least 1\n");
  // A batch-reduce GEMM is a GEMM over grouped indices (a copy kernel, then the GEMM): a plan
  // of several kernels, which needs its sizes bound.
  Result unbound_plan = run("compile examples/brgemm.tc --emit=cuda");
  EXPECT_EQ(unbound_plan.exit_code, 1);
  EXPECT_NE(unbound_plan.err.find("brgemm.tc:3:5: error: def 'brgemm' is not one fused kernel, and a plan of several "
                                  "kernels needs every size bound (the workspace's layout is fixed at compile time): "
                                  "bind R, M, K, N"),
            std::string::npos)
      << unbound_plan.err;
  Result too_big = run("compile examples/gemm.tc --emit=cuda --block 256x256x64 --arch sm_86");
  EXPECT_EQ(too_big.exit_code, 1);
  EXPECT_EQ(too_big.err,
            "polyfuse: error: block tile 256x256x64 with 2 stage(s) needs 131072 bytes of shared memory per block; "
            "sm_86 allows 101376 (29696 bytes over): use fewer --stages or a smaller --block\n");
  Result unbound = run("run examples/gemm.tc --backend=emu");
  EXPECT_EQ(unbound.exit_code, 1);
  EXPECT_EQ(unbound.err, "polyfuse: error: def 'gemm': run needs every size bound; add -D for M, K, N\n");
  // The inner layers name options by their API names; the command line spells its flags.
  Result split_k = run("compile examples/gemm.tc --emit=cuda --split-k 3");
  EXPECT_EQ(split_k.exit_code, 1);
  EXPECT_EQ(split_k.err, "polyfuse: error: --split-k must be 1, 2 or 4, got 3\n");
  // two 64x64 accumulator tiles alone take 256 registers a thread (swiglu's two matmuls)
  Result warp = run("compile examples/swiglu.tc --emit=cuda --warp 64x64x32");
  EXPECT_EQ(warp.exit_code, 1);
  EXPECT_EQ(warp.err,
            "polyfuse: error: def 'swiglu': warp tile 64x64x32 needs 360 registers per thread by the register model "
            "(main loop 360 = 256 accumulators + 1 x 48 fragments + 24 copy addresses + 16 + 16 edge blocks; epilogue "
            "272 = 256 tile registers + 0 operand registers + 16); sm_90 allows 255 to each of the block's 128 threads "
            "(105 over): use a smaller --warp\n");
  Result unknown_emit = run("compile examples/gemm.tc --emit=llvm");
  EXPECT_EQ(unknown_emit.exit_code, 1);
  EXPECT_NE(unknown_emit.err.find("llvm"), std::string::npos) << unknown_emit.err;
  EXPECT_EQ(run("").exit_code, 1);
  EXPECT_EQ(run("frobnicate").exit_code, 1);
  EXPECT_EQ(run("compile").exit_code, 1);
  Result bad_def = run("compile examples/gemm.tc --def nope");
  EXPECT_EQ(bad_def.exit_code, 1);
  EXPECT_EQ(bad_def.err, "polyfuse: error: --def nope: examples/gemm.tc has no def of that name (it has: gemm)\n");
}

TEST(Cli, UnusedDefineIsOnlyAWarning) {
  Result r = run("compile examples/gemm.tc -D Q=7");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "examples/gemm.tc: warning: -D Q=7: no def in this file has a size named 'Q'\n");
}

TEST(Cli, DefSelectsOneOfSeveral) {
  fs::path file = write_temp("two_defs.tc",
                             "def a(f32(N) x) -> (f32(N) y) { y(i) = x(i) }\n"
                             "def b(f32(N) x) -> (f32(N) y) { y(i) = relu(x(i)) }\n");
  Result all = run("compile '" + file.string() + "'");
  EXPECT_EQ(all.exit_code, 0);
  EXPECT_NE(all.out.find("def a"), std::string::npos);
  EXPECT_NE(all.out.find("def b"), std::string::npos);
  Result one = run("compile '" + file.string() + "' --def b");
  EXPECT_EQ(one.exit_code, 0);
  EXPECT_EQ(one.out.find("def a"), std::string::npos);
  EXPECT_EQ(one.out.rfind("def b", 0), 0u);
}

TEST(Cli, OutputFile) {
  fs::path out = temp_dir() / "gemm.ir";
  Result r = run("compile examples/gemm.tc -o '" + out.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(polyfuse::testing::read_text_file(out.string()), run("compile examples/gemm.tc").out);
  Result unwritable = run("compile examples/gemm.tc -o /nonexistent-dir/x.ir");
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_EQ(unwritable.err, "polyfuse: error: cannot write '/nonexistent-dir/x.ir'\n");
}

// Returns `text` with the first occurrence of `from` replaced by `to` (which must exist).
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the kernel";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// `run --kernel-source` runs a hand-edited copy of the generated kernel with the same
// launch, inputs and reference check: the unedited copy passes, a wrong edit fails the
// check, and a kernel generated for other sizes or a file without the kernel are refused.
TEST(Cli, RunsAnEditedKernelSource) {
  const std::string sizes = "-D M=64 -D N=64 -D K=64 --block 64x64x32 --backend=emu";
  fs::path cu = temp_dir() / "edit_me.cu";
  ASSERT_EQ(run("compile examples/gemm_bias_relu.tc " + sizes.substr(0, sizes.find(" --backend")) +
                " --emit=cuda -o '" + cu.string() + "'")
                .exit_code,
            0);
  const std::string source = polyfuse::testing::read_text_file(cu.string());
  Result same = run("run examples/gemm_bias_relu.tc " + sizes + " --kernel-source '" + cu.string() + "'");
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("check: ok"), std::string::npos) << same.out;

  fs::path no_relu = write_temp("no_relu.cu", edited(source, "pf::op::relu(", "("));
  Result failed = run("run examples/gemm_bias_relu.tc " + sizes + " --kernel-source '" + no_relu.string() + "'");
  EXPECT_EQ(failed.exit_code, 2) << "a failed check" << failed.err;
  EXPECT_NE(failed.out.find("check: FAILED"), std::string::npos) << failed.out;

  Result other_sizes = run("run examples/gemm_bias_relu.tc -D M=128 -D N=64 -D K=64 --block 64x64x32 --backend=emu "
                           "--kernel-source '" + cu.string() + "'");
  EXPECT_EQ(other_sizes.exit_code, 1);
  EXPECT_NE(other_sizes.err.find("was generated for another launch configuration"), std::string::npos) << other_sizes.err;

  fs::path empty = write_temp("empty.cu", "// nothing here\n");
  Result no_kernel = run("run examples/gemm_bias_relu.tc " + sizes + " --kernel-source '" + empty.string() + "'");
  EXPECT_EQ(no_kernel.exit_code, 1);
  EXPECT_NE(no_kernel.err.find("empty.cu defines no __global__ kernel; the GPU target runs the CUDA of --emit=cuda"),
            std::string::npos)
      << no_kernel.err;
  fs::path renamed = write_temp("renamed.cu", edited(source, " gemm_bias_relu(", " renamed_kernel("));
  Result other_kernel = run("run examples/gemm_bias_relu.tc " + sizes + " --kernel-source '" + renamed.string() + "'");
  EXPECT_EQ(other_kernel.exit_code, 1);
  EXPECT_NE(other_kernel.err.find("defines no kernel 'gemm_bias_relu'"), std::string::npos) << other_kernel.err;

  Result cpu = run("run examples/gemm_bias_relu.tc -D M=64 -D N=64 -D K=64 --target=cpu --kernel-source '" +
                   cu.string() + "'");
  EXPECT_EQ(cpu.exit_code, 1);
  EXPECT_NE(cpu.err.find("edit_me.cu is a CUDA kernel; the CPU target runs the C++ of --emit=cpu"), std::string::npos)
      << cpu.err;
}

// The CPU target's thread count is in its code (num_threads clauses): `run --threads 1` of a
// file compiled for every core would run on every core, so it is refused; the same count runs.
TEST(Cli, RunsACpuKernelSourceOnlyAtItsThreadCount) {
  const std::string sizes = "-D M=40 -D N=24 -D K=16 --target=cpu";
  fs::path every_core = temp_dir() / "every_core.cpp", one = temp_dir() / "one_thread.cpp";
  ASSERT_EQ(run("compile examples/gemm_bias_relu.tc " + sizes + " --emit=cpu -o '" + every_core.string() + "'").exit_code, 0);
  ASSERT_EQ(run("compile examples/gemm_bias_relu.tc " + sizes + " --threads 1 --emit=cpu -o '" + one.string() + "'").exit_code,
            0);
  EXPECT_NE(polyfuse::testing::read_text_file(one.string()).find("\n// Threads: 1 (num_threads clauses)\n"),
            std::string::npos);

  Result same = run("run examples/gemm_bias_relu.tc " + sizes + " --threads 1 --kernel-source '" + one.string() + "'");
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("check: ok"), std::string::npos) << same.out;
  Result other = run("run examples/gemm_bias_relu.tc " + sizes + " --threads 1 --kernel-source '" + every_core.string() + "'");
  EXPECT_EQ(other.exit_code, 1) << other.out;
  EXPECT_NE(other.err.find("every_core.cpp was generated for another thread count:\n"
                           "  it says   // Threads: OpenMP's default (every core, or OMP_NUM_THREADS)\n"
                           "  this run: // Threads: 1 (num_threads clauses)\ncompile and run with the same --threads"),
            std::string::npos)
      << other.err;
}

// (The test's environment points POLYFUSE_CACHE_DIR into the build tree: tests/tools/CMakeLists.txt.)
// It clears a cache of its own: the suite's other tests run beside it on the shared test cache
// (a clear there deleted a generated file another test's compile was about to read).
TEST(Cli, CacheInfoAndClear) {
  ASSERT_NE(std::getenv("POLYFUSE_CACHE_DIR"), nullptr) << "never clear the user's own cache";
  const std::string own = "POLYFUSE_CACHE_DIR='" + (polyfuse::testing::cli_temp_dir() / "own-cache").string() + "'";
  Result filled = polyfuse::testing::run_cli("run examples/gemm.tc -D M=16 -D N=16 -D K=16 --backend=emu", own);
  EXPECT_EQ(filled.exit_code, 0) << filled.err;
  Result info = polyfuse::testing::run_cli("cache info", own);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  for (const char* line : {"cache: ", "limit: ", "cuda: ", "emu: ", "cpu: ", "autotune: ", "total: "})
    EXPECT_NE(info.out.find(line), std::string::npos) << line << " missing from:\n" << info.out;
  EXPECT_NE(info.out.find("own-cache"), std::string::npos) << info.out;
  Result clear = polyfuse::testing::run_cli("cache clear", own);
  EXPECT_EQ(clear.exit_code, 0) << clear.err;
  EXPECT_EQ(clear.out.rfind("cache: removed ", 0), 0u) << clear.out;
  Result bad = polyfuse::testing::run_cli("cache frob", own);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("frob not in {info,clear}"), std::string::npos) << bad.err;
}

// A bound size used as a value is that constant on every target; unbound, it is refused
// with its place.
TEST(Cli, SizesAsValues) {
  fs::path file = write_temp("scaled_gemm.tc",
                             "def scaled_gemm(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D) {\n"
                             "  C(m, n) +=! A(m, k) * B(k, n)\n"
                             "  D(m, n) = C(m, n) / K - M * 0.5\n"
                             "}\n");
  for (const char* target : {"--backend=emu", "--target=cpu"}) {
    Result r = run("run '" + file.string() + "' -D M=40 -D N=24 -D K=72 " + target);
    EXPECT_EQ(r.exit_code, 0) << target << ": " << r.err;
    EXPECT_NE(r.out.find("check: ok"), std::string::npos) << target << ": " << r.out;
  }
  Result ir = run("compile '" + file.string() + "' -D M=40 -D N=24 -D K=72");
  EXPECT_NE(ir.out.find("C(m, n) / 72 - 40 * 0.5"), std::string::npos) << ir.out;
  Result unbound = run("compile '" + file.string() + "' -D M=40 -D N=24");
  EXPECT_EQ(unbound.exit_code, 1);
  EXPECT_EQ(unbound.err.substr(unbound.err.find(":3:")),
            ":3:23: error: size 'K' is used as a value, which needs its value at compile time: bind it (-D K=VALUE)\n"
            "  D(m, n) = C(m, n) / K - M * 0.5\n"
            "                      ^\n");
}

TEST(Cli, MalformedInputsNeverCrash) {
  std::string deep = "def f(f32(N) a) -> (f32(N) b) { b(i) = " + std::string(100000, '(') + "a(i) }";
  std::string binary;
  for (int i = 0; i < 4096; ++i) binary += static_cast<char>((i * 7919) & 0xff);
  std::vector<std::string> inputs = {"", std::string("\0\0\0", 3), deep, binary,
                                     "def f(f32(N) a) -> (f32(N) b) { b(i) = 1" + std::string(30, '9') + " }"};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    fs::path file = write_temp(fmt::format("malformed{}.tc", i), inputs[i]);
    Result r = run("compile '" + file.string() + "'");
    EXPECT_EQ(r.exit_code, 1) << "input " << i << ": " << r.err;
    EXPECT_NE(r.err.find(": error: "), std::string::npos) << "input " << i << ": " << r.err;
  }
}

}  // namespace
