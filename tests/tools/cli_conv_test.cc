// The convolutions from the command line (issue 24), as the README shows them: the strided,
// padded example runs `check: ok` on the emulator and the CPU target, `--emit=plan` says its
// implicit GEMM gathers element by element (C = 3), the conv + bias + ReLU runs as one, and a
// read outside a tensor is a located error with a caret.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "cli_runner.h"

namespace {

using polyfuse::testing::run_cli;

const char* const strided = "examples/conv2d_strided.tc -D N=2 -D H=9 -D W=7 -D C=3 -D K=5 -D R=3 -D S=3 -D P=5 -D Q=4";

TEST(CliConv, StridedPaddedConvolutionRunsOnBothTargets) {
  for (const char* target : {"--backend=emu", "--target=cpu --repeat 1"}) {
    SCOPED_TRACE(target);
    const auto result = run_cli(fmt::format("run {} {}", strided, target));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("check: ok"), std::string::npos) << result.out << result.err;
  }
  const auto plan = run_cli(fmt::format("compile {} --emit=plan", strided));
  EXPECT_NE(plan.out.find("A = I_im2col gathered from I element by element (its channels are not whole 16-byte "
                          "chunks)"),
            std::string::npos)
      << plan.out << plan.err;
}

// The README's implicit-GEMM demo (f32 operands: TF32 tensor cores).
TEST(CliConv, ConvolutionWithBiasAndReluRunsAsAnImplicitGemm) {
  const char* const conv = "examples/conv2d_bias_relu.tc -D N=2 -D H=9 -D W=7 -D C=16 -D K=24 -D R=3 -D S=3";
  const auto result = run_cli(fmt::format("run {} --backend=emu", conv));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("check: ok"), std::string::npos) << result.out << result.err;
  const auto plan = run_cli(fmt::format("compile {} --emit=plan", conv));
  EXPECT_NE(plan.out.find("kernel 0 conv2d_bias_relu_k0 (implicit GEMM)"), std::string::npos) << plan.out << plan.err;
  EXPECT_NE(plan.out.find("as an implicit GEMM: M=(n, h, w) N=(k) K=(r, s, c)"), std::string::npos) << plan.out;
}

TEST(CliConv, ReadOutsideATensorIsALocatedError) {
  const auto result = run_cli("compile tests/frontend/errors/conv_reads_outside.tc --emit=ir");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("tests/frontend/errors/conv_reads_outside.tc:3:21: error: I(n, h + r, w + s, c) reads "
                            "outside tensor 'I': in dimension 2"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("  O(n, h, w, k) +=! I(n, h + r, w + s, c) * F(k, r, s, c)\n                    ^"),
            std::string::npos)
      << result.err;
}

}  // namespace
