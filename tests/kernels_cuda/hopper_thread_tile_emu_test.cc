// thread_load_tile (kernels/cuda/pf_thread_tile_sm90.cuh) on the emulator: the block's threads
// write the canonical tile that TMA boxes would write — the same bytes in every swizzle mode, one
// and two atom columns, zeros outside the matrix — for row lengths TMA cannot address (odd, 2
// and 4 modulo 8 elements) loaded in groups of V = 1, 2, 4 elements, and for 16-byte rows in
// groups of 8, where it is also compared with a real TMA load of the same box.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "hopper_kernels.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map.h"
#include "test_util.h"

namespace {
using polyfuse::emu::ScopedBuffer;
namespace tma = polyfuse::tma;

unsigned swizzled(int mode, unsigned offset) { return offset ^ (((offset >> 7) & ((1u << mode) - 1u)) << 4); }

struct Case {
  int v;              // elements per load
  int inner, outer;   // the matrix: outer rows of inner elements
  int mode;           // swizzle 0..3
  int rows, atoms;    // the tile
  int inner0, outer0; // its origin
  std::string text() const {
    return "V=" + std::to_string(v) + " matrix " + std::to_string(outer) + " x " + std::to_string(inner) + " swizzle " +
           std::to_string(mode) + " tile " + std::to_string(atoms) + " x {" + std::to_string((16 << mode) / 2) + ", " +
           std::to_string(rows) + "} at (" + std::to_string(inner0) + ", " + std::to_string(outer0) + ")";
  }
};

// The tile run_thread_load_tile wrote for `c`, checked element by element against the matrix
// (registered with the emulator by the caller).
std::vector<unsigned char> load_and_check(const Case& c, const std::vector<unsigned short>& m) {
  const int w = 16 << c.mode, bytes = c.atoms * c.rows * w;
  std::vector<unsigned char> out(static_cast<std::size_t>(bytes), 0xab);
  ScopedBuffer bo(out.data(), out.size(), "tile");
  pfh_test::run_thread_load_tile(c.v, m.data(), c.inner, c.outer, c.inner0, c.outer0, c.rows, c.atoms, c.mode,
                                 out.data(), 96);
  int bad = 0;
  for (int j = 0; j < c.atoms; ++j)
    for (int y = 0; y < c.rows; ++y)
      for (int x = 0; x < w / 2; ++x) {
        const long long gx = c.inner0 + j * (w / 2) + x, gy = c.outer0 + y;
        const bool inside = gx >= 0 && gx < c.inner && gy >= 0 && gy < c.outer;
        const unsigned short want = inside ? m[static_cast<std::size_t>(gy * c.inner + gx)] : 0;
        const unsigned at = swizzled(c.mode, static_cast<unsigned>((j * c.rows + y) * w + x * 2));
        unsigned short got;
        std::memcpy(&got, out.data() + at, 2);
        if (got != want && bad++ < 3)
          ADD_FAILURE() << c.text() << ": element (" << gx << ", " << gy << ") is 0x" << std::hex << got
                        << ", expected 0x" << want << std::dec << " at tile byte " << at;
      }
  EXPECT_EQ(bad, 0) << c.text();
  return out;
}

TEST(HopperThreadTileEmu, WritesTmaTilesForRowsTmaCannotAddress) {
  for (auto [v, inner] : {std::pair{1, 257}, std::pair{1, 13}, std::pair{2, 130}, std::pair{4, 132}, std::pair{4, 4}}) {
    const int outer = 45;
    const std::vector<unsigned short> m = pft_test::random_bits(static_cast<std::size_t>(inner) * outer, false, 3 + v);
    ScopedBuffer bm(m.data(), m.size() * 2, "matrix");
    for (int mode = 0; mode < 4; ++mode)
      for (int atoms : {1, 2})
        for (auto [i0, o0] : {std::pair{0, 0}, std::pair{64, 16}, std::pair{inner - 5 - (inner - 5) % 8, outer - 7},
                              std::pair{-8, -3}, std::pair{inner + 8, 0}})
          load_and_check(Case{v, inner, outer, mode, 24, atoms, i0, o0}, m);
  }
}

// Through a prologue (x + 1, f16): every element inside the matrix transformed, the outside
// still zero (not prologue(0) = 1).
TEST(HopperThreadTileEmu, PrologueTransformsOnlyTheElementsInsideTheMatrix) {
  const int inner = 130, outer = 45;
  std::vector<unsigned short> m(static_cast<std::size_t>(inner) * outer);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = pft_test::from_f(static_cast<float>(i % 7) * 0.25f, false);
  ScopedBuffer bm(m.data(), m.size() * 2, "matrix");
  for (auto [i0, o0] : {std::pair{0, 0}, std::pair{128, 40}, std::pair{-8, -3}}) {
    std::vector<unsigned char> out(2 * 24 * 128, 0xab);
    ScopedBuffer bo(out.data(), out.size(), "tile");
    pfh_test::run_thread_load_tile(-2, m.data(), inner, outer, i0, o0, 24, 2, 3, out.data(), 96);
    int bad = 0;
    for (int j = 0; j < 2; ++j)
      for (int y = 0; y < 24; ++y)
        for (int x = 0; x < 64; ++x) {
          const long long gx = i0 + j * 64 + x, gy = o0 + y;
          const bool inside = gx >= 0 && gx < inner && gy >= 0 && gy < outer;
          const unsigned short want =
              inside ? pft_test::from_f(static_cast<float>((gy * inner + gx) % 7) * 0.25f + 1.f, false) : 0;
          unsigned short got;
          std::memcpy(&got, out.data() + swizzled(3, static_cast<unsigned>((j * 24 + y) * 128 + x * 2)), 2);
          if (got != want && bad++ < 3)
            ADD_FAILURE() << "(" << gx << ", " << gy << "): 0x" << std::hex << got << ", expected 0x" << want;
        }
    EXPECT_EQ(bad, 0) << "tile at (" << i0 << ", " << o0 << ")";
  }
}

// With 16-byte rows (V = 8) the tile equals what a TMA load of the same box writes.
TEST(HopperThreadTileEmu, EqualsTheTmaLoadOfTheSameBox) {
  const int inner = 72, outer = 37;
  std::vector<unsigned short> m = pft_test::random_bits(static_cast<std::size_t>(inner) * outer, false, 11);
  ScopedBuffer bm(m.data(), m.size() * 2, "matrix");
  for (int mode = 0; mode < 4; ++mode)
    for (auto [i0, o0] : {std::pair{0, 0}, std::pair{64, 30}, std::pair{-8, -2}}) {
      const Case c{8, inner, outer, mode, 16, 1, i0, o0};
      const std::vector<unsigned char> threads = load_and_check(c, m);
      const int box_inner = (16 << mode) / 2, box_bytes = box_inner * c.rows * 2;
      const tma::TensorMapBytes map = tma::encode_tiled(
          tma::tiled_2d(tma::DataType::float16, m.data(), inner, outer, inner * 2, static_cast<std::uint32_t>(box_inner),
                        static_cast<std::uint32_t>(c.rows), static_cast<tma::Swizzle>(mode)),
          tma::Target::emulator);
      std::vector<unsigned char> by_tma(static_cast<std::size_t>(box_bytes), 0xcd);
      ScopedBuffer bt(by_tma.data(), by_tma.size(), "box");
      const int at[3] = {i0, o0, 0};
      pfh_test::run_tma_load(map, 2, at, by_tma.data(), box_bytes, 128);
      EXPECT_EQ(threads, by_tma) << c.text();
    }
}

}  // namespace
