// Back-to-back matmuls in one kernel (issue 21 item 2): examples/mlp.tc runs as ONE kernel on
// the emulator against the exact reference — default and odd shapes (M odd, H and N not
// multiples of 16, several N tiles), H = 256, f16 and bf16, rings of 1, 2 and 3 stages,
// epilogues of several statements and operands — and the byte counters show the hidden
// activation A never reaching global memory: no workspace, no A/T/Z argument, X read once,
// W1 and W2 once per block, Y stored once, and no shared-memory bank conflicts. Kernels with a
// barrier removed by hand are reported; chains that do not fit keep two kernels with a note.
#include <gtest/gtest.h>

#include "emu_harness.h"
#include "polyfuse/errors.h"
#include "gemm_programs.h"
#include "schedule/back_to_back.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// Runs `source` at `sizes`, expecting a plan of one back-to-back kernel; checks the bytes.
// Plans `source` at `sizes` (the first kernel's note into `note`), expecting `kernels`
// kernels, the first back-to-back when `back_to_back`; runs it on the emulator with `stages`
// against the reference.
EmuRun run_plan(const std::string& source, const SizeBindings& sizes, std::size_t kernels, bool back_to_back,
                std::string& note, int stages = 2) {
  const Program program = compile_program(source, sizes);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_EQ(plan.kernels.size(), kernels) << to_string(plan, program);
  EXPECT_EQ(plan.kernels[0].kind == PlannedKernelKind::back_to_back, back_to_back) << to_string(plan, program);
  if (back_to_back) {
    EXPECT_EQ(plan.workspace_bytes, 0);
  }
  note = plan.kernels[0].note;
  GpuOptions options = small_tiles();
  options.stages = stages;
  EmuRun run = run_on_emulator(program, options);
  EXPECT_TRUE(run.check.ok) << run.check.to_string();
  return run;
}

void run_back_to_back(const std::string& source, const SizeBindings& sizes, int stages = 2) {
  const std::uint64_t element_bytes = 2;
  std::string note;
  const EmuRun run = run_plan(source, sizes, 1, true, note, stages);
  for (const char* hidden : {"T", "A", "Z"}) EXPECT_EQ(run.stats.buffer(hidden), nullptr) << hidden << " reached global memory";
  const std::uint64_t m = sizes.at("M"), n = sizes.at("N"), k = sizes.at("K"), h = sizes.at("H");
  const std::uint64_t blocks = (m + 63) / 64;
  EXPECT_EQ(bytes_loaded(run, "X"), m * k * element_bytes) << "X read once";
  EXPECT_EQ(bytes_loaded(run, "W1"), blocks * k * h * element_bytes) << "W1 read once per block";
  EXPECT_EQ(bytes_loaded(run, "W2"), blocks * h * n * element_bytes) << "W2 read once per block";
  EXPECT_EQ(bytes_stored(run, "Y"), m * n * 2) << "Y stored once";
  EXPECT_EQ(run.stats.counter("shared_bank_conflicts"), 0u);
  if (source.find("f16(H) b1") != std::string::npos) {  // the epilogues' vectors: once per block (N tile by N tile)
    EXPECT_EQ(bytes_loaded(run, "b1"), blocks * h * element_bytes) << "b1 read once per block";
    EXPECT_EQ(bytes_loaded(run, "b2"), blocks * n * element_bytes) << "b2 read once per block";
  }
}

TEST(BackToBackEmu, MlpRunsAsOneKernel) {
  run_back_to_back(example_source("mlp"), {{"M", 128}, {"N", 64}, {"K", 64}, {"H", 96}});
}

// M odd, H and N not multiples of 16, K not a multiple of the k-step, two N tiles.
TEST(BackToBackEmu, MlpOddShapes) {
  run_back_to_back(example_source("mlp"), {{"M", 67}, {"N", 136}, {"K", 40}, {"H", 72}});
  run_back_to_back(example_source("mlp"), {{"M", 33}, {"N", 40}, {"K", 24}, {"H", 24}});
}

// A ring of one stage (copy, wait, barrier, MMAs, barrier), three N tiles.
TEST(BackToBackEmu, MlpOneStage) {
  run_back_to_back(example_source("mlp"), {{"M", 40}, {"N", 296}, {"K", 48}, {"H", 48}}, 1);
}

// The widest hidden panel one block keeps (H = 256).
TEST(BackToBackEmu, MlpWidestHiddenPanel) {
  run_back_to_back(example_source("mlp"), {{"M", 64}, {"N", 48}, {"K", 32}, {"H", 256}});
}

TEST(BackToBackEmu, Bf16HiddenActivationAndThreeStages) {
  const std::string source =
      "def mlp(bf16(M, K) X, bf16(K, H) W1, bf16(H, N) W2) -> (f16(M, N) Y) {\n"
      "  T(m, h) +=! X(m, k) * W1(k, h)\n"
      "  A(m, h) = bf16(gelu_tanh(T(m, h)))\n"
      "  Z(m, n) +=! A(m, h) * W2(h, n)\n"
      "  Y(m, n) = Z(m, n)\n"
      "}\n";
  run_back_to_back(source, {{"M", 40}, {"N", 72}, {"K", 72}, {"H", 40}}, 3);
}

// Epilogues of several statements (a fresh register tile: T is read twice), a full-matrix
// operand R(m, h) and a row broadcast s(m), an f32 output; N = 50 (its rows 4-byte aligned).
TEST(BackToBackEmu, EpiloguesOfSeveralStatementsAndOperands) {
  const std::string source =
      "def mlp(f16(M, K) X, f16(K, H) W1, f16(H) b1, f16(M, H) R, f16(H, N) W2, f16(M) s) -> (f32(M, N) Y) {\n"
      "  T(m, h) +=! X(m, k) * W1(k, h)\n"
      "  U(m, h) = T(m, h) + b1(h)\n"
      "  A(m, h) = f16(relu(U(m, h)) * T(m, h) + R(m, h))\n"
      "  Z(m, n) +=! A(m, h) * W2(h, n)\n"
      "  Y(m, n) = Z(m, n) * s(m)\n"
      "}\n";
  std::string note;
  const EmuRun run = run_plan(source, {{"M", 37}, {"N", 50}, {"K", 24}, {"H", 56}}, 1, true, note);
  for (const char* hidden : {"T", "U", "A", "Z"}) EXPECT_EQ(run.stats.buffer(hidden), nullptr) << hidden;
  EXPECT_EQ(bytes_stored(run, "Y"), 37u * 50u * 4u);
  EXPECT_EQ(bytes_loaded(run, "b1"), 56u * 2u) << "b1 read once by the one block";
}

// The emulator's error for the mlp kernel with `barrier` (a comment line and the
// __syncthreads() after it) removed, "" when it passes.
std::string error_without(const std::string& barrier) {
  const Program program = compile_program(example_source("mlp"), {{"M", 64}, {"N", 200}, {"K", 32}, {"H", 96}});  // 3 k-steps over H: the last reads stage 0
  EmuRunOptions how;
  int removed = 0;
  how.edit = [&](const std::string& source) {
    std::string edited = source;
    const std::size_t at = edited.find(barrier);
    if (at != std::string::npos) {
      edited.erase(at, barrier.size());
      ++removed;
    }
    return edited;
  };
  std::string error;
  try {
    run_on_emulator(program, small_tiles(), how);
  } catch (const EmulatorError& e) {
    error = e.what();
  }
  EXPECT_EQ(removed, 1) << "the edit found its barrier";
  return error;
}

// Hand-mutated kernels: without the barrier between writing A's tile and reading it, or
// without the one that ends an N tile (the next tile's copies overwrite the ring while other
// warps still read it), the emulator reports the race.
TEST(BackToBackEmu, MissingBarriersAreReported) {
  for (const std::string& barrier :
       {std::string("  // one barrier: A's tile complete for every warp, and the ring free for W2's tiles\n  __syncthreads();\n"),
        std::string("    // every warp done with the ring before the next tile's copies\n    __syncthreads();\n")}) {
    SCOPED_TRACE(barrier);
    const std::string error = error_without(barrier);
    EXPECT_TRUE(error.find("shared-memory race") != std::string::npos || error.find("pending cp.async") != std::string::npos)
        << error;
  }
}

// H beyond what one block keeps: two kernels, and the plan's note says why.
TEST(BackToBackEmu, WideHiddenActivationStaysTwoKernels) {
  const Program program = compile_program(example_source("mlp"), {{"M", 16}, {"N", 24}, {"K", 32}, {"H", 264}});
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_NE(plan.kernels[0].note.find("two kernels, not one back-to-back kernel: the first matmul's row panel has H = "
                                      "264 columns, more than the 256"),
            std::string::npos)
      << plan.kernels[0].note;
}

// A read after the chain: A must reach memory, so the plan keeps two kernels and says why
// (the third kernel reads A from the workspace); on the emulator against the reference.
TEST(BackToBackEmu, HiddenActivationReadLaterStaysTwoKernels) {
  const std::string source =
      "def mlp(f16(M, K) X, f16(K, H) W1, f16(H, N) W2) -> (f16(M, N) Y, f32(M) s) {\n"
      "  T(m, h) +=! X(m, k) * W1(k, h)\n"
      "  A(m, h) = f16(relu(T(m, h)))\n"
      "  Y(m, n) +=! A(m, h) * W2(h, n)\n"
      "  s(m) +=! A(m, h)\n"
      "}\n";
  std::string note;
  run_plan(source, {{"M", 24}, {"N", 16}, {"K", 32}, {"H", 40}}, 3, false, note);
  EXPECT_NE(note.find("S3 reads A after the chain"), std::string::npos) << note;
}

}  // namespace
}  // namespace polyfuse
