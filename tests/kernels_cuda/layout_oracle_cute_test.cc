// The layout oracle checked against itself and against a second, independent source:
// CuTe's published thread-value layouts (cute/atom/mma_traits_sm80.hpp, mma_traits_sm70.hpp,
// copy_traits_sm75.hpp in NVIDIA/cutlass). The CuTe layouts are restated below as plain
// shape/stride numbers and evaluated by a small function of our own; if the oracle misread
// the PTX ISA, CuTe disagrees here. No GPU, no emulator, no kernels/cuda.
#include <gtest/gtest.h>

#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "layout_oracle.h"

namespace {
using namespace pf_oracle;

// A flat CuTe mode: (s0, s1, ...) : (d0, d1, ...). An index i is split colexicographically
// (first sub-mode fastest) and mapped to sum_j ((i / (s0 ... s_{j-1})) % s_j) * d_j.
struct Mode {
  std::vector<std::pair<int, int>> shape_stride;
  int operator()(int i) const {
    int offset = 0;
    for (const auto& [shape, stride] : shape_stride) {
      offset += (i % shape) * stride;
      i /= shape;
    }
    return offset;
  }
};
// A CuTe thread-value layout: (thread, value) -> linear index of the reference domain.
struct TvLayout {
  Mode thread, value;
  int operator()(int t, int v) const { return thread(t) + value(v); }
};
// CuTe's MMA layouts index the (M, K), (N, K) or (M, N) domain column-major: i = x + X * y.
Coord column_major(int index, int extent) { return {index % extent, index / extent}; }

// ---- mma_traits_sm80.hpp: SM80_16x8x16_F32F16F16F32_TN (and the bf16 one, same layouts) --
const TvLayout cute_sm80_16x8x16_a{{{{4, 32}, {8, 1}}}, {{{2, 16}, {2, 8}, {2, 128}}}};  // (M16, K16)
const TvLayout cute_sm80_16x8x16_b{{{{4, 16}, {8, 1}}}, {{{2, 8}, {2, 64}}}};            // (N8, K16)
const TvLayout cute_sm80_16x8_row{{{{4, 32}, {8, 1}}}, {{{2, 16}, {2, 8}}}};             // C (M16, N8)
// SM80_16x8x8_F32F16F16F32_TN: A is SM80_16x8_Row over (M16, K8); B SM80_8x8_Row over (N8, K8).
const TvLayout cute_sm80_8x8_row{{{{4, 16}, {8, 1}}}, {{{2, 8}}}};

TEST(LayoutOracleCute, Mma16816MatchesSm80Traits) {
  for (int t = 0; t < 32; ++t) {
    for (int v = 0; v < 8; ++v)
      EXPECT_EQ(mma_m16n8k16_a(t, v), column_major(cute_sm80_16x8x16_a(t, v), 16)) << "A lane " << t << " a" << v;
    for (int v = 0; v < 4; ++v) {
      const Coord nk = column_major(cute_sm80_16x8x16_b(t, v), 8);  // (n, k)
      EXPECT_EQ(mma_m16n8k16_b(t, v), (Coord{nk.col, nk.row})) << "B lane " << t << " b" << v;
      EXPECT_EQ(mma_m16n8k16_c(t, v), column_major(cute_sm80_16x8_row(t, v), 16)) << "C lane " << t << " c" << v;
    }
  }
}

TEST(LayoutOracleCute, Mma1688MatchesSm80Traits) {
  for (int t = 0; t < 32; ++t) {
    for (int v = 0; v < 4; ++v)
      EXPECT_EQ(mma_m16n8k8_a(t, v), column_major(cute_sm80_16x8_row(t, v), 16)) << "A lane " << t << " a" << v;
    for (int v = 0; v < 2; ++v) {
      const Coord nk = column_major(cute_sm80_8x8_row(t, v), 8);
      EXPECT_EQ(mma_m16n8k8_b(t, v), (Coord{nk.col, nk.row})) << "B lane " << t << " b" << v;
    }
  }
}

// ---- mma_traits_sm70.hpp: SM70_8x8x4_F32F16F16F32_{TN,NT,NN,TT} ----------------------------
// ThrID SM70_QuadPair (4, 2) : (1, 16) maps the atom's 8 threads to lanes of quad pair 0;
// quad pair q is the same atom on lanes + 4q. "T" operands (K-major: .row A, .col B) use
// SM70_8x4_Row, "N" operands SM70_8x4_Col; C with f32 is SM70_8x8_32b.
const Mode cute_sm70_quad_pair{{{4, 1}, {2, 16}}};
const TvLayout cute_sm70_8x4_row{{{{8, 1}}}, {{{4, 8}}}};                             // (M|N 8, K4)
const TvLayout cute_sm70_8x4_col{{{{4, 8}, {2, 4}}}, {{{4, 1}}}};
const TvLayout cute_sm70_8x8_32b{{{{2, 1}, {2, 16}, {2, 4}}}, {{{2, 8}, {2, 2}, {2, 32}}}};  // (M8, N8)

TEST(LayoutOracleCute, Mma884MatchesSm70Traits) {
  for (int q = 0; q < 4; ++q)
    for (int t = 0; t < 8; ++t) {
      const int lane = cute_sm70_quad_pair(t) + 4 * q;
      EXPECT_EQ(mma_m8n8k4_quad_pair(lane), q);
      for (int v = 0; v < 4; ++v) {
        // A (M, K): .row is the K-major "T" layout.
        EXPECT_EQ(mma_m8n8k4_a(Major::row, lane, v), column_major(cute_sm70_8x4_row(t, v), 8)) << lane << " a" << v;
        EXPECT_EQ(mma_m8n8k4_a(Major::col, lane, v), column_major(cute_sm70_8x4_col(t, v), 8)) << lane << " a" << v;
        // B (N, K): .col is K-major ("T" in CuTe's TN), .row is N-major.
        const Coord nk_col = column_major(cute_sm70_8x4_row(t, v), 8), nk_row = column_major(cute_sm70_8x4_col(t, v), 8);
        EXPECT_EQ(mma_m8n8k4_b(Major::col, lane, v), (Coord{nk_col.col, nk_col.row})) << lane << " b" << v;
        EXPECT_EQ(mma_m8n8k4_b(Major::row, lane, v), (Coord{nk_row.col, nk_row.row})) << lane << " b" << v;
      }
      for (int v = 0; v < 8; ++v)
        EXPECT_EQ(mma_m8n8k4_c(lane, v), column_major(cute_sm70_8x8_32b(t, v), 8)) << lane << " c" << v;
    }
}

// ---- copy_traits_sm75.hpp: SM75_U32x{1,2,4}_LDSM_N and SM75_U16x{2,4,8}_LDSM_T -----------
// Both sides index bits of the source: 32 rows of 128 bits, row r addressed by thread r
// (SrcLayout; for x1/x2 the upper threads repeat the lower ones with stride 0). DstLayout maps
// (thread, value) to a source bit; value = bit of the 32-bit register, then register.
struct Ldsm {
  int num;
  bool trans;
  TvLayout source, destination;
};
const Ldsm cute_ldsm[] = {
    {1, false, {{{{8, 128}, {4, 0}}}, {{{128, 1}}}}, {{{{32, 32}}}, {{{32, 1}}}}},
    {2, false, {{{{16, 128}, {2, 0}}}, {{{128, 1}}}}, {{{{32, 32}}}, {{{32, 1}, {2, 1024}}}}},
    {4, false, {{{{32, 128}}}, {{{128, 1}}}}, {{{{32, 32}}}, {{{32, 1}, {4, 1024}}}}},
    {1, true, {{{{8, 128}, {4, 0}}}, {{{128, 1}}}}, {{{{4, 256}, {8, 16}}}, {{{16, 1}, {2, 128}}}}},
    {2, true, {{{{16, 128}, {2, 0}}}, {{{128, 1}}}}, {{{{4, 256}, {8, 16}}}, {{{16, 1}, {2, 128}, {2, 1024}}}}},
    {4, true, {{{{32, 128}}}, {{{128, 1}}}}, {{{{4, 256}, {8, 16}}}, {{{16, 1}, {2, 128}, {4, 1024}}}}},
};

TEST(LayoutOracleCute, LdmatrixMatchesSm75Traits) {
  for (const Ldsm& form : cute_ldsm) {
    std::string name = form.trans ? ".trans" : "";
    name.insert(0, std::to_string(form.num)).insert(0, 1, 'x');
    for (int m = 0; m < form.num; ++m)
      for (int r = 0; r < 8; ++r) {
        const int lane = ldmatrix_address_lane(m, r);
        EXPECT_EQ(form.source(lane, 0), 128 * (8 * m + r)) << name << " address of matrix " << m << " row " << r;
      }
    for (int lane = 0; lane < 32; ++lane)
      for (int reg = 0; reg < form.num; ++reg)
        for (int half = 0; half < 2; ++half) {
          const int bit = form.destination(lane, 32 * reg + 16 * half);
          const int source_row = bit / 128, element = bit % 128 / 16;
          EXPECT_EQ(source_row / 8, reg) << name << " lane " << lane << " r" << reg;
          EXPECT_EQ(ldmatrix_element(form.trans, lane, half), (Coord{source_row % 8, element}))
              << name << " lane " << lane << " r" << reg << " half " << half;
        }
  }
}

// ---- The oracle against itself -----------------------------------------------------------

// Every element of a rows x cols matrix is held by exactly `copies` (lane, element) pairs.
template <class F> void expect_covers(const char* what, int rows, int cols, int elements, int copies, F coord) {
  std::vector<int> held(static_cast<std::size_t>(rows) * cols, 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < elements; ++e) {
      const Coord c = coord(lane, e);
      ASSERT_TRUE(c.row >= 0 && c.row < rows && c.col >= 0 && c.col < cols) << what << " lane " << lane << " " << e;
      ++held[static_cast<std::size_t>(c.row) * cols + c.col];
    }
  for (int i = 0; i < rows * cols; ++i) EXPECT_EQ(held[i], copies) << what << " element " << i / cols << ", " << i % cols;
}

TEST(LayoutOracleSelf, EveryLayoutCoversItsMatrix) {
  expect_covers("m16n8k16 A", 16, 16, 8, 1, mma_m16n8k16_a);
  expect_covers("m16n8k16 B", 16, 8, 4, 1, mma_m16n8k16_b);
  expect_covers("m16n8k16 C", 16, 8, 4, 1, mma_m16n8k16_c);
  expect_covers("m16n8k8 A", 16, 8, 4, 1, mma_m16n8k8_a);
  expect_covers("m16n8k8 B", 8, 8, 2, 1, mma_m16n8k8_b);
  for (Major m : {Major::row, Major::col}) {
    // Four computations, each covering its own 8x4 A / 4x8 B once.
    expect_covers("m8n8k4 A", 8, 4, 4, 4, [m](int l, int i) { return mma_m8n8k4_a(m, l, i); });
    expect_covers("m8n8k4 B", 4, 8, 4, 4, [m](int l, int i) { return mma_m8n8k4_b(m, l, i); });
    // The macro fragments: every A row lives in two quad pairs, every B column too.
    expect_covers("16x16x8 A", 16, 8, 8, 2, [m](int l, int e) { return macro16x16x8_a(m, l, e); });
    expect_covers("16x16x8 B", 8, 16, 8, 2, [m](int l, int e) { return macro16x16x8_b(m, l, e); });
  }
  expect_covers("m8n8k4 C", 8, 8, 8, 4, mma_m8n8k4_c);
  expect_covers("16x16x8 C", 16, 16, 8, 1, macro16x16x8_c);
  expect_covers("ldmatrix", 8, 8, 2, 1, [](int l, int h) { return ldmatrix_element(false, l, h); });
  expect_covers("ldmatrix.trans", 8, 8, 2, 1, [](int l, int h) { return ldmatrix_element(true, l, h); });
  expect_covers("AccTile16816<2, 4>", 32, 32, 32, 1, [](int l, int i) { return acc_tile_16816(4, l, i); });
  expect_covers("AccTile884<2, 2>", 32, 32, 32, 1, [](int l, int i) { return acc_tile_884(2, l, i); });
}

// On sm_75 mma_16816 issues two m16n8k8: A registers {0, 1} with B register 0, then A
// registers {2, 3} with B register 1. That is the same product because the first half of
// the m16n8k16 fragments is the m16n8k8 fragment of k 0..7 and the second half that of k 8..15.
TEST(LayoutOracleSelf, Mma16816IsTwoMma1688) {
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(mma_m16n8k16_a(lane, i), mma_m16n8k8_a(lane, i));
      const Coord hi = mma_m16n8k8_a(lane, i);
      EXPECT_EQ(mma_m16n8k16_a(lane, 4 + i), (Coord{hi.row, hi.col + 8}));
    }
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(mma_m16n8k16_b(lane, i), mma_m16n8k8_b(lane, i));
      const Coord hi = mma_m16n8k8_b(lane, i);
      EXPECT_EQ(mma_m16n8k16_b(lane, 2 + i), (Coord{hi.row + 8, hi.col}));
    }
  }
}

// The quad pairs of a macro-MMA that share A rows (B columns) hold them in the same order:
// a loader that fills one of the copies wrongly changes that quad pair's block only.
TEST(LayoutOracleSelf, MacroQuadPairsShareOperands) {
  for (Major m : {Major::row, Major::col})
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < 8; ++e) {
        EXPECT_EQ(macro16x16x8_a(m, lane, e), macro16x16x8_a(m, lane ^ 8, e)) << "quad pairs q and q ^ 2 share A";
        EXPECT_EQ(macro16x16x8_b(m, lane, e), macro16x16x8_b(m, lane ^ 4, e)) << "quad pairs q and q ^ 1 share B";
      }
}

}  // namespace
