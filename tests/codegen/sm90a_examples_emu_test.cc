// Every GPU example (examples/*.tc) with --arch sm_90a on the emulator against the exact reference
// (issue 18's done-when): at tile-friendly sizes, at odd sizes whose operands TMA can load (edge
// tiles, K tails) and at odd sizes it cannot (the threads copy one operand, or the mma.sync
// fallback). A def of one fused kernel stores only its outputs (its temporaries and the matmul's
// result never reach global memory); a plan of several kernels stores its outputs and its
// workspace. The test prints which main loop each run took (the kernel's counters: wgmma or not).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emu_harness.h"
#include "example_shapes.h"
#include "gemm_programs.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

TEST(Sm90aExamplesEmu, EveryExampleRunsAndStoresOnlyItsOutputs) {
  const EmulatedSms sms(4);  // few SMs: the persistent kernels' blocks walk several tiles
  GpuOptions options = default_gpu_options(Arch::sm_90a);
  int runs = 0, on_wgmma = 0;
  for (const ExampleShape& e : example_shapes()) {
    SCOPED_TRACE(example_label(e));
    const Program program = example_program(e);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program));
    const EmuRun run = run_on_emulator(program, options);
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
    std::uint64_t outputs = 0;
    for (const Tensor& t : program.tensors)
      if (t.role == TensorRole::output) outputs += static_cast<std::uint64_t>(run.outputs.at(t.name).size()) * size_in_bytes(t.type);
    std::uint64_t workspace = 0;
    for (const PlanTemporary& t : plan.temporaries) workspace += static_cast<std::uint64_t>(t.bytes);
    const std::uint64_t stored = run.stats.counter("global_bytes_stored");
    if (plan.is_single_fused_kernel()) EXPECT_EQ(stored, outputs) << "only the outputs are stored";
    else EXPECT_LE(stored, outputs + workspace) << "the outputs and the plan's workspace";
    const bool wgmma = run.stats.counter("wgmma_instructions") > 0;
    on_wgmma += wgmma;
    ++runs;
    std::printf("  %-60s %-14s %s\n", example_label(e).c_str(), wgmma ? "TMA + wgmma" : "other kernels",
                plan.is_single_fused_kernel() ? "one fused kernel" : fmt::format("plan of {}", plan.kernels.size()).c_str());
  }
  std::printf("sm_90a examples: %d runs, %d on the TMA + wgmma kernel\n", runs, on_wgmma);
}

}  // namespace
}  // namespace polyfuse
