// The TMA wrappers of kernels/cuda (pf_tma, with pf_mbarrier) on the emulator, against a
// scalar reference of the box layout (the driver's: dimension 0 contiguous, rows one after
// another, 16-byte chunks placed by the swizzle, CUtensorMapSwizzle / PTX ISA 9.7.9.27 and the
// "swizzle modes" of the CUDA programming guide's TMA section):
//   * hopper_tma_load_2d / _3d: boxes inside the tensor, across every edge, at negative
//     coordinates and entirely outside it (zero-filled), every swizzle mode;
//   * hopper_tma_store_2d: boxes inside and across the far edges (elements outside not
//     written); a box starting before the tensor is reported (an illegal instruction on an H200);
//   * the TMA counters (boxes and bytes);
//   * an innermost coordinate off a 16-byte boundary, reported (an illegal instruction on an
//     H200: the boxes above start at multiples of 8 f16 elements along dimension 0).
#include <gtest/gtest.h>

#include <array>
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

// The position of logical byte offset `offset` of a box under swizzle mode `mode` (0..3): the
// 16-byte chunk index (bits 4..6) XOR the 128-byte line index inside the 2^mode-line pattern.
unsigned swizzled(int mode, unsigned offset) { return offset ^ (((offset >> 7) & ((1u << mode) - 1u)) << 4); }

const char* const kModes[4] = {"none", "32B", "64B", "128B"};

// A tensor of 16-bit elements, dims[0] contiguous, rows of `pitch` elements.
struct Tensor {
  int dims[3];
  int pitch;  // elements between rows of dimension 1
  int plane;  // elements between planes of dimension 2
  std::vector<unsigned short> data;
  Tensor(int d0, int d1, int d2, int pitch_, int plane_) : dims{d0, d1, d2}, pitch(pitch_), plane(plane_) {
    data = pft_test::random_bits(static_cast<std::size_t>(plane) * d2, false, 5);
  }
  bool inside(long long x, long long y, long long z) const {
    return x >= 0 && x < dims[0] && y >= 0 && y < dims[1] && z >= 0 && z < dims[2];
  }
  unsigned short at(long long x, long long y, long long z) const {
    return data[static_cast<std::size_t>(z * plane + y * pitch + x)];
  }
};

struct LoadCase {
  int rank;
  int mode;
  int box[3];
  int c[3];
};

std::string text(const LoadCase& c) {
  std::string s = std::to_string(c.rank) + "d " + kModes[c.mode] + " box {" + std::to_string(c.box[0]) + ", " +
                  std::to_string(c.box[1]) + (c.rank == 3 ? ", " + std::to_string(c.box[2]) : "") + "} at (" +
                  std::to_string(c.c[0]) + ", " + std::to_string(c.c[1]) +
                  (c.rank == 3 ? ", " + std::to_string(c.c[2]) : "") + ")";
  return s;
}

tma::TiledMapRequest request(const Tensor& t, int rank, int mode, const int (&box)[3]) {
  tma::TiledMapRequest r = tma::tiled_2d(tma::DataType::float16, t.data.data(), t.dims[0], t.dims[1],
                                         static_cast<std::uint64_t>(t.pitch) * 2, box[0], box[1],
                                         static_cast<tma::Swizzle>(mode));
  if (rank == 3) {
    r.rank = 3;
    r.global_dim[2] = static_cast<std::uint64_t>(t.dims[2]);
    r.global_strides[1] = static_cast<std::uint64_t>(t.plane) * 2;
    r.box_dim[2] = static_cast<std::uint32_t>(box[2]);
  }
  return r;
}

TEST(HopperTmaEmu, LoadsBoxesInEverySwizzleWithZeroFillOutside) {
  Tensor t(72, 37, 5, 80, 80 * 40);  // pitch 160 bytes; planes 6400 bytes apart
  ScopedBuffer bt(t.data.data(), t.data.size() * 2, "tensor");
  std::vector<LoadCase> cases;
  for (int mode = 0; mode < 4; ++mode) {
    const int inner = mode == 0 ? 24 : (16 << mode) / 2;  // swizzled: one span per row
    for (int rank : {2, 3}) {
      const int box[3] = {inner, 16, rank == 3 ? 3 : 1};
      for (const auto& c : std::vector<std::array<int, 3>>{{0, 0, 0},       {8, 5, 1},        {72 - 8, 37 - 3, 4},
                                                           {-8, -2, -1},    {72 + 8, 0, 0},   {0, -16, 0},
                                                           {64, 30, 3},     {-inner + 8, 36, 2}})
        cases.push_back(LoadCase{rank, mode, {box[0], box[1], box[2]}, {c[0], c[1], rank == 3 ? c[2] : 0}});
    }
  }
  for (const LoadCase& c : cases) {
    const int box_bytes = c.box[0] * c.box[1] * c.box[2] * 2;
    const tma::TensorMapBytes map = tma::encode_tiled(request(t, c.rank, c.mode, c.box), tma::Target::emulator);
    std::vector<unsigned char> out(static_cast<std::size_t>(box_bytes), 0xab);
    ScopedBuffer bo(out.data(), out.size(), "out");
    const polyfuse::emu::Stats s = pfh_test::run_tma_load(map, c.rank, c.c, out.data(), box_bytes, 64);
    int bad = 0;
    for (int z = 0; z < c.box[2]; ++z)
      for (int y = 0; y < c.box[1]; ++y)
        for (int x = 0; x < c.box[0]; ++x) {
          const long long gx = c.c[0] + x, gy = c.c[1] + y, gz = c.c[2] + z;
          const unsigned short want = t.inside(gx, gy, gz) ? t.at(gx, gy, gz) : 0;
          const unsigned logical = static_cast<unsigned>(((z * c.box[1] + y) * c.box[0] + x) * 2);
          unsigned short got;
          std::memcpy(&got, out.data() + swizzled(c.mode, logical), 2);
          if (got != want && bad++ < 3)
            ADD_FAILURE() << text(c) << ": element (" << gx << ", " << gy << ", " << gz << ") of the box is 0x"
                          << std::hex << got << ", expected 0x" << want << std::dec << " at box byte "
                          << swizzled(c.mode, logical);
        }
    EXPECT_EQ(bad, 0) << text(c);
    EXPECT_EQ(s.tma_loads, 1u) << text(c);
    EXPECT_EQ(s.tma_bytes, static_cast<std::uint64_t>(box_bytes)) << text(c);
  }
}

TEST(HopperTmaEmu, StoresBoxesAndLeavesTheOutsideAlone) {
  constexpr unsigned short kUntouched = 0x7777;
  for (int mode = 0; mode < 4; ++mode) {
    const int inner = mode == 0 ? 16 : (16 << mode) / 2, outer = 8, box_bytes = inner * outer * 2;
    for (const auto& [c0, c1] : std::vector<std::pair<int, int>>{{0, 0}, {8, 3}, {40 - 8, 20 - 2}, {16, 19}, {24, 15}}) {
      std::vector<unsigned short> d(static_cast<std::size_t>(48) * 20, kUntouched);  // 40 x 20, pitch 48
      const auto in = pft_test::random_bits(static_cast<std::size_t>(inner) * outer, false, 9 + mode);
      ScopedBuffer bd(d.data(), d.size() * 2, "D"), bi(in.data(), in.size() * 2, "box");
      const tma::TensorMapBytes map =
          tma::encode_tiled(tma::tiled_2d(tma::DataType::float16, d.data(), 40, 20, 48 * 2, static_cast<std::uint32_t>(inner),
                                          outer, static_cast<tma::Swizzle>(mode)),
                            tma::Target::emulator);
      const polyfuse::emu::Stats s =
          pfh_test::run_tma_store_2d(map, c0, c1, reinterpret_cast<const unsigned char*>(in.data()), box_bytes);
      const std::string what = std::string(kModes[mode]) + " box {" + std::to_string(inner) + ", " +
                               std::to_string(outer) + "} stored at (" + std::to_string(c0) + ", " + std::to_string(c1) + ")";
      int bad = 0;
      for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 48; ++x) {
          const int bx = x - c0, by = y - c1;
          unsigned short want = kUntouched;
          if (x < 40 && bx >= 0 && bx < inner && by >= 0 && by < outer) {
            const unsigned physical = swizzled(mode, static_cast<unsigned>((by * inner + bx) * 2));
            want = in[physical / 2];
          }
          const unsigned short got = d[static_cast<std::size_t>(y) * 48 + x];
          if (got != want && bad++ < 3)
            ADD_FAILURE() << what << ": D(" << x << ", " << y << ") = 0x" << std::hex << got << ", expected 0x" << want;
        }
      EXPECT_EQ(bad, 0) << what;
      EXPECT_EQ(s.tma_stores, 1u) << what;
    }
  }
}

// Seen on an H200 (2026-11-30): every tiled copy whose innermost coordinate is not a multiple of
// 16 bytes stops with "an illegal instruction was encountered", whatever the swizzle, and so
// does a store at a negative innermost coordinate.
TEST(HopperTmaEmu, CoordinatesAHopperGpuStopsAreReported) {
  Tensor t(72, 37, 1, 80, 80 * 40);
  ScopedBuffer bt(t.data.data(), t.data.size() * 2, "tensor");
  const int box[3] = {24, 16, 1};
  const tma::TensorMapBytes map = tma::encode_tiled(request(t, 2, 0, box), tma::Target::emulator);
  for (const auto& [c0, c1] : std::vector<std::pair<int, int>>{{67, 34}, {4, 0}, {-3, 0}}) {
    std::vector<unsigned char> out(24 * 16 * 2);
    ScopedBuffer bo(out.data(), out.size(), "out");
    const int c[3] = {c0, c1, 0};
    std::string message;
    try {
      pfh_test::run_tma_load(map, 2, c, out.data(), static_cast<int>(out.size()), 64);
    } catch (const polyfuse::emu::EmulationError& e) {
      message = e.what();
    }
    const std::string coordinate = "the innermost coordinate " + std::to_string(c0) + " is " + std::to_string(2 * c0) + " bytes";
    EXPECT_NE(message.find("TMA load (cp.async.bulk.tensor) at (" + std::to_string(c0) + ", " + std::to_string(c1) + ")"),
              std::string::npos) << message;
    EXPECT_NE(message.find(coordinate), std::string::npos) << message;
    EXPECT_NE(message.find("not a multiple of 16"), std::string::npos) << message;
  }
  std::vector<unsigned short> d(static_cast<std::size_t>(48) * 20), in(16 * 8);
  ScopedBuffer bd(d.data(), d.size() * 2, "D"), bi(in.data(), in.size() * 2, "box");
  const tma::TensorMapBytes store_map = tma::encode_tiled(
      tma::tiled_2d(tma::DataType::float16, d.data(), 40, 20, 48 * 2, 16, 8, tma::Swizzle::none), tma::Target::emulator);
  std::string message;
  try {
    pfh_test::run_tma_store_2d(store_map, 35, 18, reinterpret_cast<const unsigned char*>(in.data()), 16 * 8 * 2);
  } catch (const polyfuse::emu::EmulationError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("TMA store (cp.async.bulk.tensor) at (35, 18)"), std::string::npos) << message;
  EXPECT_NE(message.find("the innermost coordinate 35 is 70 bytes"), std::string::npos) << message;
  message.clear();
  try {  // aligned, but before the tensor: loads there zero-fill, stores stop
    pfh_test::run_tma_store_2d(store_map, -8, 0, reinterpret_cast<const unsigned char*>(in.data()), 16 * 8 * 2);
  } catch (const polyfuse::emu::EmulationError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("TMA store (cp.async.bulk.tensor) at (-8, 0)"), std::string::npos) << message;
  EXPECT_NE(message.find("coordinate 0 is negative"), std::string::npos) << message;
}

}  // namespace
