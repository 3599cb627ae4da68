// The mutation check of the emulator: the generated kernel of each idiom, edited the way a
// broken code generator (or a user tweaking generated code) would break it, must be
// rejected — by an emulator error (a race, a read of a copy still in flight, a misaligned
// or out-of-bounds access) or by the reference check. The edits:
//   barrier   one __syncthreads() of the kernel removed (each in turn)
//   wait      one cp_async_wait removed (each in turn), and every wait removed at once
//   depth     the k-step loop's wait leaving one more group pending (cp_async_wait<S-1>
//             for <S-2> in a ring of S stages: k-step i's copies may still be in flight
//             when its MMAs read them)
//   both      every barrier and every wait removed
//   stage     a ring's fragment load reading the next stage
//   set       (two fragment sets) the MMAs reading the set being loaded instead of their own
//   swizzle   a fragment load reading its tile unswizzled
//   map       (a prologue on the landed tile, schedule/copies.h's landed_prologue) one
//             map_tile_shared removed (each in turn): a k-step's operand tile unmapped
//   guard     the guard of the map of the next k-step's stage removed: past the last k-step it
//             maps a stage no copy filled (reading a dequantising prologue's operands past K)
// Every barrier, wait, depth and map mutant must be killed; the test prints the kill rate per kernel.
// Each mutant runs through run_program with RunRequest::kernel_source, which is what
// `polyfuse run --kernel-source` does.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/cuda_emitter.h"
#include "gemm_programs.h"
#include "polyfuse/errors.h"
#include "runtime/api/run_program.h"

#include <fstream>
#include <memory>
#include <sstream>

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

struct Mutant {
  std::string kind;    // barrier, wait, depth, both, stage, swizzle
  std::string what;    // e.g. "__syncthreads #2 removed"
  std::string source;
};

// Positions of `needle` in `text` at or after `from`.
std::vector<std::size_t> find_all(const std::string& text, const std::string& needle, std::size_t from) {
  std::vector<std::size_t> at;
  for (std::size_t p = text.find(needle, from); p != std::string::npos; p = text.find(needle, p + needle.size()))
    at.push_back(p);
  return at;
}

// The length of the call starting at `at` up to its closing ")" (balanced parentheses).
std::size_t call_length(const std::string& text, std::size_t at) {
  int depth = 0;
  for (std::size_t i = text.find('(', at); i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return i + 1 - at;
  }
  return std::string::npos;
}

// `text` with the calls at `positions` replaced by a no-op expression.
std::string without_calls(std::string text, std::vector<std::size_t> positions) {
  for (auto p = positions.rbegin(); p != positions.rend(); ++p) text.replace(*p, call_length(text, *p), "(void)0");
  return text;
}

std::vector<Mutant> mutants_of(const std::string& source) {
  const std::size_t body = source.find("extern \"C\" __global__");
  std::vector<Mutant> mutants;
  const std::vector<std::size_t> barriers = find_all(source, "__syncthreads()", body);
  const std::vector<std::size_t> waits = find_all(source, "pf::cp_async_wait", body);
  for (std::size_t i = 0; i < barriers.size(); ++i)
    mutants.push_back({"barrier", fmt::format("__syncthreads #{} of {} removed", i + 1, barriers.size()),
                       without_calls(source, {barriers[i]})});
  for (std::size_t i = 0; i < waits.size(); ++i)
    mutants.push_back({"wait", fmt::format("cp_async_wait #{} of {} removed", i + 1, waits.size()),
                       without_calls(source, {waits[i]})});
  if (waits.size() > 1) mutants.push_back({"wait", "every cp_async_wait removed", without_calls(source, waits)});
  if (!waits.empty()) {
    std::vector<std::size_t> all = barriers;
    all.insert(all.end(), waits.begin(), waits.end());
    std::sort(all.begin(), all.end());
    mutants.push_back({"both", "every barrier and wait removed", without_calls(source, all)});
  }
  // The wait inside the k-step loop leaving one more group pending.
  for (std::size_t w : waits) {
    const std::size_t open = source.find('<', w), close = source.find('>', w);
    const int depth = std::stoi(source.substr(open + 1, close - open - 1));
    if (source.rfind("for (int k_step", w) == std::string::npos) continue;
    std::string s = source;
    s.replace(open + 1, close - open - 1, std::to_string(depth + 1));
    mutants.push_back({"depth", fmt::format("cp_async_wait<{}> made <{}>", depth, depth + 1), s});
    break;
  }
  // A fragment load of the ring reading the next stage (the one being filled): the first that
  // names its stage by the k-step (k_step, or next_step under the fragment pipeline).
  std::size_t frag = source.find("pf::load_frag_a<", body);
  for (; frag != std::string::npos; frag = source.find("pf::load_frag_a<", frag + 1)) {
    const std::size_t end = source.find(';', frag);
    std::size_t stage = std::string::npos;
    std::string step;
    for (const char* name : {"k_step", "next_step"}) {
      const std::size_t at = source.find(fmt::format("({} % ", name), frag);
      if (at < end && at < stage) {
        stage = at;
        step = name;
      }
    }
    if (stage == std::string::npos) continue;
    std::string s = source;
    s.replace(stage, step.size() + 4, fmt::format("(({} + 1) % ", step));  // "((k_step + 1) % S)"
    mutants.push_back({"stage", "A fragments read from the next stage", s});
    break;
  }
  // The fragment pipeline's MMAs reading the set that loads under them (codegen/fragment_pipeline.h).
  const std::size_t set = source.find("a_frag[k_slice % 2]", body);
  if (set != std::string::npos) {
    std::string s = source;
    s.replace(set, std::string("a_frag[k_slice % 2]").size(), "a_frag[(k_slice + 1) % 2]");
    mutants.push_back({"set", "A fragments read from the set being loaded", s});
  }
  const std::vector<std::size_t> maps = find_all(source, "pf::map_tile_shared<", body);
  for (std::size_t i = 0; i < maps.size(); ++i)
    mutants.push_back({"map", fmt::format("map_tile_shared #{} of {} removed", i + 1, maps.size()),
                       without_calls(source, {maps[i]})});
  for (std::size_t guard = source.find("if ((k_step + 1) <= ", body); guard != std::string::npos;
       guard = std::string::npos) {
    std::string s = source;
    s.erase(guard, s.find(')', s.find(')', guard) + 1) + 2 - guard);  // "if ((k_step + 1) <= N) "
    mutants.push_back({"guard", "the next k-step's map unguarded", s});
  }
  frag = source.find("pf::load_frag_a<", body);
  if (frag != std::string::npos) {
    std::string s = source;
    const std::size_t at = s.find("pf::Swizzle::xor16", frag);
    if (at != std::string::npos && at < s.find(';', frag)) {
      s.replace(at, std::string("pf::Swizzle::xor16").size(), "pf::Swizzle::none");
      mutants.push_back({"swizzle", "A fragments read unswizzled", s});
    }
  }
  return mutants;
}

// True when the emulator or the reference check rejects `source` as the kernel of `program`.
// `emitted`: the program's kernel as emitted for `options` (the mutants' launch; not emitted
// again per mutant).
bool killed(const Program& program, const GpuOptions& options, const std::shared_ptr<EmittedKernel>& emitted,
            const Mutant& mutant, std::string& why) {
  RunRequest request;
  request.backend = Backend::emu;
  request.options = options;
  request.kernel_program = &program;
  request.kernel_program_emitted = emitted;
  request.kernel_source = mutant.source;
  request.kernel_source_name = mutant.what;
  try {
    RunReport report = run_program(program, request);
    why = report.check.to_string();
    return !report.check.ok;
  } catch (const CompileError& e) {
    ADD_FAILURE() << "the mutant '" << mutant.what << "' does not compile (a broken mutation): " << e.what();
    why = "does not compile";
    return false;
  } catch (const Error& e) {
    why = e.what();
    return true;
  }
}

std::string read_example(const std::string& name) {
  std::ifstream in(std::string(POLYFUSE_SOURCE_ROOT) + "/examples/" + name + ".tc");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `k` = 128: four k-steps. The barrier after a ring's loop (drain_shared) guards the stage the
// accumulator scratch reuses, stage 0, or removing it is harmless in that kernel: with two
// fragment sets (codegen/fragment_pipeline.h) the last reads of the loop are the next
// k-slice's loads past the last k-step, from stage (k-steps mod S), so k-steps ≡ 0 mod S;
// with one set (a single stage, or a loop isl does not emit) the last k-step's, k-steps ≡ 1
// mod S.
void check_mutants(const std::string& example, int stages, int k = 128) {
  GpuOptions o;
  o.block = {64, 64, 32};
  o.warp = {32, 32, 32};
  o.stages = stages;
  Program program = compile_program(read_example(example), {{"M", 128}, {"N", 128}, {"K", k}, {"B", 2}});
  CudaEmitRequest emit;
  emit.options = o;
  const auto emitted = std::make_shared<EmittedKernel>(emit_cuda(program, emit));
  const std::vector<Mutant> mutants = mutants_of(emitted->source);
  ASSERT_FALSE(mutants.empty());
  int dead = 0;
  for (const Mutant& m : mutants) {
    std::string why;
    const bool is_dead = killed(program, o, emitted, m, why);
    dead += is_dead;
    EXPECT_TRUE(is_dead || (m.kind != "barrier" && m.kind != "wait" && m.kind != "depth" && m.kind != "both" &&
                            m.kind != "map"))
        << example << " stages " << stages << ": the " << m.kind << " mutant '" << m.what << "' survived: " << why;
    // The first words of the reason: which check caught it.
    std::string reason = why.substr(0, why.find_first_of("\n("));
    if (reason.size() > 70) reason = reason.substr(0, 70) + "...";
    std::printf("  %-8s %-38s %-8s %s\n", m.kind.c_str(), m.what.c_str(), is_dead ? "killed" : "SURVIVED", reason.c_str());
  }
  std::printf("mutation check: %s, %d stage(s): %d of %zu mutants killed\n", example.c_str(), stages, dead,
              mutants.size());
}

TEST(MutationEmu, Gemm) {
  check_mutants("gemm", 2);
  check_mutants("gemm", 1);
}
TEST(MutationEmu, GemmBiasRelu) {
  check_mutants("gemm_bias_relu", 2);
  check_mutants("gemm_bias_relu", 1);
}
// Rings of 3 and 4 stages: 3 k-steps (the loads past the last from stage 0 of 3) and 1 k-step
// (no loop: one set; the prologue commits two empty groups, the wait counts them).
TEST(MutationEmu, GemmRingOf3And4Stages) {
  check_mutants("gemm", 3, 96);
  check_mutants("gemm", 4, 32);
}
TEST(MutationEmu, GemmBiasReluRingOf4Stages) { check_mutants("gemm_bias_relu", 4, 128); }
TEST(MutationEmu, ReluGemm) { check_mutants("relu_gemm", 2); }
// The prologue on the landed A tile with an operand (scale(k)): its guard past the last k-step
// keeps scale's reads inside K.
TEST(MutationEmu, DequantGemmRingsOf2And3Stages) {
  check_mutants("dequant_gemm", 2);
  check_mutants("dequant_gemm", 3, 96);
}
TEST(MutationEmu, AddGemms) { check_mutants("add_gemms", 2); }
TEST(MutationEmu, BatchedGemm) { check_mutants("batched_gemm", 2); }

}  // namespace
}  // namespace polyfuse
