// The accumulator tiles of kernels/cuda against the layout oracle, on the emulator: where
// AccTile16816<2, 4> and AccTile884<2, 2> say each value lies (coord), where the accumulator
// store (pf_accumulator_store.cuh) puts each lane's each value in the output — for f32, f16
// and bf16 outputs and every store width — where pf::store_frags_to_tile (pf_resident_tile.cuh)
// puts each value in a swizzled shared tile, and what the epilogue operand loads
// (pf_pointwise.cuh: load_matrix, load_broadcast_rows / _cols) put in each register.
//
// Planted layout bugs that these checks must catch: layout_oracle.h (top), plant_layout_bugs.cmake.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "layout_oracle.h"
#include "layout_oracle_kernels.h"
#include "layout_oracle_tally.h"
#include "polyfuse_emu/emulator.h"

namespace {
using namespace pf_oracle;

constexpr int kCount = 32;  // values per lane of both tiles (32 x 32)
Coord oracle(bool macro, int lane, int idx) { return macro ? acc_tile_884(2, lane, idx) : acc_tile_16816(4, lane, idx); }
const char* tile_name(bool macro) { return macro ? "AccTile884<2, 2>" : "AccTile16816<2, 4>"; }
std::string value_name(int lane, int idx) { return "lane " + std::to_string(lane) + " v[" + std::to_string(idx) + "]"; }

TEST(LayoutOracleAccTile, Coord) {
  for (bool macro : {false, true}) {
    std::vector<int> out(32 * kCount * 2, -1);
    polyfuse::emu::ScopedBuffer b(out.data(), out.size() * 4, "out");
    polyfuse::emu::launch(macro ? oracle_coord_884 : oracle_coord_16816, dim3(1), dim3(32), 0, out.data());
    pfo_test::OracleTally tally(std::string(tile_name(macro)) + "::coord");
    for (int lane = 0; lane < 32; ++lane)
      for (int idx = 0; idx < kCount; ++idx) {
        const Coord got{out[(lane * kCount + idx) * 2], out[(lane * kCount + idx) * 2 + 1]};
        tally.check(got == oracle(macro, lane, idx), [&] {
          return value_name(lane, idx) + " is at " + to_string(got) + ", oracle: " + to_string(oracle(macro, lane, idx));
        });
      }
    tally.expect_no_mismatch();
  }
}

// ---- store_frags_to_tile -----------------------------------------------------------------------
// Each value is its oracle position (row * 32 + col + 1, exact in f16); the tile read back through
// the swizzle must hold it at (row, col0 + col), zeros from cols_valid on, and the fill (-7) left of
// col0; the stores are free of bank conflicts (32 and 64 columns: 4 and 8 chunks a row).
struct ResidentCase {
  int cols;
  void (*kernel)(const float*, float*, int, int);
  int col0, cols_valid;
};

TEST(LayoutOracleResidentTile, StoreFragsToTile) {
  for (const ResidentCase& c : {ResidentCase{32, oracle_resident_tile_32, 0, 27}, ResidentCase{64, oracle_resident_tile_64, 32, 60}}) {
    std::vector<float> values(32 * kCount), out(32 * c.cols, 0.f);
    for (int lane = 0; lane < 32; ++lane)
      for (int idx = 0; idx < kCount; ++idx) {
        const Coord at = oracle(false, lane, idx);
        values[lane * kCount + idx] = static_cast<float>(at.row * 32 + at.col + 1);
      }
    polyfuse::emu::ScopedBuffer bv(values.data(), values.size() * 4, "values");
    polyfuse::emu::ScopedBuffer bo(out.data(), out.size() * 4, "out");
    const polyfuse::emu::Stats stats =
        polyfuse::emu::launch(c.kernel, dim3(1), dim3(32), 32 * c.cols * 2, values.data(), out.data(), c.col0, c.cols_valid);
    EXPECT_EQ(stats.shared_bank_conflicts, 0u) << c.cols << " columns";
    pfo_test::OracleTally tally("store_frags_to_tile<__half, xor16, " + std::to_string(c.cols) + ">");
    for (int r = 0; r < 32; ++r)
      for (int col = 0; col < c.cols; ++col) {
        const float want = col < c.col0 ? -7.f : col >= c.cols_valid ? 0.f : static_cast<float>(r * 32 + col - c.col0 + 1);
        const float got = out[r * c.cols + col];
        tally.check(got == want, [&] {
          return std::string("(").append(std::to_string(r)) + ", " + std::to_string(col) + ") holds " + std::to_string(got) + ", oracle: " +
                 std::to_string(want);
        });
      }
    tally.expect_no_mismatch();
  }
}

// ---- store_accumulators ------------------------------------------------------------------------
// Two launches: every value is lane + 1, then idx + 1 (small integers, exact in bf16), so each
// output element names the (lane, idx) that landed there. Rows are 40 wide: the 8 columns
// beyond the tile must keep their sentinel.
template <class OutT> using StoreKernel = void (*)(OutT*, int, int);
constexpr int kLdo = 40;
constexpr float kSentinel = -7.f;

template <class OutT> void check_store(const std::string& subject, StoreKernel<OutT> kernel, bool macro) {
  std::vector<std::pair<int, int>> landed(32 * kLdo, {-1, -1});
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<OutT> out(32 * kLdo, OutT(kSentinel));
    polyfuse::emu::ScopedBuffer b(out.data(), out.size() * sizeof(OutT), "out");
    polyfuse::emu::launch(kernel, dim3(1), dim3(32), 1024, out.data(), kLdo, pass);
    for (int i = 0; i < 32 * kLdo; ++i) {
      const int v = static_cast<int>(static_cast<float>(out[i]));
      (pass == 0 ? landed[i].first : landed[i].second) = v - 1;
    }
  }
  pfo_test::OracleTally tally(subject + " " + tile_name(macro));
  for (int lane = 0; lane < 32; ++lane)
    for (int idx = 0; idx < kCount; ++idx) {
      const Coord want = oracle(macro, lane, idx);
      const auto got = landed[want.row * kLdo + want.col];
      tally.check(got == std::make_pair(lane, idx), [&] {
        return value_name(lane, idx) + " belongs at " + to_string(want) + " (oracle), which holds " +
               (got.first < 0 ? std::string("nothing") : value_name(got.first, got.second));
      });
    }
  for (int r = 0; r < 32; ++r)
    for (int c = 32; c < kLdo; ++c)
      tally.check(landed[r * kLdo + c].first == static_cast<int>(kSentinel) - 1,
                  [&] { return "written outside the tile at " + to_string(Coord{r, c}); });
  tally.expect_no_mismatch();
}

#define PFO_STORE_TEST(NAME, OUT_T, KERNEL, MACRO)                                                          \
  TEST(LayoutOracleAccumulatorStore, NAME) {                                                              \
    check_store<OUT_T>("store_accumulators<" #OUT_T ", b128>", KERNEL##_b128, MACRO);                      \
    check_store<OUT_T>("store_accumulators<" #OUT_T ", b64>", KERNEL##_b64, MACRO);                        \
    check_store<OUT_T>("store_accumulators<" #OUT_T ", b32>", KERNEL##_b32, MACRO);                        \
    check_store<OUT_T>("store_accumulators<" #OUT_T ", b16>", KERNEL##_b16, MACRO);                        \
  }
PFO_STORE_TEST(F32From16816, float, oracle_acc_store_f32_16816, false)
PFO_STORE_TEST(F16From16816, __half, oracle_acc_store_f16_16816, false)
PFO_STORE_TEST(Bf16From16816, __nv_bfloat16, oracle_acc_store_bf16_16816, false)
PFO_STORE_TEST(F32FromMacro884, float, oracle_acc_store_f32_884, true)
PFO_STORE_TEST(F16FromMacro884, __half, oracle_acc_store_f16_884, true)
PFO_STORE_TEST(Bf16FromMacro884, __nv_bfloat16, oracle_acc_store_bf16_884, true)
#undef PFO_STORE_TEST

// ---- epilogue operand loads --------------------------------------------------------------------
// mat(r, c) = 1 + 32 r + c, vec[i] = 1 + i: lane's v[idx] must be mat at its oracle
// coordinate (load_matrix), vec[row] (load_broadcast_rows) or vec[col] (load_broadcast_cols).
using OperandKernel = void (*)(const float*, const float*, float*, int);
void check_operand_loads(const std::string& subject, OperandKernel kernel, bool macro) {
  std::vector<float> mat(32 * 32), vec(32);
  for (int i = 0; i < 32 * 32; ++i) mat[i] = static_cast<float>(1 + i);
  for (int i = 0; i < 32; ++i) vec[i] = static_cast<float>(1 + i);
  const char* modes[] = {"load_matrix", "load_broadcast_rows", "load_broadcast_cols"};
  for (int mode = 0; mode < 3; ++mode) {
    std::vector<float> out(32 * kCount, 0.f);
    polyfuse::emu::ScopedBuffer b1(mat.data(), mat.size() * 4, "mat"), b2(vec.data(), vec.size() * 4, "vec"),
        b3(out.data(), out.size() * 4, "out");
    polyfuse::emu::launch(kernel, dim3(1), dim3(32), 0, mat.data(), vec.data(), out.data(), mode);
    pfo_test::OracleTally tally(std::string(modes[mode]) + subject + " " + tile_name(macro));
    for (int lane = 0; lane < 32; ++lane)
      for (int idx = 0; idx < kCount; ++idx) {
        const Coord c = oracle(macro, lane, idx);
        const float want = static_cast<float>(mode == 0 ? 1 + 32 * c.row + c.col : 1 + (mode == 1 ? c.row : c.col));
        const float got = out[lane * kCount + idx];
        tally.check(got == want, [&] {
          return value_name(lane, idx) + " is " + to_string(c) + " per the oracle and got " + std::to_string(got) +
                 ", expected " + std::to_string(want);
        });
      }
    tally.expect_no_mismatch();
  }
}
TEST(LayoutOracleOperandLoad, Tile16816) {
  check_operand_loads("", oracle_operand_load_16816, false);
  check_operand_loads(" (pairs)", oracle_operand_load_16816_pairs, false);
}
TEST(LayoutOracleOperandLoad, TileMacro884) {
  check_operand_loads("", oracle_operand_load_884, true);
  check_operand_loads(" (pairs)", oracle_operand_load_884_pairs, true);
}

}  // namespace
