// Tensors named like the kernels' own identifiers (codegen/tensor_identifiers.h) run correctly:
// the sm_80 kernel's `warp`, `smem` and `acc`, the sm_90a kernel's `full`, `empty`, `tile` and
// `c` as the tensors of a GEMM + bias + ReLU. Without the renaming these kernels do not compile
// (a parameter shadowed by a local) — or, where the types happen to agree, read the wrong object.
#include <gtest/gtest.h>

#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

TEST(TensorIdentifiersEmu, Sm80KernelWithTensorsNamedLikeItsVariables) {
  const Program program = compile_program(
      "def g(f16(M, K) warp, f16(K, N) smem, f16(N) acc) -> (f16(M, N) D) {\n"
      "  C(m, n) +=! warp(m, k) * smem(k, n)\n"
      "  D(m, n) = relu(C(m, n) + acc(n))\n"
      "}\n",
      {{"M", 33}, {"N", 40}, {"K", 24}});
  const EmuRun run = run_on_emulator(program, small_tiles());
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
}

TEST(TensorIdentifiersEmu, Sm90aKernelWithTensorsNamedLikeItsVariables) {
  EmulatedSms sms(2);
  const Program program = compile_program(
      "def g(f16(M, K) full, f16(K, N) empty, f16(N) c) -> (f16(M, N) tile) {\n"
      "  C(m, n) +=! full(m, k) * empty(k, n)\n"
      "  tile(m, n) = relu(C(m, n) + c(n))\n"
      "}\n",
      {{"M", 70}, {"N", 40}, {"K", 72}});
  const EmuRun run = run_on_emulator(program, default_gpu_options(Arch::sm_90a));
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  EXPECT_GT(run.stats.counter("wgmma_instructions"), 0u);
}

}  // namespace
}  // namespace polyfuse
