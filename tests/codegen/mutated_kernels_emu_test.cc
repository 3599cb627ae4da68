// Hand-edited generated kernels that a GPU would fail must fail on the emulator, under every
// thread schedule, with an error that locates the conflict (kernel, block, thread, address,
// source line) — issue 15: the one __syncthreads per k-step of the ring of 2, 3 and 4
// stages removed (write-after-read on the stage buffer, or tiles read before the other
// threads' copies landed), every cp_async_wait removed (the tiles are read before they
// land), the ring's wait leaving one more group pending (cp_async_wait<S-1>, issue 19),
// barrier and waits removed, and the single-stage loop without its trailing barrier. The
// unedited kernels pass under the same schedules.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <regex>

#include "emu_harness.h"
#include "polyfuse/errors.h"
#include "gemm_programs.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

const char* const schedules[] = {"round_robin", "random:1", "random:2", "warp_ahead:1", "warp_ahead:2"};

GpuOptions small_tiles(int stages) {
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32};
  o.stages = stages;
  return o;
}

const Program& gemm_bias_relu() {
  static const Program program = compile_program(read_text_file(source_path("examples/gemm_bias_relu.tc")),
                                                 {{"M", 128}, {"N", 128}, {"K", 128}});
  return program;
}

// gemm_bias_relu's kernel with a ring of `stages`, emitted once for every schedule and edit.
const KernelSweep& kernel_with(int stages) {
  static std::map<int, KernelSweep> kernels;
  return kernels.try_emplace(stages, KernelSweep{gemm_bias_relu()}).first->second;
}

// The kernel's part of a generated .cu (after the embedded helpers), edited by `edit`;
// `count` gets the number of places changed.
std::string edit_kernel(const std::string& source, const std::function<std::string(const std::string&, int&)>& edit,
                        int& count) {
  const std::size_t kernel = source.find("extern \"C\" __global__");
  if (kernel == std::string::npos) throw std::runtime_error("no kernel in the generated source");
  return source.substr(0, kernel) + edit(source.substr(kernel), count);
}

// Removes each __syncthreads() that ends a loop body (the line before the loop's closing
// brace, two spaces less indented).
std::string drop_loop_end_barriers(const std::string& kernel, int& count) {
  static const std::regex barrier_then_close(R"(\n( *)  __syncthreads\(\);\n\1\}\n)");
  std::string out = std::regex_replace(kernel, barrier_then_close, "\n$1}\n");
  count += static_cast<int>(std::distance(std::sregex_iterator(kernel.begin(), kernel.end(), barrier_then_close),
                                          std::sregex_iterator()));
  return out;
}

// Removes each __syncthreads() right after a cp.async wait: in a ring, the k-step loop's
// one barrier.
std::string drop_barriers_after_waits(const std::string& kernel, int& count) {
  static const std::regex wait_then_barrier(R"((pf::cp_async_wait<\d+>\(\);)\n( *)__syncthreads\(\);)");
  count += static_cast<int>(std::distance(
      std::sregex_iterator(kernel.begin(), kernel.end(), wait_then_barrier), std::sregex_iterator()));
  return std::regex_replace(kernel, wait_then_barrier, "$1");
}

// Makes every cp_async_wait<N> (a ring's, N = S-2) leave one more group pending.
std::string deepen_waits(const std::string& kernel, int& count) {
  static const std::regex wait(R"(pf::cp_async_wait<(\d+)>)");
  std::string out;
  std::size_t last = 0;
  for (auto it = std::sregex_iterator(kernel.begin(), kernel.end(), wait); it != std::sregex_iterator(); ++it, ++count) {
    out += kernel.substr(last, it->position() - last);
    out += fmt::format("pf::cp_async_wait<{}>", std::stoi((*it)[1].str()) + 1);
    last = it->position() + it->length();
  }
  return out + kernel.substr(last);
}

// Replaces every cp.async wait by an empty statement.
std::string drop_waits(const std::string& kernel, int& count) {
  static const std::regex wait(R"(pf::cp_async_wait(<\d+>|_all)\(\);)");
  count += static_cast<int>(std::distance(std::sregex_iterator(kernel.begin(), kernel.end(), wait), std::sregex_iterator()));
  return std::regex_replace(kernel, wait, ";");
}

struct Mutant {
  const char* name;
  int stages;
  bool drop_barrier, drop_wait;  // the k-step loop's barrier (see run_mutant), every wait
  std::vector<const char*> accepted;  // the error names one of these conflicts
  bool deepen_wait = false;
};

// Runs the mutant under `schedule`; returns the emulator's error ("" when it passed).
std::string run_mutant(const Mutant& m, const char* schedule, int& edits) {
  EmuRunOptions how;
  how.schedule = emu::parse_schedule(schedule);
  how.edit = [&](const std::string& source) {
    return edit_kernel(source,
                       [&](const std::string& kernel, int& count) {
                         std::string k = kernel;
                         if (m.drop_barrier)
                           k = m.stages == 1 ? drop_loop_end_barriers(k, count) : drop_barriers_after_waits(k, count);
                         if (m.drop_wait) k = drop_waits(k, count);
                         if (m.deepen_wait) k = deepen_waits(k, count);
                         return k;
                       },
                       edits);
  };
  try {
    kernel_with(m.stages).run(gemm_bias_relu(), small_tiles(m.stages), how);
  } catch (const EmulatorError& e) {  // the emulator's EmulationError, through the API
    return e.what();
  }
  return {};
}

const char* const race[] = {"shared-memory race (write-after-read)", "shared-memory race (read-after-write)",
                            "pending cp.async"};

const Mutant mutants[] = {
    {"ring of 2 stages without its barrier", 2, true, false, {race[0], race[1], race[2]}},
    {"ring of 3 stages without its barrier", 3, true, false, {race[0], race[1], race[2]}},
    {"ring of 4 stages without its barrier", 4, true, false, {race[0], race[1], race[2]}},
    {"every cp_async_wait removed", 2, false, true, {"pending cp.async"}},
    {"every cp_async_wait removed, 4 stages", 4, false, true, {"pending cp.async"}},
    {"ring of 3 stages waiting for <2> instead of <1>", 3, false, false, {"pending cp.async"}, true},
    {"ring of 4 stages waiting for <3> instead of <2>", 4, false, false, {"pending cp.async"}, true},
    {"barrier and waits removed", 2, true, true, {"pending cp.async", "shared-memory race"}},
    {"single-stage loop without its trailing barrier", 1, true, false, {race[0], race[1], race[2]}},
};

TEST(MutatedKernelsEmu, EveryHandEditOfGemmBiasReluIsCaughtWithALocatedError) {
  for (const Mutant& m : mutants)
    for (const char* schedule : schedules) {
      SCOPED_TRACE(fmt::format("{} under {}", m.name, schedule));
      int edits = 0;
      const std::string error = run_mutant(m, schedule, edits);
      EXPECT_GE(edits, m.drop_barrier && m.drop_wait ? 2 : 1) << "the edit found its target";
      ASSERT_FALSE(error.empty()) << "the mutant passed";
      bool named = false;
      for (const char* conflict : m.accepted) named |= error.find(conflict) != std::string::npos;
      EXPECT_TRUE(named) << error;
      for (const char* part : {"kernel 'gemm_bias_relu'", "block (", "thread (", "shared offset ", ".cu:"})
        EXPECT_NE(error.find(part), std::string::npos) << "no \"" << part << "\" in: " << error;
      if (std::string(schedule) != "round_robin") {
        EXPECT_NE(error.find(schedule), std::string::npos) << error;
      }
    }
}

TEST(MutatedKernelsEmu, TheUneditedKernelsPassUnderTheSameSchedules) {
  for (int stages : {1, 2, 3, 4})
    for (const char* schedule : schedules) {
      EmuRunOptions how;
      how.schedule = emu::parse_schedule(schedule);
      EmuRun run = kernel_with(stages).run(gemm_bias_relu(), small_tiles(stages), how);
      EXPECT_TRUE(run.check.ok) << stages << " stages, " << schedule << ": " << run.check.to_string();
    }
}

// Issue 15: a zero-fill cp.async named the tile origin as its source, 9,900 bytes into A at
// batch 1 of batched_gemm with M=99, K=50 (not 16-byte aligned); the emulator now checks
// the source of zero-byte copies and the helper names an aligned address.
TEST(MutatedKernelsEmu, BatchedOddKZeroFillCopiesHaveAlignedSources) {
  Program program = compile_program(read_text_file(source_path("examples/batched_gemm.tc")),
                                    {{"B", 2}, {"M", 99}, {"N", 64}, {"K", 50}});
  for (const GpuOptions& tiles : {GpuOptions{}, small_tiles(2)})
    for (const char* schedule : {"round_robin", "random:3"}) {
      EmuRunOptions how;
      how.schedule = emu::parse_schedule(schedule);
      EmuRun run = run_on_emulator(program, tiles, how);
      EXPECT_TRUE(run.check.ok) << to_string(tiles.block) << ", " << schedule << ": " << run.check.to_string();
    }
}

}  // namespace
}  // namespace polyfuse
