// The fragment loads of kernels/cuda against the layout oracle, on the emulator: every
// ldmatrix form (pf_ldmatrix.cuh: x1, x2, x4, each with and without .trans), and the
// fragment loads from swizzled shared tiles built on them and on 64/128-bit loads
// (load_frag_a / load_frag_b for mma.m16n8k16, load_frag_a884 / load_frag_b884 for the
// macro-MMAs, both storage layouts each). Every element in memory encodes its own
// (row, col); every lane's every loaded register half is compared with the oracle.
//
// Planted layout bugs that these checks must catch: layout_oracle.h (top), plant_layout_bugs.cmake.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "layout_oracle.h"
#include "layout_oracle_kernels.h"
#include "layout_oracle_tally.h"
#include "polyfuse_emu/emulator.h"

namespace {
using namespace pf_oracle;

std::string half_name(int h) { return h ? "high" : "low"; }
unsigned short half_of(unsigned reg, int h) { return static_cast<unsigned short>(h ? reg >> 16 : reg & 0xffffu); }

// ---- ldmatrix -----------------------------------------------------------------------------------
// The 8 rows of matrix m lie scattered over 40 shared rows; the oracle's address table says
// which lane points at which. Lanes that provide no address for this .num point at a poison
// row: an implementation that reads through them shows poison.
using LdmatrixKernel = void (*)(const unsigned short*, int, const int*, unsigned*);
struct LdmatrixCase {
  const char* name;
  LdmatrixKernel kernel;
  int num;
  bool trans;
};
constexpr int kSharedRows = 40, kPoisonRow = 39;
int placed_row(int matrix, int row) { return (8 * matrix + row) * 11 % 37; }  // injective on 0..31
unsigned short encode(int matrix, Coord c) { return static_cast<unsigned short>(0x1000 * (matrix + 1) + 0x10 * c.row + c.col); }
std::string decode(unsigned short v) {
  if ((v >> 12) == 0xf) return "the poison row (an address from a lane that provides none)";
  if ((v >> 12) < 1 || (v >> 12) > 4) return "garbage " + std::to_string(v);
  return "matrix " + std::to_string((v >> 12) - 1) + " " + to_string(Coord{(v >> 4) & 0xf, v & 0xf});
}

class LayoutOracleLdmatrix : public ::testing::TestWithParam<LdmatrixCase> {};
TEST_P(LayoutOracleLdmatrix, EveryLaneAndRegister) {
  const LdmatrixCase& p = GetParam();
  std::vector<unsigned short> rows(8 * kSharedRows, 0);
  std::vector<int> lane_row(32, kPoisonRow);
  for (int c = 0; c < 8; ++c) rows[8 * kPoisonRow + c] = static_cast<unsigned short>(0xf000 + c);
  for (int m = 0; m < p.num; ++m)
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) rows[8 * placed_row(m, r) + c] = encode(m, {r, c});
      lane_row[ldmatrix_address_lane(m, r)] = placed_row(m, r);
    }
  std::vector<unsigned> out(32 * p.num, 0);
  polyfuse::emu::ScopedBuffer b1(rows.data(), rows.size() * 2, "rows"), b2(lane_row.data(), lane_row.size() * 4, "lane_row"),
      b3(out.data(), out.size() * 4, "out");
  polyfuse::emu::launch(p.kernel, dim3(1), dim3(32), 16 * kSharedRows, rows.data(), kSharedRows, lane_row.data(), out.data());

  pfo_test::OracleTally tally(std::string("ldmatrix.") + p.name);
  for (int lane = 0; lane < 32; ++lane)
    for (int q = 0; q < p.num; ++q)
      for (int h = 0; h < 2; ++h) {
        const Coord want = ldmatrix_element(p.trans, lane, h);
        const unsigned short got = half_of(out[lane * p.num + q], h);
        tally.check(got == encode(q, want), [&] {
          return "lane " + std::to_string(lane) + " r" + std::to_string(q) + " " + half_name(h) + " half holds " +
                 decode(got) + ", oracle: matrix " + std::to_string(q) + " " + to_string(want);
        });
      }
  tally.expect_no_mismatch();
}
INSTANTIATE_TEST_SUITE_P(Forms, LayoutOracleLdmatrix,
                         ::testing::Values(LdmatrixCase{"x1", oracle_ldmatrix_x1, 1, false},
                                           LdmatrixCase{"x2", oracle_ldmatrix_x2, 2, false},
                                           LdmatrixCase{"x4", oracle_ldmatrix_x4, 4, false},
                                           LdmatrixCase{"x1_trans", oracle_ldmatrix_x1_trans, 1, true},
                                           LdmatrixCase{"x2_trans", oracle_ldmatrix_x2_trans, 2, true},
                                           LdmatrixCase{"x4_trans", oracle_ldmatrix_x4_trans, 4, true}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- fragment loads from swizzled tiles ---------------------------------------------------------
// A is 64 x 32 (m, k), B is 32 x 64 (k, n); element (r, c) encodes 1 + 64 r + c. Storage
// .row keeps the operand's own orientation ([m][k], [k][n]), .col transposes it.
using LoadKernel = void (*)(const unsigned short*, int, int, unsigned*);
struct LoadCase {
  const char* name;
  LoadKernel kernel;
  char operand;       // 'a' or 'b'
  bool macro;         // macro-MMA fragments (8 halves) instead of m16n8k16 ones
  Major layout;       // storage of the tile
  int fragments;      // MT or NT
  int offsets[3][2];  // (m0, k0) for A, (k0, n0) for B
};
unsigned short encode16(Coord c) { return static_cast<unsigned short>(1 + 64 * c.row + c.col); }
std::string decode16(unsigned short v, char operand) {
  if (v == 0 || v > 64 * 64) return "garbage " + std::to_string(v);
  return std::string(1, operand == 'a' ? 'A' : 'B') + to_string(Coord{(v - 1) / 64, (v - 1) % 64});
}

// The oracle: element e of fragment f of `lane`, for a load at offsets (r0, c0).
Coord loaded(const LoadCase& p, int lane, int f, int e, int r0, int c0) {
  if (p.operand == 'a') {
    const Coord c = p.macro ? macro16x16x8_a(p.layout, lane, e) : mma_m16n8k16_a(lane, e);
    return {r0 + 16 * f + c.row, c0 + c.col};
  }
  const Coord c = p.macro ? macro16x16x8_b(p.layout, lane, e) : mma_m16n8k16_b(lane, e);
  return {r0 + c.row, c0 + (p.macro ? 16 : 8) * f + c.col};
}

class LayoutOracleFragmentLoad : public ::testing::TestWithParam<LoadCase> {};
TEST_P(LayoutOracleFragmentLoad, EveryLaneAndRegister) {
  const LoadCase& p = GetParam();
  const int rows = p.operand == 'a' ? 64 : 32, cols = p.operand == 'a' ? 32 : 64;  // the operand
  const bool transposed = p.layout == Major::col;
  const int tile_cols = transposed ? rows : cols;
  std::vector<unsigned short> tile(static_cast<std::size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) tile[transposed ? c * tile_cols + r : r * tile_cols + c] = encode16({r, c});
  const int elements = p.operand == 'a' || p.macro ? 8 : 4, regs = elements / 2;
  pfo_test::OracleTally tally(std::string("load_frag_") + p.name);
  for (const auto& offset : p.offsets) {
    std::vector<unsigned> out(static_cast<std::size_t>(32) * p.fragments * regs, 0);
    polyfuse::emu::ScopedBuffer b1(tile.data(), tile.size() * 2, "tile"), b2(out.data(), out.size() * 4, "out");
    polyfuse::emu::launch(p.kernel, dim3(1), dim3(32), tile.size() * 2, tile.data(), offset[0], offset[1], out.data());
    for (int lane = 0; lane < 32; ++lane)
      for (int f = 0; f < p.fragments; ++f)
        for (int e = 0; e < elements; ++e) {
          const Coord want = loaded(p, lane, f, e, offset[0], offset[1]);
          const unsigned short got = half_of(out[(lane * p.fragments + f) * regs + e / 2], e % 2);
          tally.check(got == encode16(want), [&] {
            return "offsets (" + std::to_string(offset[0]) + ", " + std::to_string(offset[1]) + "): lane " +
                   std::to_string(lane) + " fragment " + std::to_string(f) + " " + p.operand + std::to_string(e) +
                   " (register " + std::to_string(e / 2) + ", " + half_name(e % 2) + " half) holds " +
                   decode16(got, p.operand) + ", oracle: " + decode16(encode16(want), p.operand);
          });
        }
  }
  tally.expect_no_mismatch();
}
INSTANTIATE_TEST_SUITE_P(
    Loads, LayoutOracleFragmentLoad,
    ::testing::Values(LoadCase{"a_row", oracle_load_frag_a_row, 'a', false, Major::row, 2, {{0, 0}, {8, 8}, {32, 16}}},
                      LoadCase{"a_col", oracle_load_frag_a_col, 'a', false, Major::col, 2, {{0, 0}, {8, 8}, {32, 16}}},
                      LoadCase{"b_col", oracle_load_frag_b_col, 'b', false, Major::col, 3, {{0, 0}, {8, 8}, {16, 40}}},
                      LoadCase{"b_row", oracle_load_frag_b_row, 'b', false, Major::row, 3, {{0, 0}, {8, 8}, {16, 40}}},
                      LoadCase{"a884_row", oracle_load_frag_a884_row, 'a', true, Major::row, 2, {{0, 0}, {8, 8}, {32, 24}}},
                      LoadCase{"a884_col", oracle_load_frag_a884_col, 'a', true, Major::col, 2, {{0, 0}, {8, 8}, {32, 24}}},
                      LoadCase{"b884_col", oracle_load_frag_b884_col, 'b', true, Major::col, 2, {{0, 0}, {8, 8}, {24, 32}}},
                      LoadCase{"b884_row", oracle_load_frag_b884_row, 'b', true, Major::row, 2, {{0, 0}, {8, 8}, {24, 32}}}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
