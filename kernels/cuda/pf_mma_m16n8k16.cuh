// polyfuse device helpers, instruction + warp-tile layer for sm_80+:
//   mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
// and warp tiles of (16*MT) x (8*NT) x 16 built from it.
//
// Fragment layouts follow PTX ISA 9.7.15.5.8 "Matrix Fragments for mma.m16n8k16 with
// floating point type" (groupID = lane >> 2, tig = lane % 4):
//   A (16x16, FragA16x16, a0..a7 in 4 registers):
//       row = groupID + 8*[i in {2,3,6,7}],  col = 2*tig + (i & 1) + 8*[i >= 4]
//   B (16x8, FragB16x8, b0..b3 in 2 registers):
//       row = 2*tig + (i & 1) + 8*[i >= 2],  col = groupID
//   C/D (16x8 f32, c0..c3):
//       row = groupID + 8*[i >= 2],          col = 2*tig + (i & 1)
// The instruction is defined only for .row A and .col B; the storage layout of A and B in
// shared memory is handled by the fragment loads (pf_ldmatrix.cuh), which is where the
// four row/column combinations differ. On sm_75 the f16 form is two m16n8k8.
#pragma once

#include "pf_base.cuh"

namespace pf {

struct FragA16x16 {
  unsigned x[4];
};
struct FragB16x8 {
  unsigned x[2];
};

// Accumulator tile of one warp: MT x NT fragments of 16x8 f32, (16*MT) x (8*NT) values.
// Fragment (i, j) covers rows 16i.., columns 8j..; its c0..c3 are v[(i*NT + j)*4 + 0..3].
template <int MT, int NT> struct AccTile16816 {
  static constexpr int rows = 16 * MT;
  static constexpr int cols = 8 * NT;
  static constexpr int count = MT * NT * 4;
  // 16x16 pieces used by the accumulator store (two neighbouring fragments each).
  static constexpr int pieces_m = MT;
  static constexpr int pieces_n = NT / 2;
  float v[count];

  PF_DEVICE float* frag(int i, int j) { return v + (i * NT + j) * 4; }
  PF_DEVICE const float* frag(int i, int j) const { return v + (i * NT + j) * 4; }
  // Row and column inside the tile of element v[idx] held by `lane`.
  PF_DEVICE static void coord(unsigned lane, int idx, int& row, int& col) {
    const int f = idx >> 2, e = idx & 3;
    row = 16 * (f / NT) + static_cast<int>(lane >> 2) + 8 * (e >> 1);
    col = 8 * (f % NT) + 2 * static_cast<int>(lane & 3) + (e & 1);
  }
  // Index into v of element e (0..7) of 16x16 piece (pm, pn); e and e+1 (e even) are
  // horizontally adjacent.
  PF_DEVICE static int piece_index(int pm, int pn, int e) {
    return (pm * NT + 2 * pn + (e >> 2)) * 4 + (e & 3);
  }
};

#if PF_HOST_PATH
namespace detail {
// Element (row, k) of A / (k, col) of B from the 32 lanes' registers (PTX ISA 9.7.15.5.8).
template <class T> inline float frag_a_element(const unsigned* lanes_a, int stride, int row, int k) {
  const int lane = (row & 7) * 4 + ((k & 7) >> 1);
  const int reg = (row >> 3) + 2 * (k >> 3);
  return unpack<T>(lanes_a[lane * stride + reg], k & 1);
}
template <class T> inline float frag_b_element(const unsigned* lanes_b, int stride, int k, int col) {
  const int lane = col * 4 + ((k & 7) >> 1);
  const int reg = k >> 3;
  return unpack<T>(lanes_b[lane * stride + reg], k & 1);
}
}  // namespace detail
#endif

// Warp tile MMA: acc[i][j] += A_i * B_j for every i < MT, j < NT (one warp-wide call).
// T is __half or __nv_bfloat16. The emulator needs one rendezvous for the whole tile.
template <class T, int MT, int NT>
PF_DEVICE void mma_16816(AccTile16816<MT, NT>& acc, const FragA16x16 (&a)[MT], const FragB16x8 (&b)[NT]) {
#if PF_DEVICE_PATH
PF_UNROLL
  for (int i = 0; i < MT; ++i) {
PF_UNROLL
    for (int j = 0; j < NT; ++j) {
      float* c = acc.frag(i, j);
#if __CUDA_ARCH__ >= 800
      if constexpr (IsSame<T, __nv_bfloat16>::value) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[i].x[0]), "r"(a[i].x[1]), "r"(a[i].x[2]), "r"(a[i].x[3]), "r"(b[j].x[0]), "r"(b[j].x[1]));
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[i].x[0]), "r"(a[i].x[1]), "r"(a[i].x[2]), "r"(a[i].x[3]), "r"(b[j].x[0]), "r"(b[j].x[1]));
      }
#else
      if constexpr (IsSame<T, __nv_bfloat16>::value) {
        asm volatile("trap;");  // bf16 mma needs sm_80
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[i].x[0]), "r"(a[i].x[1]), "r"(b[j].x[0]));
        asm volatile(
            "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[i].x[2]), "r"(a[i].x[3]), "r"(b[j].x[1]));
      }
#endif
    }
  }
#elif PF_HOST_PATH
  // One rendezvous: every lane deposits its A and B registers, then computes its own
  // accumulator elements from the gathered fragments.
  constexpr int stride = MT * 4 + NT * 2;
  unsigned mine[stride];
  for (int i = 0; i < MT; ++i)
    for (int r = 0; r < 4; ++r) mine[i * 4 + r] = a[i].x[r];
  for (int j = 0; j < NT; ++j)
    for (int r = 0; r < 2; ++r) mine[MT * 4 + j * 2 + r] = b[j].x[r];
  const unsigned* all = static_cast<const unsigned*>(
      ::pf_host::warp_exchange("mma.m16n8k16", mine, sizeof mine));
  const int lane = static_cast<int>(::pf_host::lane_id());
  const int g = lane >> 2, t = lane & 3;
  float arow[MT][2][16], bcol[NT][2][16];
  for (int i = 0; i < MT; ++i)
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < 16; ++k)
        arow[i][h][k] = detail::frag_a_element<T>(all + i * 4, stride, g + 8 * h, k);
  for (int j = 0; j < NT; ++j)
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < 16; ++k)
        bcol[j][h][k] = detail::frag_b_element<T>(all + MT * 4 + j * 2, stride, k, 2 * t + h);
  for (int i = 0; i < MT; ++i)
    for (int j = 0; j < NT; ++j) {
      float* c = acc.frag(i, j);
      for (int e = 0; e < 4; ++e) {
        float sum = c[e];
        const float* ar = arow[i][e >> 1];
        const float* bc = bcol[j][e & 1];
        for (int k = 0; k < 16; ++k) sum += ar[k] * bc[k];
        c[e] = sum;
      }
    }
#endif
}

// One macro-MMA of a contracted schedule (paper §IV-D): fragment (i, j) of the warp's
// accumulator tile += a * b, one mma.m16n8k16. Generated kernels call it once per
// statement instance inside fully unrolled loops, so `i` and `j` are constants.
template <class T, int MT, int NT>
PF_DEVICE void mma_fragment(AccTile16816<MT, NT>& acc, int i, int j, const FragA16x16& a, const FragB16x8& b) {
  AccTile16816<1, 1> one;
  float* c = acc.frag(i, j);
  for (int e = 0; e < 4; ++e) one.v[e] = c[e];
  const FragA16x16 as[1] = {a};
  const FragB16x8 bs[1] = {b};
  mma_16816<T, 1, 1>(one, as, bs);
  for (int e = 0; e < 4; ++e) c[e] = one.v[e];
}

// A single mma.m16n8k16: d = a * b + c on one 16x8 fragment.
template <class T>
PF_DEVICE void mma_m16n8k16(float (&d)[4], const FragA16x16& a, const FragB16x8& b, const float (&c)[4]) {
  AccTile16816<1, 1> acc;
  for (int e = 0; e < 4; ++e) acc.v[e] = c[e];
  const FragA16x16 as[1] = {a};
  const FragB16x8 bs[1] = {b};
  mma_16816<T, 1, 1>(acc, as, bs);
  for (int e = 0; e < 4; ++e) d[e] = acc.v[e];
}

}  // namespace pf
