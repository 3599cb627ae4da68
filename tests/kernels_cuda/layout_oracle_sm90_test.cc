// The Hopper helpers against the Hopper layout oracle (layout_oracle_sm90.h), on the emulator:
//   * the swizzles: pf::sm90::swizzle_offset of every offset of 4 KiB in every mode, against
//     CuTe's Swizzle<B, 4, 3> and against the driver's chunk permutation;
//   * the descriptor bits of make_descriptor over a sweep of fields;
//   * the canonical tiles: every element of every operand that tile_descriptor describes lies,
//     per the oracle's reading of the descriptor, where tile_offset put it (all majors and
//     swizzles, several extents, every row offset and k-step);
//   * the register fragments: WgAcc::wg_coord and WgFragA::wg_coord of every thread and
//     register; the accumulators of wgmma.mma_async (shared-memory and register forms, f16 and
//     bf16, several N) probed column by column as in layout_oracle_mma_test.cc; the A fragments
//     load_wg_frag_a reads from every kind of canonical tile; and store_wg_acc's placement.
// Planted layout bugs that these checks must catch: plant_layout_bugs.cmake (bugs 6..10).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "layout_oracle.h"
#include "layout_oracle_sm90.h"
#include "layout_oracle_sm90_kernels.h"
#include "layout_oracle_tally.h"
#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using pf_oracle::Coord;
using pf_oracle::to_string;
namespace o = pf_oracle::sm90;
using polyfuse::emu::ScopedBuffer;

const int kSpans[4] = {0, 32, 64, 128};  // the modes none, 32B, 64B, 128B
const char* const kModeNames[4] = {"none", "32B", "64B", "128B"};

template <class T> ScopedBuffer buffer(std::vector<T>& v, const char* name) {
  return ScopedBuffer(v.data(), v.size() * sizeof(T), name);
}

TEST(LayoutOracleSm90, Swizzles) {
  std::vector<unsigned> table(4 * 4096);
  {
    ScopedBuffer b = buffer(table, "table");
    polyfuse::emu::launch(oracle_sm90_swizzle, dim3(1), dim3(128), 0, table.data());
  }
  pfo_test::OracleTally tally("swizzle_offset");
  for (int mode = 0; mode < 4; ++mode)
    for (unsigned offset = 0; offset < 4096; ++offset) {
      const unsigned got = table[mode * 4096 + offset];
      const unsigned cute = o::cute_swizzle(mode, 4, 3, offset), driver = o::tma_swizzle(kSpans[mode], offset);
      tally.check(got == cute && got == driver, [&] {
        return std::string(kModeNames[mode]) + " offset " + std::to_string(offset) + " -> " + std::to_string(got) +
               ", oracle: " + std::to_string(cute) + " (CuTe Swizzle<" + std::to_string(mode) + ",4,3>), " +
               std::to_string(driver) + " (driver's chunk permutation)";
      });
    }
  tally.expect_no_mismatch();
}

TEST(LayoutOracleSm90, DescriptorBits) {
  std::vector<unsigned> fields;
  const unsigned starts[] = {0, 16, 1008, 1024, 4096, 0x3fff0, 0x40010}, offsets[] = {0, 16, 128, 1024, 4096, 0x3fff0},
                 bases[] = {0, 1, 5, 7};
  for (unsigned s : starts)
    for (unsigned l : offsets)
      for (unsigned t : offsets)
        for (unsigned b : bases)
          for (unsigned mode = 0; mode < 4; ++mode) fields.insert(fields.end(), {s, l, t, b, mode});
  const int count = static_cast<int>(fields.size() / 5);
  std::vector<unsigned long long> got(count);
  {
    ScopedBuffer bf = buffer(fields, "fields"), bg = buffer(got, "descriptors");
    polyfuse::emu::launch(oracle_sm90_descriptors, dim3(1), dim3(128), 0, fields.data(), got.data(), count);
  }
  pfo_test::OracleTally tally("make_descriptor");
  for (int i = 0; i < count; ++i) {
    const unsigned* f = &fields[5 * i];
    const std::uint64_t want = o::descriptor(f[0], f[1], f[2], f[3], kSpans[f[4]]);
    for (int bit = 0; bit < 64; ++bit)
      tally.check(((got[i] >> bit) & 1) == ((want >> bit) & 1), [&] {
        return "start " + std::to_string(f[0]) + " LBO " + std::to_string(f[1]) + " SBO " + std::to_string(f[2]) +
               " base " + std::to_string(f[3]) + " " + kModeNames[f[4]] + ": bit " + std::to_string(bit) + " is " +
               std::to_string((got[i] >> bit) & 1) + ", oracle: " + std::to_string((want >> bit) & 1);
      });
  }
  tally.expect_no_mismatch();
}

// The fields of a descriptor, read with the oracle's table (the inverse of o::descriptor).
struct Fields {
  unsigned start, leading, stride, base;
  int span;
};
Fields read_fields(std::uint64_t d) {
  const int modes[4] = {0, 128, 64, 32};
  return Fields{static_cast<unsigned>(d & 0x3fff) << 4, static_cast<unsigned>((d >> 16) & 0x3fff) << 4,
                static_cast<unsigned>((d >> 32) & 0x3fff) << 4, static_cast<unsigned>((d >> 49) & 7),
                modes[(d >> 62) & 3]};
}

struct TileCase {
  int major;  // 0: K-major, 1: M/N-major
  int mode;
  int mn_extent, k_extent;
};

TEST(LayoutOracleSm90, TileDescriptorsDescribeTheTiles) {
  std::vector<TileCase> cases;
  for (int major = 0; major < 2; ++major)
    for (int mode = 0; mode < 4; ++mode)
      for (const auto& [mn, k] : {std::pair{64, 16}, {64, 64}, {128, 64}, {256, 32}, {64, 128}, {192, 64}})
        cases.push_back({major, mode, mn, k});
  for (const TileCase& c : cases) {
    const std::string subject = std::string(c.major ? "MN" : "K") + "-major " + kModeNames[c.mode] + " tile " +
                                std::to_string(c.mn_extent) + "x" + std::to_string(c.k_extent);
    std::vector<int> cfg = {c.major, c.mode, c.mn_extent, c.k_extent};
    std::vector<unsigned> offsets(c.mn_extent * c.k_extent);
    const int steps = c.k_extent / 16;
    std::vector<unsigned long long> descs((c.mn_extent / 8) * steps);
    {
      ScopedBuffer b1 = buffer(cfg, "cfg"), b2 = buffer(offsets, "offsets"), b3 = buffer(descs, "descs");
      polyfuse::emu::launch(oracle_sm90_tile, dim3(1), dim3(128), 0, cfg.data(), offsets.data(), descs.data());
    }
    pfo_test::OracleTally tally("tile_descriptor/tile_offset " + subject);
    const int per_row = c.mode == 0 ? 8 : kSpans[c.mode] / 2;
    for (int mn0 = 0; mn0 < c.mn_extent; mn0 += 8) {
      if (c.major == 1 && c.mode != 0 && mn0 % per_row != 0) continue;  // M/N-major swizzled: atom-aligned operands
      const int rows = std::min(64, c.mn_extent - mn0);
      for (int kk = 0; kk < steps; ++kk) {
        const std::uint64_t d = descs[(mn0 / 8) * steps + kk];
        const Fields f = read_fields(d);
        tally.check(f.base == 0 && f.span == kSpans[c.mode], [&] {
          return "descriptor of rows " + std::to_string(mn0) + ".., k-step " + std::to_string(kk) + " has base offset " +
                 std::to_string(f.base) + " and a " + std::to_string(f.span) + "-byte swizzle";
        });
        for (int mn = 0; mn < rows; ++mn)
          for (int k = 0; k < 16; ++k) {
            const unsigned oracle = o::operand_address(c.major == 0, f.span, f.start, f.leading, f.stride, mn, k);
            const unsigned placed = offsets[(mn0 + mn) * c.k_extent + 16 * kk + k];
            tally.check(oracle == placed, [&] {
              return "rows " + std::to_string(mn0) + ".., k-step " + std::to_string(kk) + ": element (" +
                     std::to_string(mn0 + mn) + ", " + std::to_string(16 * kk + k) + ") is at byte " +
                     std::to_string(placed) + " of the tile, the descriptor (start " + std::to_string(f.start) + ", LBO " +
                     std::to_string(f.leading) + ", SBO " + std::to_string(f.stride) + ") addresses byte " +
                     std::to_string(oracle);
            });
          }
      }
    }
    tally.expect_no_mismatch();
  }
}

TEST(LayoutOracleSm90, FragmentCoordinates) {
  std::vector<int> table(2 * 128 * 128 + 2 * 128 * 8);
  {
    ScopedBuffer b = buffer(table, "coords");
    polyfuse::emu::launch(oracle_sm90_coords, dim3(1), dim3(128), 0, table.data());
  }
  pfo_test::OracleTally acc("WgAcc::wg_coord");
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 128; ++i) {
      const Coord got{table[2 * (t * 128 + i)], table[2 * (t * 128 + i) + 1]}, want = o::wgmma_d(t, i);
      acc.check(got == want, [&] {
        return "thread " + std::to_string(t) + " d" + std::to_string(i) + " at " + to_string(got) + ", oracle " + to_string(want);
      });
    }
  acc.expect_no_mismatch();
  pfo_test::OracleTally frag("WgFragA::wg_coord");
  const int* a = table.data() + 2 * 128 * 128;
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 8; ++i) {
      const Coord got{a[2 * (t * 8 + i)], a[2 * (t * 8 + i) + 1]}, want = o::wgmma_a(t, i);
      frag.check(got == want, [&] {
        return "thread " + std::to_string(t) + " a" + std::to_string(i) + " at " + to_string(got) + ", oracle " + to_string(want);
      });
    }
  frag.expect_no_mismatch();
}

// ---- the accumulators of wgmma, probed k by k --------------------------------------------------
// Block k0 (A probe): A(m, k) = 1 + m + 512 [k != k0], B(k, n) = [k == k0]: every accumulator
// must hold 1 + its oracle row. Block 16 + k0 (B probe): A = [k == k0], B(k, n) = 1 + n + 512
// [k != k0]: 1 + its oracle column. The register form takes A's registers laid out by the oracle.
using SsKernel = void (*)(const unsigned short*, const unsigned short*, float*);
using RsKernel = void (*)(const unsigned*, const unsigned short*, const unsigned short*, float*);

void probe_accumulators(const std::string& name, int n, bool bf16, SsKernel ss, RsKernel rs) {
  const int probes = 32;
  std::vector<unsigned short> a(probes * 64 * 16), b(probes * n * 16);
  std::vector<unsigned> regs(probes * 128 * 4);
  for (int p = 0; p < probes; ++p) {
    const bool probe_a = p < 16;
    const int k0 = p % 16;
    const auto av = [&](int m, int k) { return probe_a ? 1.f + m + (k != k0 ? 512.f : 0.f) : (k == k0 ? 1.f : 0.f); };
    const auto bv = [&](int k, int col) { return probe_a ? (k == k0 ? 1.f : 0.f) : 1.f + col + (k != k0 ? 512.f : 0.f); };
    for (int m = 0; m < 64; ++m)
      for (int k = 0; k < 16; ++k) a[(p * 64 + m) * 16 + k] = pft_test::from_f(av(m, k), bf16);
    for (int col = 0; col < n; ++col)
      for (int k = 0; k < 16; ++k) b[(p * n + col) * 16 + k] = pft_test::from_f(bv(k, col), bf16);
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < 8; ++i) {
        const Coord c = o::wgmma_a(t, i);
        const unsigned bits = pft_test::from_f(av(c.row, c.col), bf16);
        unsigned& r = regs[(p * 128 + t) * 4 + i / 2];
        r = i % 2 ? (r & 0xffffu) | (bits << 16) : (r & 0xffff0000u) | bits;
      }
  }
  for (int form = 0; form < 2; ++form) {
    std::vector<float> d(probes * 128 * (n / 2), -1.f);
    {
      ScopedBuffer ba = buffer(a, "A"), bb = buffer(b, "B"), br = buffer(regs, "A registers"), bd = buffer(d, "D");
      const std::size_t smem = 2 * (64 * 16 + n * 16);
      if (form == 0) polyfuse::emu::launch(ss, dim3(probes), dim3(128), smem, a.data(), b.data(), d.data());
      else polyfuse::emu::launch(rs, dim3(probes), dim3(128), smem, regs.data(), a.data(), b.data(), d.data());
    }
    pfo_test::OracleTally tally(name + (form == 0 ? " (A from shared memory)" : " (A from registers)"));
    for (int p = 0; p < probes; ++p)
      for (int t = 0; t < 128; ++t)
        for (int i = 0; i < n / 2; ++i) {
          const Coord c = o::wgmma_d(t, i);
          const float want = p < 16 ? 1.f + c.row : 1.f + c.col;
          const float got = d[(p * 128 + t) * (n / 2) + i];
          tally.check(got == want, [&] {
            return std::string(p < 16 ? "A" : "B") + " probe k = " + std::to_string(p % 16) + ": thread " + std::to_string(t) +
                   " d" + std::to_string(i) + " is D" + to_string(c) + " per the oracle, expected " + std::to_string(want) +
                   " and got " + std::to_string(got);
          });
        }
    tally.expect_no_mismatch();
  }
}

#define PFO90_ACC_TEST(N)                                                                                   \
  TEST(LayoutOracleSm90, WgmmaAccumulatorsF16N##N) {                                                        \
    probe_accumulators("wgmma m64n" #N "k16 f16", N, false, oracle_wgmma_ss_f16_n##N, oracle_wgmma_rs_f16_n##N); \
  }                                                                                                         \
  TEST(LayoutOracleSm90, WgmmaAccumulatorsBf16N##N) {                                                       \
    probe_accumulators("wgmma m64n" #N "k16 bf16", N, true, oracle_wgmma_ss_bf16_n##N, oracle_wgmma_rs_bf16_n##N); \
  }
PFO90_ACC_TEST(8)
PFO90_ACC_TEST(16)
PFO90_ACC_TEST(24)
PFO90_ACC_TEST(64)
PFO90_ACC_TEST(128)
PFO90_ACC_TEST(200)
PFO90_ACC_TEST(256)
#undef PFO90_ACC_TEST

// ---- load_wg_frag_a: A(m, k) holds the bits m * 64 + k; element i of thread t's fragment of
// k-step kk must hold A(oracle row, 16 kk + oracle col). -----------------------------------------
TEST(LayoutOracleSm90, RegisterFragmentLoads) {
  using Kernel = void (*)(const unsigned short*, unsigned*);
  const struct {
    const char* name;
    Kernel kernel;
  } loads[] = {{"K-major none", oracle_frag_a_k_none},   {"K-major 32B", oracle_frag_a_k_b32},
               {"K-major 64B", oracle_frag_a_k_b64},     {"K-major 128B", oracle_frag_a_k_b128},
               {"M-major none", oracle_frag_a_mn_none},  {"M-major 32B", oracle_frag_a_mn_b32},
               {"M-major 64B", oracle_frag_a_mn_b64},    {"M-major 128B", oracle_frag_a_mn_b128}};
  std::vector<unsigned short> a(64 * 64);
  for (int i = 0; i < 64 * 64; ++i) a[i] = static_cast<unsigned short>(i);
  for (const auto& l : loads) {
    std::vector<unsigned> out(4 * 128 * 4);
    {
      ScopedBuffer ba = buffer(a, "A"), bo = buffer(out, "fragments");
      polyfuse::emu::launch(l.kernel, dim3(1), dim3(128), 64 * 64 * 2, a.data(), out.data());
    }
    pfo_test::OracleTally tally(std::string("load_wg_frag_a ") + l.name);
    for (int kk = 0; kk < 4; ++kk)
      for (int t = 0; t < 128; ++t)
        for (int i = 0; i < 8; ++i) {
          const unsigned reg = out[(kk * 128 + t) * 4 + i / 2];
          const unsigned got = i % 2 ? reg >> 16 : reg & 0xffffu;
          const Coord c = o::wgmma_a(t, i);
          const unsigned want = static_cast<unsigned>(c.row * 64 + 16 * kk + c.col);
          tally.check(got == want, [&] {
            return "k-step " + std::to_string(kk) + ": thread " + std::to_string(t) + " a" + std::to_string(i) + " holds A(" +
                   std::to_string(got / 64) + ", " + std::to_string(got % 64) + "), oracle: A(" + std::to_string(c.row) +
                   ", " + std::to_string(16 * kk + c.col) + ")";
          });
        }
    tally.expect_no_mismatch();
  }
}

// ---- store_wg_acc: register i of thread t (value 1000 t + i) belongs at the oracle's (row, col).
void check_store(int n, void (*kernel)(const float*, float*)) {
  std::vector<float> values(128 * (n / 2)), out(64 * n, -1.f);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < n / 2; ++i) values[t * (n / 2) + i] = static_cast<float>(1000 * t + i);
  {
    ScopedBuffer bv = buffer(values, "values"), bo = buffer(out, "out");
    polyfuse::emu::launch(kernel, dim3(1), dim3(128), 0, values.data(), out.data());
  }
  pfo_test::OracleTally tally("store_wg_acc<float> WgAcc<" + std::to_string(n) + ">");
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < n / 2; ++i) {
      const Coord c = o::wgmma_d(t, i);
      const float got = out[c.row * n + c.col];
      tally.check(got == values[t * (n / 2) + i], [&] {
        return "thread " + std::to_string(t) + " d" + std::to_string(i) + " belongs at " + to_string(c) +
               " (oracle), which holds thread " + std::to_string(static_cast<int>(got) / 1000) + " d" +
               std::to_string(static_cast<int>(got) % 1000);
      });
    }
  tally.expect_no_mismatch();
}
TEST(LayoutOracleSm90, AccumulatorStoreN64) { check_store(64, oracle_store_wg_acc_n64); }
TEST(LayoutOracleSm90, AccumulatorStoreN256) { check_store(256, oracle_store_wg_acc_n256); }

}  // namespace
