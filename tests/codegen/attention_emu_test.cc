// Attention in one kernel (schedule/attention.h, codegen/attention_kernel.h): examples/attention.tc
// and causal_attention.tc, a batch of two indices with an index-valued bias (ALiBi's), bf16, an
// f32 output with V wider than the head, run as ONE kernel on the emulator (sm_80: mma.sync;
// sm_90a: wgmma, codegen/attention_wgmma_kernel.h) against the exact reference at odd sizes — S,
// T, D not multiples of anything, one key tile and sixteen, heads of 16 to 128 columns — every
// element checked. The byte counters show the scores, e and the sums never reaching memory: Q
// read once, K and V once per block of queries (64; 128 on sm_90a), O stored once. Kernels with
// the online rescale, the quads' sum, the mask of keys past the end, a barrier, a wait, an
// async-proxy fence or a wgmma wait removed by hand are reported; defs the kernel does not take
// keep their plan and say why.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "attention_programs.h"
#include "emu_harness.h"
#include "gemm_programs.h"
#include "polyfuse/errors.h"
#include "schedule/attention.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

GpuOptions on(Arch arch) {
  GpuOptions options;
  options.arch = arch;
  options.choose_warp = true;
  return options;
}

// Plans `source` at `sizes` as one attention kernel and runs it on `arch`; every element checked
// but `unchecked` (a row whose every key is masked: the reference cannot bound exp(-1e30 - -1e30)).
EmuRun run_attention(const std::string& source, const SizeBindings& sizes, Arch arch = Arch::sm_80,
                     const EmuRunOptions& how = {}, std::int64_t unchecked = 0) {
  const Program program = compile_program(source, sizes);
  const ProgramPlan plan = plan_program(program, recognize_idioms(program));
  EXPECT_EQ(plan.kernels.size(), 1u) << to_string(plan, program);
  EXPECT_EQ(plan.kernels[0].kind, PlannedKernelKind::attention) << to_string(plan, program);
  EXPECT_EQ(plan.workspace_bytes, 0);
  const EmuRun run = run_on_emulator(program, on(arch), how);
  EXPECT_TRUE(run.check.ok) << to_string(arch) << ": " << run.check.to_string();
  EXPECT_EQ(run.check.unchecked(), unchecked) << run.check.to_string();
  return run;
}

// The queries of a block of the attention kernel on `arch` for S = `s`: 64 (mma.sync: four warps
// of 16), or on sm_90a 64 a warpgroup, two warpgroups when the rows fill more than one.
std::uint64_t block_rows(Arch arch, std::uint64_t s) { return has_wgmma(arch) && s > 64 ? 128 : 64; }

// The bytes of examples/attention.tc's run: Q once, K and V once per block of `rows` queries, O
// once; `causal`: a block walks the key tiles up to its last query's (causal_attention.tc).
void expect_bytes(const EmuRun& run, std::uint64_t b, std::uint64_t s, std::uint64_t t, std::uint64_t d, bool causal,
                  std::uint64_t rows) {
  const std::uint64_t blocks = (s + rows - 1) / rows, tiles = (t + 63) / 64;
  std::uint64_t keys = 0;  // the keys each block reads, summed
  for (std::uint64_t block = 0; block < blocks; ++block) {
    const std::uint64_t walked = causal ? std::min(tiles, std::min(rows * block + rows - 1, s - 1) / 64 + 1) : tiles;
    keys += std::min(t, 64 * walked);
  }
  EXPECT_EQ(bytes_loaded(run, "Q"), b * s * d * 2);
  EXPECT_EQ(bytes_loaded(run, "K"), b * keys * d * 2);
  EXPECT_EQ(bytes_loaded(run, "V"), b * keys * d * 2);
  EXPECT_EQ(bytes_stored(run, "O"), b * s * d * 2);
  EXPECT_EQ(run.stats.counter("global_bytes_stored"), b * s * d * 2) << "only O reaches memory";
}

struct Shape {
  std::int64_t b, s, t, d;
};

// On sm_80 the mma.sync kernel, on sm_90a the wgmma one (codegen/attention_wgmma_kernel.h): per
// block, warpgroup and key tile D/16 wgmma for the scores (D padded to 32, 64 or 128) and four for
// P * V (64 keys); one warpgroup for S <= 64, two above (S = 65 and 130: a second warpgroup with
// one valid row, a block whose second warpgroup has none). K and V come by TMA where the head pads
// to 64 or 128 columns and its rows are 16-byte multiples (D = 40: the box's columns past the
// head zero filled), else by cp.async. sm_90a runs the shapes marked `wgmma` (its other paths:
// the tests below).
TEST(AttentionEmu, ExamplesRunAsOneKernel) {
  struct Case {
    Shape x;
    bool wgmma;
  };
  for (const Case& c : {Case{{2, 40, 300, 64}, false}, Case{{3, 130, 40, 64}, true}, Case{{1, 65, 129, 32}, true},
                        Case{{2, 17, 1000, 128}, true}, Case{{1, 64, 64, 40}, true}, Case{{2, 33, 77, 24}, false},
                        Case{{1, 5, 3, 16}, true}, Case{{1, 200, 150, 128}, false}}) {
    const Shape& x = c.x;
    const SizeBindings sizes{{"B", x.b}, {"S", x.s}, {"T", x.t}, {"D", x.d}};
    for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
      if (has_wgmma(arch) && !c.wgmma) continue;
      SCOPED_TRACE(fmt::format("{}: B={} S={} T={} D={}", to_string(arch), x.b, x.s, x.t, x.d));
      const std::uint64_t rows = block_rows(arch, static_cast<std::uint64_t>(x.s));
      for (const char* example : {"attention", "causal_attention"}) {
        const bool causal = std::string(example) == "causal_attention";
        const EmuRun run = run_attention(example_source(example), sizes, arch);
        expect_bytes(run, x.b, x.s, x.t, x.d, causal, rows);
        if (x.d == 64 || has_wgmma(arch)) {
          EXPECT_EQ(run.stats.counter("shared_bank_conflicts"), 0u);
        }
        EXPECT_EQ(run.stats.counter("tma_loads") > 0, has_wgmma(arch) && x.d > 32 && x.d % 8 == 0);
        if (!has_wgmma(arch)) {
          EXPECT_EQ(run.stats.counter("wgmma_instructions"), 0u);
        } else if (!causal) {
          const std::uint64_t padded = x.d <= 32 ? 32 : x.d <= 64 ? 64 : 128;
          const std::uint64_t blocks = (x.s + rows - 1) / rows, tiles = (x.t + 63) / 64;
          EXPECT_EQ(run.stats.counter("wgmma_instructions"), x.b * blocks * (rows / 64) * tiles * (padded / 16 + 4));
        }
      }
    }
  }
}

// Rings of one, three and four stages of K and V (--stages), and fewer tiles than stages.
TEST(AttentionEmu, RingsOfOneToFourStages) {
  for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
    for (int stages : {1, 3, 4}) {
      SCOPED_TRACE(fmt::format("{}, {} stages", to_string(arch), stages));
      for (std::int64_t t : {300, 100}) {
        const Program program =
            compile_program(example_source("causal_attention"), {{"B", 2}, {"S", 40}, {"T", t}, {"D", 24}});
        GpuOptions options = on(arch);
        options.stages = stages;
        const EmuRun run = run_on_emulator(program, options);
        EXPECT_TRUE(run.check.ok) << run.check.to_string();
      }
    }
  }
}

// A causal mask as the last step (`t <= s + c ? x : -1e30`, c >= 0, in its spellings): a block
// stops after the key tile of its last query's last key (those after add exp(-1e30 - max) = 0).
// Shifted masks reach further; `t < s` leaves row 0 without a key (every key masked: the row
// averages them all) and walks every tile, as a step before the mask that is not a constant scale
// does; the walk one tile short is reported.
TEST(AttentionEmu, CausalMasksStopAtTheLastKeyTile) {
  const auto source = [](const std::string& mask) {
    return "def causal(f16(B, S, D) Q, f16(B, T, D) K, f16(B, T, D) V) -> (f16(B, S, D) O) {\n"
           "  L(b, s, t) +=! Q(b, s, d) * K(b, t, d) / sqrt(D)\n"
           "  M(b, s, t) = " + mask + " ? L(b, s, t) : -1e30\n"
           "  mx(b, s) max=! M(b, s, t)\n"
           "  e(b, s, t) = exp(M(b, s, t) - mx(b, s))\n"
           "  z(b, s) +=! e(b, s, t)\n"
           "  O(b, s, d) +=! e(b, s, t) * V(b, t, d) / z(b, s)\n"
           "}\n";
  };
  const SizeBindings sizes{{"B", 1}, {"S", 256}, {"T", 300}, {"D", 32}};
  const std::uint64_t tile = 64 * 32 * 2;  // the bytes of a full tile of K
  struct Case {
    std::string mask;
    std::uint64_t k_bytes;
  };
  for (const Case& c : {Case{"t <= s", (1 + 2 + 3 + 4) * tile}, Case{"s >= t", (1 + 2 + 3 + 4) * tile},
                        Case{"t <= s + 70", (3 + 4 + 4 + 4) * tile + 2 * 44 * 32 * 2},
                        Case{"t + 1 <= s + 1", (1 + 2 + 3 + 4) * tile},
                        Case{"t < s", 4 * 300 * 32 * 2}}) {
    SCOPED_TRACE(c.mask);
    // (`t < s`: row 0 has no key, its 32 elements have no bound)
    const EmuRun run = run_attention(source(c.mask), sizes, Arch::sm_80, {}, c.mask == "t < s" ? 32 : 0);
    EXPECT_EQ(bytes_loaded(run, "K"), c.k_bytes);
  }
  // A step before the mask that is not a constant scale (a bias read from a tensor could bring a
  // kept score near -1e30: the tiles after would then add exp(-1e30 - max) > 0): every tile walked.
  std::string biased = source("t <= s");
  biased.replace(biased.find("def causal(f16(B, S, D) Q,"), 26, "def causal(f16(S, T) bias, f16(B, S, D) Q,");
  biased.replace(biased.find("  M(b, s, t) = t <= s ? L(b, s, t)"), 34, "  X(b, s, t) = L(b, s, t) + bias(s, t)\n  M(b, s, t) = t <= s ? X(b, s, t)");
  EXPECT_EQ(bytes_loaded(run_attention(biased, sizes), "K"), 4u * 300 * 32 * 2);
  const Program program = compile_program(source("t <= s"), sizes);
  EmuRunOptions how;
  how.edit = replacing(") / 64 + 1);", ") / 64);");
  const EmuRun short_walk = run_on_emulator(program, on(Arch::sm_80), how);
  EXPECT_FALSE(short_walk.check.ok) << "a walk one tile short passed";
  // sm_90a: blocks of 128 queries walk 2 and 4 tiles; one tile short fails there too
  EXPECT_EQ(bytes_loaded(run_attention(source("t <= s"), sizes, Arch::sm_90a), "K"), (2 + 4) * tile);
  EXPECT_EQ(bytes_loaded(run_attention(source("t <= s + 70"), sizes, Arch::sm_90a), "K"), (4 + 4) * tile + 44 * 32 * 2);
  EXPECT_FALSE(run_on_emulator(program, on(Arch::sm_90a), how).check.ok) << "a walk one tile short passed on sm_90a";
}

// Two batch indices, a bias from the head and key/query indices (ALiBi), bf16 probabilities
// (the row sum adds the rounded values), an f32 output, V with more columns than the head.
TEST(AttentionEmu, BatchIndicesAlibiBf16AndWideValues) {
  const std::string source =
      "def alibi(bf16(B, H, S, D) Q, bf16(B, H, T, D) K, bf16(B, H, T, E) V) -> (f32(B, H, S, E) O) {\n"
      "  L(b, h, s, t) +=! Q(b, h, s, d) * K(b, h, t, d) / sqrt(D)\n"
      "  X(b, h, s, t) = L(b, h, s, t) - 0.25 * (h + 1) * (s - t) * (s - t) / (S + b)\n"
      "  mx(b, h, s) max=! X(b, h, s, t)\n"
      "  e(b, h, s, t) = bf16(exp(X(b, h, s, t) - mx(b, h, s)))\n"
      "  z(b, h, s) +=! e(b, h, s, t)\n"
      "  O(b, h, s, n) +=! e(b, h, s, t) * V(b, h, t, n) / z(b, h, s)\n"
      "}\n";
  for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
    const EmuRun run = run_attention(source, {{"B", 2}, {"H", 3}, {"S", 37}, {"T", 150}, {"D", 40}, {"E", 72}}, arch);
    EXPECT_EQ(bytes_stored(run, "O"), 2u * 3u * 37u * 72u * 4u);
  }
}

// Multi-query attention (K and V shared by the heads: fewer batch indices than Q; Q·Kᵀ and e·V are
// then contractions, not matmuls), a key padding mask read from a tensor (keep(b, t)), a bias per
// head read from a tensor (bias(h, s, t), f16): the steps load those elements inside the tensors
// only (rows and keys past the ends read nothing: the emulator's bounds checks). e in f16 and in f32.
TEST(AttentionEmu, SharedKeysAndStepsReadingTensors) {
  const std::string source =
      "def mqa(f16(B, H, S, D) Q, f16(B, T, D) K, f16(B, T, D) V, f32(B, T) keep, f16(H, S, T) bias)\n"
      "    -> (f16(B, H, S, D) O) {\n"
      "  L(b, h, s, t) +=! Q(b, h, s, d) * K(b, t, d) / sqrt(D)\n"
      "  X(b, h, s, t) = keep(b, t) > 0.5 ? L(b, h, s, t) + bias(h, s, t) : -1e30\n"
      "  mx(b, h, s) max=! X(b, h, s, t)\n"
      "  e(b, h, s, t) = f16(exp(X(b, h, s, t) - mx(b, h, s)))\n"
      "  z(b, h, s) +=! e(b, h, s, t)\n"
      "  O(b, h, s, d) +=! e(b, h, s, t) * V(b, t, d) / z(b, h, s)\n"
      "}\n";
  const std::int64_t b = 2, h = 3, s = 37, t = 140, d = 32;
  for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
    SCOPED_TRACE(to_string(arch));
    const EmuRun run = run_attention(source, {{"B", b}, {"H", h}, {"S", s}, {"T", t}, {"D", d}}, arch);
    // K and V: once per block of queries of each (b, h) slice
    EXPECT_EQ(bytes_loaded(run, "K"), static_cast<std::uint64_t>(b * h * t * d * 2));
    EXPECT_EQ(bytes_stored(run, "O"), static_cast<std::uint64_t>(b * h * s * d * 2));
    EXPECT_GT(bytes_loaded(run, "keep"), 0u);
    EXPECT_GT(bytes_loaded(run, "bias"), 0u);
  }

  // e in f32: e * V over t is a contraction (V without h), so the front end splits `/ z` off its
  // sum and the product may round e as a matmul's f32 operand (frontend/matmul_factors.h)
  std::string f32_e = source;
  f32_e.replace(f32_e.find("f16(exp("), 8, "(exp(");
  const EmuRun f32_run = run_attention(f32_e, {{"B", b}, {"H", h}, {"S", s}, {"T", t}, {"D", d}});
  EXPECT_EQ(bytes_stored(f32_run, "O"), static_cast<std::uint64_t>(b * h * s * d * 2));
}

// FlashAttention's (B, S, H, D) tensors, and others: the operands' and the output's row anywhere
// before the head's column, the batch indices in any order. Each tensor is read or stored through
// its own row stride (H * D for (B, S, H, D)): only O reaches memory, Q read once, K and V once
// per block of queries; a causal mask on them stops early as on (B, H, S, D); grouped-query
// attention on the same memory.
TEST(AttentionEmu, OperandsInTheirOwnLayouts) {
  const std::int64_t b = 2, h = 3, s = 70, t = 130, d = 40;
  const SizeBindings sizes{{"B", b}, {"H", h}, {"S", s}, {"T", t}, {"D", d}, {"E", 24}};
  for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
    SCOPED_TRACE(to_string(arch));
    const EmuRun run = run_attention(bshd_attention_source(), sizes, arch);
    const std::uint64_t blocks = (s + block_rows(arch, s) - 1) / block_rows(arch, s);
    EXPECT_EQ(bytes_loaded(run, "Q"), static_cast<std::uint64_t>(b * s * h * d * 2));
    EXPECT_EQ(bytes_loaded(run, "K"), blocks * b * t * h * d * 2);
    EXPECT_EQ(bytes_stored(run, "O"), static_cast<std::uint64_t>(b * s * h * d * 2));
    EXPECT_EQ(run.stats.counter("global_bytes_stored"), static_cast<std::uint64_t>(b * s * h * d * 2));
  }
  for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
    SCOPED_TRACE(to_string(arch));
    // causal grouped-query attention on (B, S, H, D) memory (Q and O as (B, S, G, R, D), H = G * R;
    // K and V one head a group): on sm_80 the first block of queries walks one key tile, the last
    // (rows 64..69) both; on sm_90a one block of 128 rows walks both
    const EmuRun grouped =
        run_attention(gqa_attention_source(), {{"B", 1}, {"G", 2}, {"R", 2}, {"S", s}, {"T", t}, {"D", d}}, arch);
    EXPECT_EQ(bytes_loaded(grouped, "K"), static_cast<std::uint64_t>(2 * 2 * (has_wgmma(arch) ? 128 : 64 + 128) * d * 2));
    EXPECT_EQ(bytes_stored(grouped, "O"), static_cast<std::uint64_t>(2 * 2 * s * d * 2));
    // every order: Q (h, b, s, d), K shared by the heads with its key first (t, b, d), V (b, h, t, n)
    // wider than the head, P on chip in O's order and O (s, h, b, n) in f32; e in f16
    const EmuRun run = run_attention(shuffled_attention_source(), sizes, arch);
    EXPECT_EQ(bytes_stored(run, "O"), static_cast<std::uint64_t>(b * s * h * 24 * 4));
    EXPECT_EQ(run.stats.counter("global_bytes_stored"), static_cast<std::uint64_t>(b * s * h * 24 * 4));
    // a row stride that breaks 16-byte rows (H * D = 3 * 20): narrower copies, element stores,
    // still one kernel
    const EmuRun narrow =
        run_attention(bshd_attention_source(), {{"B", 1}, {"H", 3}, {"S", 33}, {"T", 70}, {"D", 20}}, arch);
    EXPECT_EQ(bytes_stored(narrow, "O"), 33u * 3u * 20u * 2u);
  }
}

// Multi-query attention in the forms the plan gives it before the merge: no step and the scale in
// the scores' sum (five statements: a row reduction, a row chain, a row reduction), and no scale
// (Q·Kᵀ a GEMM over the grouped (h, s) rows: a kernel with a view) with a causal mask shifted by
// three (`t <= s + 3`: the index arithmetic is exact in the reference, so every element is
// checked). Both found by a sweep of random attention programs.
TEST(AttentionEmu, SharedKeysInEveryPlanForm) {
  const std::string five =
      "def mqa(f16(B, H, S, D) Q, f16(B, T, D) K, f16(B, T, E) V) -> (f16(B, H, S, E) O) {\n"
      "  L(b, h, s, t) +=! Q(b, h, s, d) * K(b, t, d) * 0.125\n"
      "  mx(b, h, s) max=! L(b, h, s, t)\n"
      "  e(b, h, s, t) = f16(exp(L(b, h, s, t) - mx(b, h, s)))\n"
      "  z(b, h, s) +=! e(b, h, s, t)\n"
      "  O(b, h, s, n) +=! e(b, h, s, t) * V(b, t, n) / z(b, h, s)\n"
      "}\n";
  for (Arch arch : {Arch::sm_80, Arch::sm_90a}) {
    const EmuRun run = run_attention(five, {{"B", 1}, {"H", 2}, {"S", 2}, {"T", 131}, {"D", 72}, {"E", 72}}, arch);
    // on sm_90a K and V by TMA: a 3-d map each, the block's matrix from its batch index b alone
    EXPECT_EQ(run.stats.counter("tma_loads") > 0, has_wgmma(arch));
  }
  const std::string grouped =
      "def mqa(f16(B, H, S, D) Q, f16(B, T, D) K, f16(B, T, E) V) -> (f16(B, H, S, E) O) {\n"
      "  L(b, h, s, t) +=! Q(b, h, s, d) * K(b, t, d)\n"
      "  M(b, h, s, t) = t <= s + 3 ? L(b, h, s, t) : -1e30\n"
      "  mx(b, h, s) max=! M(b, h, s, t)\n"
      "  e(b, h, s, t) = f16(exp(M(b, h, s, t) - mx(b, h, s)))\n"
      "  z(b, h, s) +=! e(b, h, s, t)\n"
      "  O(b, h, s, n) +=! e(b, h, s, t) * V(b, t, n) / z(b, h, s)\n"
      "}\n";
  for (Arch arch : {Arch::sm_80, Arch::sm_90a})
    run_attention(grouped, {{"B", 1}, {"H", 3}, {"S", 79}, {"T", 129}, {"D", 40}, {"E", 128}}, arch);
}

// The generated kernel with `edit` applied at sizes that need every part (three key tiles, a
// growing max, keys past the end): its check's text, or the emulator's error.
std::string broken_run(const std::string& from, const std::string& to, Arch arch = Arch::sm_80, std::int64_t s = 40) {
  const Program program = compile_program(example_source("attention"), {{"B", 2}, {"S", s}, {"T", 150}, {"D", 32}});
  EmuRunOptions how;
  how.edit = replacing(from, to);
  try {
    const EmuRun run = run_on_emulator(program, on(arch), how);
    return run.check.ok ? "" : run.check.to_string();
  } catch (const EmulatorError& e) {
    return e.what();
  }
}

TEST(AttentionEmu, PlantedErrorsAreReported) {
  EXPECT_EQ(broken_run("pf::tile::fill(out, 0.f);", "pf::tile::fill(out, 0.f);"), "") << "the unedited kernel passes";
  // the output so far not rescaled when the max grows
  EXPECT_NE(broken_run("pf::online_softmax(score, rows, out);",
                       "{ pf::AccTile16816<1, 4> kept = out; pf::online_softmax(score, rows, kept); }"),
            "");
  // a lane's part of the sum taken for the row's
  EXPECT_NE(broken_run("pf::softmax_rows_finish(rows);", ""), "");
  // the keys past the end not masked (their scores are 0: exp(-max) joins the sums)
  EXPECT_NE(broken_run("key < 150 ? x : pf::minus_infinity()", "x"), "");
  // no barrier before the next tile's copies overwrite the stage another warp may still read
  const std::string barrier = broken_run("pf::cp_async_wait<0>();\n    __syncthreads();", "pf::cp_async_wait<0>();");
  EXPECT_NE(barrier, "");
  // no wait for the tile's copies
  EXPECT_NE(broken_run("pf::cp_async_wait<0>();\n", ""), "");
}

// The same on the sm_90a kernel, and what wgmma and its overlap add: the copies not fenced for the
// async proxy, the scores read before their wgmma retired, the output rescaled before the previous
// tile's P·V retired, a V tile overwritten while that P·V still reads it (the ring one stage short).
TEST(AttentionEmu, PlantedErrorsAreReportedOnTheWgmmaKernel) {
  // S = 100: two warpgroups, whose barrier orders one's copies before the other's wgmma
  const auto broken = [](const std::string& from, const std::string& to) {
    return broken_run(from, to, Arch::sm_90a, 100);
  };
  EXPECT_EQ(broken("pf::sm90::wg_fill(out, 0.f);", "pf::sm90::wg_fill(out, 0.f);"), "") << "the unedited kernel passes";
  EXPECT_NE(broken("pf::rescale_rows(out, scale);", ""), "");
  EXPECT_NE(broken("pf::softmax_rows_finish(rows);", ""), "");
  EXPECT_NE(broken("key < 150 ? x : pf::minus_infinity()", "x"), "");
  EXPECT_NE(broken("pf::sm90::fence_proxy_async();", ""), "");
  EXPECT_NE(broken("pf::sm90::wgmma_wait<1>();", ""), "");
  EXPECT_NE(broken("pf::sm90::wgmma_wait<0>();  // the previous", "//"), "");
  EXPECT_NE(broken("((k_step + 1) % 3) * 8192 + 4096, v_base", "((k_step + 2) % 3) * 8192 + 4096, v_base"), "");
  EXPECT_NE(broken("__syncthreads();  // tile k_step landed", "//"), "");
  EXPECT_NE(broken("pf::cp_async_wait<0>();\n", ""), "");
}

// With heads of 64 columns the sm_90a kernel loads Q, K and V by TMA from a producer warpgroup (one
// thread issues the boxes; per stage a "full" mbarrier counts their bytes and an "empty" one the
// consumers' releases; the consumers release a stage once its P·V retired): the producer not
// waiting for a release or waiting on the other parity, the consumers releasing the tile they
// still read or never releasing, a tile read before its "full" phase completed (no wait, the other
// parity), too few bytes expected, Q read before it landed, the output staged before the other
// consumer is done, the mbarriers used before their initialisation is ordered: each reported.
// Five tiles through a ring of three: the parities wrap.
TEST(AttentionEmu, PlantedErrorsAreReportedOnTheTmaRing) {
  const auto broken = [](const std::string& from, const std::string& to) {
    const Program program = compile_program(example_source("attention"), {{"B", 2}, {"S", 100}, {"T", 300}, {"D", 64}});
    EmuRunOptions how;
    how.edit = replacing(from, to);
    try {
      const EmuRun run = run_on_emulator(program, on(Arch::sm_90a), how);
      EXPECT_GT(run.stats.counter("tma_loads"), 0u);
      return run.check.ok ? std::string() : run.check.to_string();
    } catch (const EmulatorError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(broken("pf::sm90::wg_fill(out, 0.f);", "pf::sm90::wg_fill(out, 0.f);"), "") << "the unedited kernel passes";
  EXPECT_NE(broken("if (k_step >= 3) pf::sm90::mbarrier_wait(empty + s", "if (false) pf::sm90::mbarrier_wait(empty + s"), "");
  EXPECT_NE(broken("static_cast<unsigned>(k_step / 3 - 1) & 1u", "static_cast<unsigned>(k_step / 3) & 1u"), "");
  EXPECT_NE(broken("pf::sm90::mbarrier_arrive(empty + (k_step - 1) % 3)", "pf::sm90::mbarrier_arrive(empty + k_step % 3)"),
            "");
  EXPECT_NE(broken("if (k_step > 0) pf::sm90::mbarrier_arrive(empty + (k_step - 1) % 3);", ""), "");
  EXPECT_NE(broken("pf::sm90::mbarrier_wait(full + k_step % 3", "if (false) pf::sm90::mbarrier_wait(full + k_step % 3"), "");
  EXPECT_NE(broken("static_cast<unsigned>(k_step / 3) & 1u);  // tile k_step's",
                   "static_cast<unsigned>(k_step / 3 + 1) & 1u);  // tile k_step's"),
            "");
  EXPECT_NE(broken("full + s, 16384);", "full + s, 8192);"), "");
  EXPECT_NE(broken("pf::sm90::mbarrier_wait(q_full, 0u);", ""), "");
  EXPECT_NE(broken("pf::sm90::WarpgroupBarrier{consumers_bar}", "[] {}"), "");
  EXPECT_NE(broken("    pf::sm90::fence_mbarrier_init();\n  }\n  __syncthreads();", "  }"), "");
}

// Defs the kernel does not take keep their plan, and the first kernel's note says why.
TEST(AttentionEmu, RefusalsKeepThePlanAndSayWhy) {
  struct Case {
    std::string source;
    SizeBindings sizes;
    F32Matmul f32;
    std::string why;
  };
  std::string bf16_f32_e = example_source("attention");
  for (auto at = bf16_f32_e.find("f16(B"); at != std::string::npos; at = bf16_f32_e.find("f16(B", at + 6))
    bf16_f32_e.replace(at, 5, "bf16(B");
  std::string stored_sums = example_source("attention");
  stored_sums.replace(stored_sums.find("-> (f16(B, S, D) O)"), 19, "-> (f16(B, S, D) O, mx)");
  for (const Case& c :
       {Case{example_source("attention"), {{"B", 1}, {"S", 20}, {"T", 40}, {"D", 160}}, F32Matmul::tf32,
             "the head has 160 columns and V 160: the attention kernel keeps at most 128"},
        Case{example_source("attention"), {{"B", 1}, {"S", 20}, {"T", 40}, {"D", 32}}, F32Matmul::f32,
             "e is f32 and --f32-matmul=f32 asks for f32 products"},
        Case{bf16_f32_e, {{"B", 1}, {"S", 20}, {"T", 40}, {"D", 32}}, F32Matmul::tf32,
             "e is f32 and V is bf16: the attention kernel would round e to bf16's 8 significant bits"},
        Case{stored_sums, {{"B", 1}, {"S", 20}, {"T", 40}, {"D", 32}}, F32Matmul::tf32,
             "mx is an output of the def: the attention kernel keeps it on chip"}}) {
    const Program program = compile_program(c.source, c.sizes);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program), c.f32);
    const std::string text = to_string(plan, program);
    EXPECT_GE(plan.kernels.size(), 2u) << text;
    EXPECT_NE(text.find("not one attention kernel: " + c.why), std::string::npos) << text;
    GpuOptions options = on(Arch::sm_80);
    options.f32_matmul = c.f32;
    const EmuRun run = run_on_emulator(program, options);
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
  }
}

}  // namespace
}  // namespace polyfuse
