// An output stored in a narrower type than f32 and read by a later statement of the same kernel
// is read as stored (codegen/cuda_kernel_layout.h, as_read_back): the kernels that keep the value
// on chip for those reads — the pointwise kernel's locals, the sm_80 and sm_90a matmul
// epilogues (the implicit GEMM's too), the row chain in the matmul kernel, the row-chain kernel —
// keep it rounded. An f16
// output of 1e5 is read back as inf (the reference's value); each program below failed with the
// unrounded value kept (found by scripts/random-programs, seed 15248 on emu90a).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

struct Case {
  const char* name;
  const char* source;
  PlannedKernelKind kind;  // of the plan's one kernel
  // (K = 64, N = 64: the sm_90a matmul takes TMA + wgmma and its own epilogue)
  SizeBindings sizes{{"M", 130}, {"N", 64}, {"K", 64}};
};

TEST(ReadBackEmu, AStoredOutputIsReadAsStored) {
  const Case cases[] = {
      {"pointwise",
       "def f(f32(M, N) X) -> (f16(M, N) Y, f32(M, N) Z) {\n"
       "  Y(i, j) = X(i, j) * 100000\n"
       "  Z(i, j) = Y(i, j) - X(i, j) * 100000\n"
       "}\n",
       PlannedKernelKind::pointwise},
      {"matmul epilogue",
       "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D, f32(M, N) E) {\n"
       "  C(m, n) +=! A(m, k) * B(k, n)\n"
       "  D(m, n) = C(m, n) * 100000\n"
       "  E(m, n) = D(m, n) - C(m, n) * 100000\n"
       "}\n",
       PlannedKernelKind::fused_matmul},
      {"row chain in the matmul kernel",
       "def f(f16(M, K) A, f16(K, N) B) -> (f16(M) S, f32(M, N) E) {\n"
       "  C(m, n) +=! A(m, k) * B(k, n)\n"
       "  S(m) max=! C(m, n) * 100000\n"
       "  E(m, n) = C(m, n) * 100000 - S(m)\n"
       "}\n",
       PlannedKernelKind::fused_matmul},
      {"row-chain kernel",
       "def f(f32(M, N) X) -> (f16(M) S, f32(M, N) Y) {\n"
       "  S(i) max=! X(i, j) * 100000\n"
       "  Y(i, j) = X(i, j) - S(i)\n"
       "}\n",
       PlannedKernelKind::row_chain},
      {"implicit GEMM epilogue",
       "def f(f16(N, H, W, C) I, f16(K, R, S, C) F) -> (f16(N, H, W, K) D, f32(N, H, W, K) E) {\n"
       "  Y(n, h, w, k) +=! I(n, h + r - 1, w + s - 1, c) * F(k, r, s, c) where h in 0:H, w in 0:W, I = 0 outside\n"
       "  D(n, h, w, k) = Y(n, h, w, k) * 100000\n"
       "  E(n, h, w, k) = D(n, h, w, k) - Y(n, h, w, k) * 100000\n"
       "}\n",
       PlannedKernelKind::implicit_gemm,
       {{"N", 2}, {"H", 10}, {"W", 9}, {"C", 16}, {"K", 24}, {"R", 3}, {"S", 3}}},
  };
  for (const Case& c : cases)
    for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
      SCOPED_TRACE(fmt::format("{} on {}", c.name, to_string(arch)));
      const Program program = compile_program(c.source, c.sizes);
      const ProgramPlan plan = plan_program(program, recognize_idioms(program));
      ASSERT_EQ(plan.kernels.size(), 1u) << to_string(plan, program);
      EXPECT_EQ(plan.kernels[0].kind, c.kind) << to_string(plan, program);
      GpuOptions options;
      options.arch = arch;
      options.choose_warp = true;
      const EmuRun run = run_on_emulator(program, options);
      EXPECT_TRUE(run.check.ok) << run.check.to_string();
    }
}

}  // namespace
}  // namespace polyfuse
