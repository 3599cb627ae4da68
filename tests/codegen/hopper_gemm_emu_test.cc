// The generated sm_90a main loop on the emulator against the f32 reference, with the TMA and
// wgmma counters: the golden files of hopper_gemm_kernel_test.cc, compiled here as C++ (f16
// 300 x 256 x 128: partial tiles in M, fewer k-blocks than stages; bf16 129 x 136 x 328:
// partial tiles in M and N, a K tail that TMA zero-fills, more k-blocks than stages, so stages
// are refilled after their "empty" mbarriers) under several thread schedules; and kernels
// generated here for odd shapes (1 x 8 x 8, primes, tile +- 1: N and K multiples of 8, TMA's
// 16-byte strides), built at run time by the emulator (emu::Module, tensor maps by value). With
// N or K not a multiple of 8 TMA cannot load B or A: the golden f16 300 x 257 x 128 kernel and
// generated ones copy that operand by threads (groups of 1, 2 and 4 elements) beside TMA.
#include "polyfuse_emu/cuda_emulation.h"

// Both golden kernels are `extern "C" gemm`: one name each here.
#define gemm generated_gemm_f16
#include "../golden/codegen/gemm_sm90a_tma.cu"
#undef gemm
#define gemm generated_gemm_bf16
#include "../golden/codegen/gemm_sm90a_tma_bf16.cu"
#undef gemm
#define gemm generated_gemm_b_by_threads
#include "../golden/codegen/gemm_sm90a_tma_b_by_threads.cu"
#undef gemm

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "codegen/hopper_gemm_kernel.h"
#include "codegen/main_loop_choice.h"
#include "frontend/idioms.h"
#include "gemm_programs.h"
#include "polyfuse_emu/module.h"
#include "schedule/plan_from_program.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;
namespace tma = polyfuse::tma;

// The golden kernels' tiles (hopper_gemm_tiles: M > 64, two consumer warpgroups).
const HopperGemmTiles kGoldenTiles = hopper_gemm_tiles(300);

pf::sm90::TensorMap kernel_map(const tma::TensorMapBytes& bytes) {
  pf::sm90::TensorMap map;
  static_assert(sizeof map == sizeof bytes.bytes);
  std::memcpy(&map, bytes.bytes, sizeof map);
  return map;
}

// A GEMM's operands as the kernel takes them: a tensor map, or the pointer when it copies the
// operand by threads.
struct Operands {
  tma::TensorMapBytes map_a, map_b;
  const void* a;
  const void* b;
  bool a_by_threads = false, b_by_threads = false;
};

// Launches the kernel on (grid, operands, C).
using Launcher = std::function<emu::Stats(dim3, const Operands&, void*)>;
struct Kernel {
  Launcher launch;
  HopperGemmTiles tiles;
  bool a_by_threads = false, b_by_threads = false;
  bool relu_a = false;  // C = relu(A) B: A's prologue, applied where TMA loaded it or by the copying threads
};

const dim3 kGoldenBlock(static_cast<unsigned>(kGoldenTiles.threads()));
const std::size_t kGoldenShared = static_cast<std::size_t>(kGoldenTiles.shared_bytes());

Kernel compiled_kernel(void (*kernel)(pf::sm90::TensorMap, pf::sm90::TensorMap, __half*)) {
  return {[kernel](dim3 grid, const Operands& o, void* c) {
            return emu::launch(kernel, grid, kGoldenBlock, kGoldenShared, kernel_map(o.map_a), kernel_map(o.map_b),
                               static_cast<__half*>(c));
          },
          kGoldenTiles};
}
Kernel compiled_kernel(void (*kernel)(pf::sm90::TensorMap, pf::sm90::TensorMap, __nv_bfloat16*)) {
  return {[kernel](dim3 grid, const Operands& o, void* c) {
            return emu::launch(kernel, grid, kGoldenBlock, kGoldenShared, kernel_map(o.map_a), kernel_map(o.map_b),
                               static_cast<__nv_bfloat16*>(c));
          },
          kGoldenTiles};
}
Kernel compiled_kernel(void (*kernel)(pf::sm90::TensorMap, const __half*, __half*)) {
  return {[kernel](dim3 grid, const Operands& o, void* c) {
            return emu::launch(kernel, grid, kGoldenBlock, kGoldenShared, kernel_map(o.map_a), static_cast<const __half*>(o.b),
                               static_cast<__half*>(c));
          },
          kGoldenTiles, false, true};
}

// The emulated GPU's SMs (emu::Options::sm_count's default): a persistent kernel launches
// min(SMs, tiles) blocks.
constexpr unsigned kDefaultSms = 132;

void check_generated_gemm(const Kernel& kernel, bool bf16, int m, int n, int k, const char* schedule,
                          unsigned sms = kDefaultSms) {
  const HopperGemmTiles& t = kernel.tiles;
  emu::ScopedSchedule scoped(emu::parse_schedule(schedule));
  const auto encode = bf16 ? to_bf16_bits : to_f16_bits;
  const auto decode = bf16 ? from_bf16_bits : from_f16_bits;
  // Quarters in -2 .. 2: products and their sums are exact in f32, only C's rounding remains.
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  std::vector<float> af(a.size()), bf(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = encode(af[i] = static_cast<float>(static_cast<int>(i * 7 % 17) - 8) / 4);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = encode(bf[i] = static_cast<float>(static_cast<int>(i * 5 % 13) - 6) / 4);
  std::vector<std::uint16_t> c(static_cast<std::size_t>(m) * n, 0x7e00);  // NaN: every element must be written
  emu::ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"), bc(c.data(), c.size() * 2, "C");
  const tma::DataType type = bf16 ? tma::DataType::bfloat16 : tma::DataType::float16;
  Operands operands{{}, {}, a.data(), b.data(), kernel.a_by_threads, kernel.b_by_threads};
  if (!kernel.a_by_threads)
    operands.map_a = tma::encode_tiled(tma::tiled_2d(type, a.data(), k, m, std::uint64_t(k) * 2, 64, t.bm, tma::Swizzle::b128),
                                       tma::Target::emulator);
  if (!kernel.b_by_threads)
    operands.map_b = tma::encode_tiled(tma::tiled_2d(type, b.data(), n, k, std::uint64_t(n) * 2, 64, t.bk, tma::Swizzle::b128),
                                       tma::Target::emulator);
  const std::uint64_t tiles = static_cast<std::uint64_t>(hopper_tile_count(t, m, n));
  const dim3 grid(static_cast<unsigned>(std::min<std::uint64_t>(sms, tiles)));  // blocks walk the tiles
  const emu::Stats stats = kernel.launch(grid, operands, c.data());

  if (kernel.relu_a)
    for (float& x : af) x = std::max(x, 0.0f);
  const std::vector<float> ref = reference_gemm(af, bf, m, n, k, true, true);
  int bad = 0;
  for (int i = 0; i < m && bad < 5; ++i)
    for (int j = 0; j < n && bad < 5; ++j) {
      const float got = decode(c[std::size_t(i) * n + j]), want = ref[std::size_t(i) * n + j];
      if (!(std::fabs(got - want) <= std::ldexp(std::fabs(want), bf16 ? -8 : -11))) {
        ADD_FAILURE() << m << "x" << n << "x" << k << " " << schedule << ": C(" << i << ", " << j << ") = " << got << ", expected " << want;
        ++bad;
      }
    }
  const std::uint64_t k_blocks = (k + t.bk - 1) / t.bk;
  EXPECT_EQ(stats.blocks, grid.x);
  EXPECT_EQ(stats.wgmma_instructions, tiles * k_blocks * (t.bk / 16) * t.tile_consumers());
  const std::uint64_t tma_rows = (kernel.a_by_threads ? 0 : t.bm) + (kernel.b_by_threads ? 0 : t.bn);
  EXPECT_EQ(stats.tma_bytes, tiles * k_blocks * tma_rows * t.bk * 2);
}

TEST(HopperGemmEmu, GeneratedF16KernelMatchesTheReference) {
  for (const char* schedule : {"round_robin", "random:3"}) check_generated_gemm(compiled_kernel(generated_gemm_f16), false, 300, 256, 128, schedule);
}

TEST(HopperGemmEmu, GeneratedBf16KernelMatchesTheReference) {
  for (const char* schedule : {"round_robin", "warp_ahead:5"})
    check_generated_gemm(compiled_kernel(generated_gemm_bf16), true, 129, 136, 328, schedule);
}

// Issue 17's done-when shape: B's rows are 514 bytes apart, so the threads copy B, TMA loads A.
TEST(HopperGemmEmu, GeneratedKernelWithBCopiedByThreadsMatchesTheReference) {
  for (const char* schedule : {"round_robin", "random:5"})
    check_generated_gemm(compiled_kernel(generated_gemm_b_by_threads), false, 300, 257, 128, schedule);
}

std::string replaced(std::string text, const std::string& from, const std::string& to);

// The kernel hopper_gemm_kernel generates for `type` and the sizes, built by the emulator;
// `edit` may change its source first (a planted error).
// With relu_a, C = relu(A) B (A's prologue).
Kernel generated_kernel(const std::string& type, int m, int n, int k,
                        const std::function<std::string(std::string)>& edit = nullptr, int group = 8,
                        ConsumerSchedule consumers = ConsumerSchedule::cooperative, bool relu_a = false) {
  std::string gemm = gemm_source(type, true, true);
  if (relu_a) gemm = replaced(gemm, "A(m, k)", "relu(A(m, k))");
  Program program = compile_program(gemm, {{"M", m}, {"N", n}, {"K", k}});
  KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  const MainLoopChoice choice = choose_main_loop(program, plan, default_gpu_options(Arch::sm_90a));
  HopperGemmTiles tiles = hopper_gemm_tiles(m, consumers);
  tiles.prologue_in_place = choice.any_prologue_in_place();
  std::string source = "#include \"polyfuse_cuda.cuh\"\n" + hopper_gemm_kernel(program, plan, choice, tiles, {group});
  if (edit) source = edit(source);
  auto module = std::make_shared<emu::Module>(emu::Module::compile(source, {}, {"gemm"}));
  const auto argument = [](const tma::TensorMapBytes& map, const void* p, bool by_threads) {
    return by_threads ? emu::KernelArg::pointer(const_cast<void*>(p)) : emu::KernelArg::tensor_map(map.bytes);
  };
  return {[module, argument, tiles](dim3 grid, const Operands& o, void* c) {
            return module->launch("gemm", grid, dim3(static_cast<unsigned>(tiles.threads())),
                                  static_cast<std::size_t>(tiles.shared_bytes()),
                                  {argument(o.map_a, o.a, o.a_by_threads), argument(o.map_b, o.b, o.b_by_threads),
                                   emu::KernelArg::pointer(c)});
          },
          tiles, choice.a_copy == OperandCopy::threads, choice.b_copy == OperandCopy::threads, relu_a};
}

TEST(HopperGemmEmu, GeneratedKernelsOfOddShapesMatchTheReference) {
  struct Case {
    const char* type;
    int m, n, k;
  };
  for (const Case& c : {Case{"f16", 1, 8, 8}, Case{"bf16", 7, 16, 24}, Case{"f16", 67, 136, 72},
                        Case{"bf16", 63, 120, 56}, Case{"f16", 65, 136, 328}, Case{"bf16", 127, 120, 56},
                        Case{"f16", 129, 136, 456}}) {
    check_generated_gemm(generated_kernel(c.type, c.m, c.n, c.k), std::string(c.type) == "bf16", c.m, c.n, c.k, "random:7");
    if (HasFailure()) return;
  }
}

// N or K not a multiple of 8: B (odd N: groups of 1 element, N = 2 mod 4: of 2, N = 4 mod 8: of
// 4) or A (odd K) copied by threads beside TMA, with edge tiles and K tails.
TEST(HopperGemmEmu, GeneratedKernelsWithAnOperandCopiedByThreadsMatchTheReference) {
  struct Case {
    const char* type;
    int m, n, k;
    bool a_by_threads;
  };
  for (const Case& c : {Case{"f16", 1, 1, 8, false}, Case{"bf16", 65, 130, 72, false}, Case{"f16", 70, 132, 328, false},
                        Case{"bf16", 67, 64, 37, true}, Case{"f16", 5, 136, 1, true}, Case{"bf16", 66, 128, 331, true}}) {
    const Kernel kernel = generated_kernel(c.type, c.m, c.n, c.k);
    EXPECT_EQ(kernel.a_by_threads, c.a_by_threads) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_NE(kernel.a_by_threads, kernel.b_by_threads) << c.m << "x" << c.n << "x" << c.k;
    check_generated_gemm(kernel, std::string(c.type) == "bf16", c.m, c.n, c.k, "random:7");
    if (HasFailure()) return;
  }
}

// `text` with its first `from` replaced by `to` (which must occur).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("planted error: no '" + from + "' in the kernel");
  return text.replace(at, from.size(), to);
}

// A planted error: `from` in the kernel's source replaced by `to`; the emulator's message must
// contain `reported` (or one of its '|'-separated alternatives: which check fires first may
// depend on the thread schedule).
struct Plant {
  const char* what;
  std::string from, to;
  std::string reported;
};

bool reports(const std::string& message, const std::string& alternatives) {
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = alternatives.find('|', begin);
    if (message.find(alternatives.substr(begin, end - begin)) != std::string::npos) return true;
    if (end == std::string::npos) return false;
    begin = end + 1;
  }
}

// Each plant, in a kernel of `type` and the sizes run on `sms` SMs, is reported, never passes.
void expect_reported(const std::vector<Plant>& plants, const std::string& type, int m, int n, int k, unsigned sms,
                     ConsumerSchedule consumers = ConsumerSchedule::cooperative, bool relu_a = false) {
  for (const Plant& p : plants) {
    const Kernel kernel = generated_kernel(
        type, m, n, k, [&](std::string source) { return replaced(source, p.from, p.to); }, 8, consumers, relu_a);
    try {
      check_generated_gemm(kernel, type == "bf16", m, n, k, "random:3", sms);
      ADD_FAILURE() << p.what << ": not reported";
    } catch (const emu::EmulationError& e) {
      EXPECT_TRUE(reports(e.what(), p.reported)) << p.what << ": " << e.what();
    }
  }
}

// Planted errors in the threads' half of the pipeline: each must be reported by the emulator
// (the message names what went wrong), never pass. 10 k-blocks in 5 stages: stages are refilled.
TEST(HopperGemmEmu, PlantedErrorsOfTheThreadCopiesAreReported) {
  const std::vector<Plant> plants = {
      {"fence.proxy.async removed", "    fence_proxy_async();\n", "", "missing fence.proxy.async"},
      {"no arrive after the copy", "        mbarrier_arrive(full + s);\n", "", "deadlock"},
      {"full counts only the producer", "mbarrier_init(full + s, 129)", "mbarrier_init(full + s, 1)",
       "more often than its expected 1 arrivals|missing fence.proxy.async"},
      {"refill without waiting for the stage", "        if (it >= 5) mbarrier_wait(empty", "        if (false) mbarrier_wait(empty",
       "race"},
  };
  expect_reported(plants, "f16", 70, 257, 640, kDefaultSms);
}

// A prologue on A (relu): where TMA can load A (K a multiple of 8) the producer's thread 0 runs
// ahead loading stages onto "loaded" while its warps 1 .. 3 apply the prologue where the tiles
// landed; else its 128 threads copy A through it. Blocks walk several tiles (--sms 2, 3), so
// stages and all three mbarriers' phases carry over; edge tiles, K tails that TMA zero-fills (the
// prologue is not applied there), one consumer and two, both consumer schedules.
TEST(HopperGemmEmu, PrologueAppliedWhereTmaLoadedTheTileMatchesTheReference) {
  struct Case {
    const char* type;
    int m, n, k;
    unsigned sms;
    ConsumerSchedule consumers;
    bool a_by_threads;
  };
  const ConsumerSchedule cooperative = ConsumerSchedule::cooperative, pingpong = ConsumerSchedule::pingpong;
  for (const Case& c : {Case{"f16", 300, 256, 200, 2, cooperative, false}, Case{"bf16", 64, 264, 456, 2, cooperative, false},
                        Case{"f16", 130, 136, 72, 3, pingpong, false}, Case{"bf16", 67, 136, 37, 2, cooperative, true}}) {
    const Kernel kernel = generated_kernel(c.type, c.m, c.n, c.k, nullptr, 2, c.consumers, true);
    EXPECT_EQ(kernel.a_by_threads, c.a_by_threads) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(kernel.tiles.prologue_in_place, !c.a_by_threads);
    for (const char* schedule : {"round_robin", "random:17"})
      check_generated_gemm(kernel, std::string(c.type) == "bf16", c.m, c.n, c.k, schedule, c.sms);
    if (HasFailure()) return;
  }
}

// Planted errors of the prologue applied in place (8 k-blocks in 5 stages, 2 x 2 tiles on 2
// blocks): each is reported, never passes.
TEST(HopperGemmEmu, PlantedErrorsOfThePrologueInPlaceAreReported) {
  const std::vector<Plant> plants = {
      {"the transform does not wait for the TMA bytes", "          mbarrier_wait(loaded + s, static_cast<unsigned>(it / 5) & 1u);\n",
       "", "race|still in flight|before"},
      {"the transform waits on the wrong parity", "mbarrier_wait(loaded + s, static_cast<unsigned>(it / 5) & 1u)",
       "mbarrier_wait(loaded + s, static_cast<unsigned>(it / 5 + 1) & 1u)", "race|still in flight|deadlock"},
      {"fence.proxy.async removed", "          fence_proxy_async();\n", "", "missing fence.proxy.async"},
      {"no arrive after the transform", "          mbarrier_arrive(full + s);\n", "", "deadlock"},
      {"full counts one transforming thread", "mbarrier_init(full + s, 96)", "mbarrier_init(full + s, 1)",
       "more often than its expected 1 arrivals|missing fence.proxy.async|race"},
      {"the loads skip waiting for the stage", "          if (it >= 5) mbarrier_wait(empty", "          if (false) mbarrier_wait(empty",
       "race|more often than its expected 1 arrivals"},
  };
  expect_reported(plants, "f16", 256, 256, 512, 2, ConsumerSchedule::cooperative, true);
}

// The persistent tile scheduler: fewer blocks than tiles (--sms 2 or 3), so each block walks
// several tiles and the ring's stages and mbarrier phases carry from one tile to the next, while
// the consumers' epilogue of one tile overlaps the producer's loads for the next; aligned and odd
// shapes, one consumer warpgroup (M <= 64) and two, groups of 1, 2 and 8 tile rows, an operand
// copied by the producer warpgroup. The race detector watches the ring and the staging.
TEST(HopperGemmEmu, PersistentBlocksWalkSeveralTiles) {
  struct Case {
    const char* type;
    int m, n, k;
    unsigned sms;
    int group;
    int consumers;
  };
  for (const Case& c : {Case{"f16", 512, 384, 192, 2, 8, 2},   // 4 x 3 tiles, 3 k-blocks: stages reused across tiles
                        Case{"bf16", 300, 392, 328, 3, 2, 2},  // 3 x 4 edge tiles, a K tail, 6 k-blocks in 5 stages
                        Case{"f16", 64, 520, 456, 2, 1, 1},    // one consumer: 1 x 5 tiles, 8 k-blocks in 6 stages
                        Case{"bf16", 37, 264, 72, 2, 8, 1},    // one consumer, odd M, 1 x 3 tiles
                        Case{"f16", 200, 257, 136, 3, 2, 2}}) {  // B copied by the producer warpgroup, 2 x 3 tiles
    const Kernel kernel = generated_kernel(c.type, c.m, c.n, c.k, nullptr, c.group);
    ASSERT_EQ(kernel.tiles.consumers(), c.consumers);
    ASSERT_GT(hopper_tile_count(kernel.tiles, c.m, c.n), static_cast<std::int64_t>(c.sms));
    for (const char* schedule : {"round_robin", "random:11"})
      check_generated_gemm(kernel, std::string(c.type) == "bf16", c.m, c.n, c.k, schedule, c.sms);
    if (HasFailure()) return;
  }
}

// Planted errors in the warp-specialised persistent pipeline, with blocks that walk several tiles
// (512 x 384 x 320: 12 tiles on 2 blocks, 5 k-blocks a tile in 5 stages): each is reported.
TEST(HopperGemmEmu, PlantedErrorsOfTheWarpSpecialisedPipelineAreReported) {
  const std::vector<Plant> plants = {
      {"a consumer skips its empty arrive after the tile's last k-block",
       "    mbarrier_arrive(empty + (it - 1) % 5);  // the tile's last k-block retired\n", "", "deadlock on an mbarrier"},
      {"the producer waits on the wrong parity of empty", "mbarrier_wait(empty + s, static_cast<unsigned>(it / 5 - 1) & 1u)",
       "mbarrier_wait(empty + s, static_cast<unsigned>(it / 5) & 1u)", "shared-memory race"},
      {"the consumers wait on the wrong parity of full", "mbarrier_wait(full + s, static_cast<unsigned>(it / 5) & 1u)",
       "mbarrier_wait(full + s, static_cast<unsigned>(it / 5 + 1) & 1u)", "still in flight"},
      {"setmaxnreg mismatched in the producer warpgroup", "    setmaxnreg_dec<40>();\n",
       "    if (warp_in_warpgroup() == 1) setmaxnreg_dec<48>(); else setmaxnreg_dec<40>();\n",
       "warpgroup divergence at setmaxnreg"},
      {"the epilogue staging without its warpgroup barrier", "  WarpgroupBarrier epilogue_sync{epilogue_bar + wg};\n",
       "  auto epilogue_sync = [] {};\n", "shared-memory race"},
  };
  expect_reported(plants, "f16", 512, 384, 320, 2);
}

// Ping-pong: two consumer warpgroups on alternate 64-row tiles of each block's walk, so each
// stage of the ring feeds one consumer and a consumer's `it` skips the other's k-blocks. Blocks
// with an even and an odd number of tiles (the second consumer idle on the last), one tile per
// block (--sms large), edge tiles, K tails, an operand copied by the producer warpgroup.
TEST(HopperGemmEmu, PingPongConsumersTakeAlternateTiles) {
  struct Case {
    const char* type;
    int m, n, k;
    unsigned sms;
  };
  for (const Case& c : {Case{"f16", 256, 384, 192, 2},   // 4 x 3 tiles, 6 on each block: 3 per consumer
                        Case{"bf16", 300, 264, 328, 4},  // 5 x 3 edge tiles: blocks of 4 and 3 tiles, a K tail
                        Case{"f16", 130, 136, 72, 132},  // 3 x 2 tiles, one per block: the second consumer idle
                        Case{"f16", 200, 257, 136, 3}}) {  // B copied by the producer warpgroup
    const Kernel kernel = generated_kernel(c.type, c.m, c.n, c.k, nullptr, 2, ConsumerSchedule::pingpong);
    ASSERT_EQ(kernel.tiles.consumers(), 2);
    ASSERT_EQ(kernel.tiles.tile_consumers(), 1);
    for (const char* schedule : {"round_robin", "random:13"})
      check_generated_gemm(kernel, std::string(c.type) == "bf16", c.m, c.n, c.k, schedule, c.sms);
    if (HasFailure()) return;
  }
}

// Planted errors of the ping-pong schedule (8 x 3 tiles of 64 x 128 on 2 blocks, 5 k-blocks a
// tile in 6 stages, so a consumer's next tile reuses stages the other's tile fills): each is
// reported.
TEST(HopperGemmEmu, PlantedErrorsOfThePingPongScheduleAreReported) {
  const std::vector<Plant> plants = {
      {"a consumer does not skip the other's k-blocks", "    it += 5;  // the other consumer's tile\n", "",
       "deadlock on an mbarrier|still in flight|shared-memory race"},
      {"both consumers counted on each stage", "mbarrier_init(empty + s, 128)", "mbarrier_init(empty + s, 256)",
       "deadlock on an mbarrier"},
      {"both consumers take every tile", "tile += 2 * gridDim.x", "tile += gridDim.x",
       "deadlock on an mbarrier|still in flight|shared-memory race|more often than its expected"},
      // Without the turns a consumer done with its tile waits on the fill of its next one two phases
      // ahead of the last it observed: the parity wait passes on the older phase (the bug the
      // emulator found in the first ping-pong kernel).
      {"the consumers do not take turns", "    if (turn - 1 + wg >= 0) mbarrier_wait(order + wg",
       "    if (false) mbarrier_wait(order + wg", "still in flight|shared-memory race"},
  };
  expect_reported(plants, "f16", 512, 384, 320, 2, ConsumerSchedule::pingpong);
}

}  // namespace
}  // namespace polyfuse
