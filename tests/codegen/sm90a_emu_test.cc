// --arch sm_90a through the driver (run_program) on the emulator, f16 and bf16: shapes whose
// operands TMA can load take the TMA + wgmma main loop (A and B reach the kernel as tensor
// maps the runtime encodes; the counters show wgmma and TMA), shapes where TMA can load only one
// operand copy the other by threads (issue 17's done-when: M = 300, N = 257, K = 128), the others
// the mma.sync fallback (M = 300, N = 257, K = 129; also odd shapes, primes, tile +- 1).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>

#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

void check_sm90a(const std::string& type, int m, int n, int k, bool tma, bool a_row = true, bool b_row = true) {
  Program program = compile_program(gemm_source(type, a_row, b_row), {{"M", m}, {"N", n}, {"K", k}});
  GpuOptions options = default_gpu_options(Arch::sm_90a);
  const EmuRun run = run_on_emulator(program, options);
  const std::string what =
      fmt::format("{} A({}) B({}) M={} N={} K={}: ", type, a_row ? "m, k" : "k, m", b_row ? "k, n" : "n, k", m, n, k);
  EXPECT_TRUE(run.check.ok) << what << run.check.to_string();
  EXPECT_EQ(run.stats.counter("wgmma_instructions") > 0, tma) << what;
  EXPECT_EQ(run.stats.counter("tma_bytes") > 0, tma) << what;
}

TEST(Sm90aEmu, AlignedShapesTakeTmaWgmma) {
  for (const char* type : {"f16", "bf16"})
    for (auto [m, n, k] : {std::array{1, 8, 8}, std::array{300, 256, 128}, std::array{67, 136, 200},
                           std::array{63, 120, 56}, std::array{129, 264, 328}})
      check_sm90a(type, m, n, k, true);
}

// One operand TMA cannot load (B with N = 257, A with K = 37): the threads copy it, TMA the other.
TEST(Sm90aEmu, OneUnalignedOperandIsCopiedByThreads) {
  for (const char* type : {"f16", "bf16"})
    for (auto [m, n, k] : {std::array{300, 257, 128}, std::array{67, 64, 37}})
      check_sm90a(type, m, n, k, true);
}

// The four layouts: A(m, k) or A(k, m), B(k, n) or B(n, k) — TMA boxes of the tensors as
// stored, M/N-major wgmma tiles for the m/n-contiguous ones; aligned, one operand copied by
// threads (an odd extent along its contiguous dimension), and edge tiles with a K tail.
TEST(Sm90aEmu, EveryLayoutTakesTmaWgmma) {
  for (bool a_row : {true, false})
    for (bool b_row : {true, false}) check_sm90a("f16", 72, 136, 200, true, a_row, b_row);
  check_sm90a("bf16", 66, 136, 128, true, false, true);   // A(k, m): rows of 66, copied by threads
  check_sm90a("bf16", 64, 136, 131, true, false, false);  // B(n, k): rows of 131, copied by threads
  check_sm90a("bf16", 67, 130, 128, true, true, false);   // neither: edge tiles in M and N
}

TEST(Sm90aEmu, TwoUnalignedOperandsFallBackToMmaSync) {
  for (const char* type : {"f16", "bf16"})
    for (auto [m, n, k] : {std::array{300, 257, 129}, std::array{1, 1, 1}, std::array{7, 13, 5}})
      check_sm90a(type, m, n, k, false);
}

}  // namespace
}  // namespace polyfuse
