// The MMA helpers' host implementations (kernels/cuda/pf_mma_m16n8k16.cuh, pf_mma_m8n8k4.cuh)
// against the layout oracle, on the emulator: mma.m16n8k16 f16 and bf16 (one instruction,
// a 2x2 warp tile, and the per-fragment call of generated code), and the paper's 16x16x8 /
// 32x32x8 macro-MMAs from mma.m8n8k4 in the four row/col layouts.
//
// A product only shows sums, so each operand is probed column by column: the registers of A
// are filled, as the oracle lays them out, with values that encode their own (row, col),
// and B's registers hold the selector "k == k0" (1 or 0), again laid out by the oracle. Then
// every accumulator register must hold the element of A at (its oracle row, k0). With A the
// selector and B encoded, every accumulator must hold B(k0, its oracle column). One probe
// per k0 and operand, each a warp of its own; every accumulator register of every lane is
// compared, and every A and B register is read by the probe of its k.
//
// m8n8k4 is four independent products, one per quad pair, each from its own lanes'
// registers (PTX ISA 9.7.14.5.1). The macro-MMAs hold every A row in two quad pairs and every
// B column in two: each copy is tagged with its quad pair (value + 512 q), and a quad pair's
// accumulators must carry its own tag, as on the hardware.
//
// Planted layout bugs that these checks must catch: layout_oracle.h (top), plant_layout_bugs.cmake.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "layout_oracle.h"
#include "layout_oracle_kernels.h"
#include "layout_oracle_tally.h"
#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {
using namespace pf_oracle;
using Kernel = void (*)(const unsigned*, const unsigned*, float*);
using Layout = std::function<Coord(int lane, int element)>;

struct MmaProbe {
  std::string name;
  Kernel kernel;
  bool bf16;
  int m, n, k;                      // the warp's product: (m x k) * (k x n)
  int a_elements, b_elements, acc;  // per lane: 16-bit A and B elements, f32 accumulators
  Layout a, b, c;                   // the oracle
  bool per_quad_pair;               // m8n8k4: quad pairs compute from their own registers
  int elements_per_fragment_a, elements_per_fragment_b;
};

constexpr int kQuadPairTag = 512;
int tag(const MmaProbe& p, int lane) { return p.per_quad_pair ? kQuadPairTag * mma_m8n8k4_quad_pair(lane) : 0; }

std::string element_name(int e, int per_fragment, char operand) {
  return "fragment " + std::to_string(e / per_fragment) + " " + operand + std::to_string(e % per_fragment);
}

// Who holds A(r, c) (operand 'a') or B(r, c) (operand 'b'), per the oracle.
std::string holders(const MmaProbe& p, char operand, Coord want) {
  std::string s;
  const int elements = operand == 'a' ? p.a_elements : p.b_elements;
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < elements; ++e)
      if ((operand == 'a' ? p.a(lane, e) : p.b(lane, e)) == want)
        s += (s.empty() ? "" : ", ") + std::string("lane ") + std::to_string(lane) + " " +
             element_name(e, operand == 'a' ? p.elements_per_fragment_a : p.elements_per_fragment_b, operand);
  return s;
}

// What an accumulator value is, read back as an encoded element of `operand`.
std::string decode(const MmaProbe& p, char operand, float v) {
  const int cols = operand == 'a' ? p.k : p.n, count = operand == 'a' ? p.m * p.k : p.k * p.n;
  const long iv = std::lround(v);
  if (v != static_cast<float>(iv) || iv < 1) return std::to_string(v) + " (no single element)";
  const int code = static_cast<int>((iv - 1) % kQuadPairTag), q = static_cast<int>((iv - 1) / kQuadPairTag);
  if (code >= count || q > 3) return std::to_string(v) + " (no single element)";
  const Coord c{code / cols, code % cols};
  return std::string(1, operand == 'a' ? 'A' : 'B') + to_string(c) + (p.per_quad_pair ? " of quad pair " + std::to_string(q) : "");
}

void run_and_check(const MmaProbe& p) {
  const int probes = p.k * 2;  // blocks 0..k-1: A probes of k0; k..2k-1: B probes of k0
  std::vector<unsigned short> a(static_cast<std::size_t>(probes) * 32 * p.a_elements);
  std::vector<unsigned short> b(static_cast<std::size_t>(probes) * 32 * p.b_elements);
  std::vector<float> d(static_cast<std::size_t>(probes) * 32 * p.acc, -1.f);
  for (int probe = 0; probe < probes; ++probe) {
    const bool probe_a = probe < p.k;
    const int k0 = probe % p.k;
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < p.a_elements; ++e) {
        const Coord c = p.a(lane, e);
        const float v = probe_a ? static_cast<float>(1 + c.row * p.k + c.col + tag(p, lane)) : (c.col == k0 ? 1.f : 0.f);
        a[(static_cast<std::size_t>(probe) * 32 + lane) * p.a_elements + e] = pft_test::from_f(v, p.bf16);
      }
      for (int e = 0; e < p.b_elements; ++e) {
        const Coord c = p.b(lane, e);
        const float v = probe_a ? (c.row == k0 ? 1.f : 0.f) : static_cast<float>(1 + c.row * p.n + c.col + tag(p, lane));
        b[(static_cast<std::size_t>(probe) * 32 + lane) * p.b_elements + e] = pft_test::from_f(v, p.bf16);
      }
    }
  }
  // Element 2r of a lane is the low half of its register r (little-endian pairs).
  static_assert(sizeof(unsigned) == 2 * sizeof(unsigned short));
  const auto* a_regs = reinterpret_cast<const unsigned*>(a.data());
  const auto* b_regs = reinterpret_cast<const unsigned*>(b.data());
  polyfuse::emu::ScopedBuffer ba(a.data(), a.size() * 2, "A registers"), bb(b.data(), b.size() * 2, "B registers"),
      bd(d.data(), d.size() * 4, "accumulators");
  polyfuse::emu::launch(p.kernel, dim3(probes), dim3(32), 0, a_regs, b_regs, d.data());

  pfo_test::OracleTally tally(p.name);
  for (int probe = 0; probe < probes; ++probe) {
    const bool probe_a = probe < p.k;
    const int k0 = probe % p.k;
    for (int lane = 0; lane < 32; ++lane)
      for (int idx = 0; idx < p.acc; ++idx) {
        const Coord c = p.c(lane, idx);
        const Coord want = probe_a ? Coord{c.row, k0} : Coord{k0, c.col};
        const int cols = probe_a ? p.k : p.n;
        const float expected = static_cast<float>(1 + want.row * cols + want.col + tag(p, lane));
        const float got = d[(static_cast<std::size_t>(probe) * 32 + lane) * p.acc + idx];
        tally.check(got == expected, [&] {
          const char operand = probe_a ? 'a' : 'b';
          return std::string(probe_a ? "A" : "B") + " probe k = " + std::to_string(k0) + ": accumulator lane " +
                 std::to_string(lane) + " v[" + std::to_string(idx) + "] is C" + to_string(c) + " per the oracle and got " +
                 decode(p, operand, got) + ", expected " + (probe_a ? "A" : "B") + to_string(want) +
                 (p.per_quad_pair ? " of quad pair " + std::to_string(mma_m8n8k4_quad_pair(lane)) : "") +
                 " (held by " + holders(p, operand, want) + ")";
        });
      }
  }
  tally.expect_no_mismatch();
}

// ---- mma.m16n8k16 -----------------------------------------------------------------------------
MmaProbe mma16816(std::string name, Kernel kernel, bool bf16, int mt, int nt) {
  MmaProbe p{std::move(name), kernel, bf16, 16 * mt, 8 * nt, 16, 8 * mt, 4 * nt, 4 * mt * nt, {}, {}, {}, false, 8, 4};
  p.a = [](int lane, int e) {
    const Coord c = mma_m16n8k16_a(lane, e % 8);
    return Coord{16 * (e / 8) + c.row, c.col};
  };
  p.b = [](int lane, int e) {
    const Coord c = mma_m16n8k16_b(lane, e % 4);
    return Coord{c.row, 8 * (e / 4) + c.col};
  };
  p.c = [nt](int lane, int idx) { return acc_tile_16816(nt, lane, idx); };
  return p;
}

TEST(LayoutOracleMma, M16n8k16F16) { run_and_check(mma16816("mma.m16n8k16 f16", oracle_mma16816_f16, false, 1, 1)); }
TEST(LayoutOracleMma, M16n8k16Bf16) { run_and_check(mma16816("mma.m16n8k16 bf16", oracle_mma16816_bf16, true, 1, 1)); }
TEST(LayoutOracleMma, M16n8k16WarpTile2x2) {
  run_and_check(mma16816("mma_16816 2x2 tile f16", oracle_mma16816_f16_tile2x2, false, 2, 2));
}
TEST(LayoutOracleMma, M16n8k16Fragments2x2) {
  run_and_check(mma16816("mma_fragment 2x2 tile f16", oracle_mma16816_f16_fragments2x2, false, 2, 2));
}

// ---- macro-MMAs from mma.m8n8k4 -----------------------------------------------------------------
MmaProbe macro884(std::string name, Kernel kernel, Major la, Major lb, int mt) {
  MmaProbe p{std::move(name), kernel, false, 16 * mt, 16 * mt, 8, 8 * mt, 8 * mt, 8 * mt * mt, {}, {}, {}, true, 8, 8};
  p.a = [la](int lane, int e) {
    const Coord c = macro16x16x8_a(la, lane, e % 8);
    return Coord{16 * (e / 8) + c.row, c.col};
  };
  p.b = [lb](int lane, int e) {
    const Coord c = macro16x16x8_b(lb, lane, e % 8);
    return Coord{c.row, 16 * (e / 8) + c.col};
  };
  p.c = [mt](int lane, int idx) { return acc_tile_884(mt, lane, idx); };
  return p;
}

struct MacroCase {
  const char* name;
  Kernel k16x16x8, k32x32x8, macro32x32x8;
  Major la, lb;
};
class LayoutOracleMacroMma : public ::testing::TestWithParam<MacroCase> {};
TEST_P(LayoutOracleMacroMma, M16n16k8) {
  const MacroCase& c = GetParam();
  run_and_check(macro884(std::string("mma_16x16x8 ") + c.name, c.k16x16x8, c.la, c.lb, 1));
}
TEST_P(LayoutOracleMacroMma, M32n32k8) {
  const MacroCase& c = GetParam();
  run_and_check(macro884(std::string("mma_32x32x8 ") + c.name, c.k32x32x8, c.la, c.lb, 2));
}
TEST_P(LayoutOracleMacroMma, MacroCall32x32x8) {
  const MacroCase& c = GetParam();
  run_and_check(macro884(std::string("mma_macro_32x32x8 ") + c.name, c.macro32x32x8, c.la, c.lb, 2));
}
#define PFO_MACRO_CASE(LA, LB)                                                                      \
  MacroCase {                                                                                       \
    #LA "." #LB, oracle_mma884_16x16x8_##LA##_##LB, oracle_mma884_32x32x8_##LA##_##LB,              \
        oracle_mma884_macro32x32x8_##LA##_##LB, Major::LA, Major::LB                                \
  }
INSTANTIATE_TEST_SUITE_P(Layouts, LayoutOracleMacroMma,
                         ::testing::Values(PFO_MACRO_CASE(row, row), PFO_MACRO_CASE(row, col), PFO_MACRO_CASE(col, row),
                                           PFO_MACRO_CASE(col, col)),
                         [](const auto& info) {
                           std::string s = info.param.name;
                           s[3] = '_';
                           return s;
                         });
#undef PFO_MACRO_CASE

}  // namespace
