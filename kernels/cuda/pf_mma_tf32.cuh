// polyfuse device helpers for f32 operands on tensor cores (sm_80+), instruction + warp-tile
// layer:
//   cvt.rna.tf32.f32                                           tf32_round
//   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32         mma_m16n8k8_tf32
// and, on top, the f32 form of the m16n8k16 macro-MMA the sm_80 kernels are scheduled with
// (k = 16 f32 elements: two m16n8k8), its fragment loads from shared tiles and the tile
// copy. The accumulators are AccTile16816 (the m16n8k8 C/D layout is m16n8k16's).
//
// Fragment layouts follow PTX ISA 9.7.15.5.7 "Matrix Fragments for mma.m16n8k8" (.tf32,
// one element per 32-bit register; groupID g = lane >> 2, threadID_in_group t = lane % 4):
//   A (16x8, a0..a3):  row = g + 8*(i & 1),  col = t + 4*(i >> 1)
//   B (8x8,  b0, b1):  row = t + 4*i,        col = g
// FragA16x16F32 holds the two k-halves of a 16x16 A block (x[4h + i] = a_i of columns
// 8h..8h+7), FragB16x8F32 those of a 16x8 B block (x[2h + i] = b_i of rows 8h..8h+7), as
// the raw f32 bits: the macro-MMA rounds them, so 3xTF32 can also take the remainders.
//
// The fragments are read with plain 32-bit shared loads (ldmatrix moves 16-bit 8x8
// matrices; a tf32 fragment register is one 32-bit element). The shared tiles use
// pf_swizzle.cuh's 16-byte-chunk swizzle on the f32 bytes (COLS f32 = 2*COLS 16-bit
// columns): a k-contiguous tile (A row-major, B column-major) is read 8 rows x one
// 16-byte chunk per instruction, conflict-free like ldmatrix; an m- or n-contiguous tile
// is read 4 rows x two chunks, which meet in pairs of banks: 2-way conflicts.
//
// Modes (F32Mma):
//   tf32:   d += tf32(a) * tf32(b), cvt.rna rounding (explicit: the hardware's use of
//           un-rounded f32 inputs is unspecified);
//   x3tf32: a = big + small, big = tf32(a), small = tf32(a - big) (a - big is exact);
//           d += small*big + big*small, then d += big*big (the small terms first, as
//           CUTLASS's 3xTF32); small*small (about 2^-22 relative) is dropped.
#pragma once

#include "pf_base.cuh"
#include "pf_block_copy.cuh"
#include "pf_memory.cuh"
#include "pf_mma_m16n8k16.cuh"
#include "pf_swizzle.cuh"

namespace pf {

enum class F32Mma { tf32, x3tf32 };

struct FragA16x16F32 {
  unsigned x[8];
};
struct FragB16x8F32 {
  unsigned x[4];
};

// cvt.rna.tf32.f32: x rounded to 10 explicit mantissa bits, to nearest with ties away from
// zero, as the bits of an f32 whose low 13 bits are zero. Inf stays Inf, NaN stays NaN;
// subnormals round like normal numbers (no flush); the largest values round to Inf.
PF_DEVICE unsigned tf32_round(float x) {
#if PF_DEVICE_PATH
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
#else
  const unsigned u = __float_as_uint(x);
  if ((u & 0x7f800000u) == 0x7f800000u)  // Inf or NaN: keep; a NaN keeps a mantissa bit
    return (u & 0x007fffffu) ? ((u | 0x00400000u) & ~0x1fffu) : u;
  // Adding half of the dropped unit to the magnitude rounds ties away from zero; a carry
  // moves into the exponent (and from the largest binade to Inf) by itself.
  return (u + 0x1000u) & ~0x1fffu;
#endif
}

// One mma.m16n8k8 with .tf32 operands: d = a * b + c on one 16x8 f32 fragment. The
// operands are tf32 bit patterns (the tensor core reads the top 19 bits of each register).
PF_DEVICE void mma_m16n8k8_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if PF_DEVICE_PATH
#if __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  asm volatile("trap;");  // tf32 mma needs sm_80
#endif
#elif PF_HOST_PATH
  // One rendezvous: every lane deposits its registers, then computes its own four
  // accumulator elements from the gathered fragments. The products of two 11-bit
  // significands are exact in f32; the sum is one f32 addition per product.
  unsigned mine[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  const unsigned* all = static_cast<const unsigned*>(::pf_host::warp_exchange("mma.m16n8k8.tf32", mine, sizeof mine));
  const int lane = static_cast<int>(::pf_host::lane_id());
  const int g = lane >> 2, t = lane & 3;
  const auto tf32 = [](unsigned bits) { return __uint_as_float(bits & ~0x1fffu); };
  for (int e = 0; e < 4; ++e) {
    const int row = g + 8 * (e >> 1), col = 2 * t + (e & 1);
    float sum = d[e];
    for (int k = 0; k < 8; ++k) {
      const float x = tf32(all[((row & 7) * 4 + (k & 3)) * 6 + (row >> 3) + 2 * (k >> 2)]);
      const float y = tf32(all[(col * 4 + (k & 3)) * 6 + 4 + (k >> 2)]);
      sum += x * y;
    }
    d[e] = sum;
  }
#endif
}

// One macro-MMA of a contracted schedule with f32 operands: fragment (i, j) of the warp's
// accumulator tile += a * b over 16 k (two m16n8k8; six in x3tf32).
template <F32Mma MODE, int MT, int NT>
PF_DEVICE void mma_fragment_f32(AccTile16816<MT, NT>& acc, int i, int j, const FragA16x16F32& a, const FragB16x8F32& b) {
  float* c = acc.frag(i, j);
  float d[4] = {c[0], c[1], c[2], c[3]};
PF_UNROLL
  for (int h = 0; h < 2; ++h) {
    unsigned a_big[4], b_big[2];
PF_UNROLL
    for (int r = 0; r < 4; ++r) a_big[r] = tf32_round(__uint_as_float(a.x[4 * h + r]));
PF_UNROLL
    for (int r = 0; r < 2; ++r) b_big[r] = tf32_round(__uint_as_float(b.x[2 * h + r]));
    if constexpr (MODE == F32Mma::x3tf32) {
      unsigned a_small[4], b_small[2];
PF_UNROLL
      for (int r = 0; r < 4; ++r)
        a_small[r] = tf32_round(__uint_as_float(a.x[4 * h + r]) - __uint_as_float(a_big[r]));
PF_UNROLL
      for (int r = 0; r < 2; ++r)
        b_small[r] = tf32_round(__uint_as_float(b.x[2 * h + r]) - __uint_as_float(b_big[r]));
      mma_m16n8k8_tf32(d, a_small, b_big);
      mma_m16n8k8_tf32(d, a_big, b_small);
    }
    mma_m16n8k8_tf32(d, a_big, b_big);
  }
  for (int e = 0; e < 4; ++e) c[e] = d[e];
}

// Byte address of f32 element (row, col) of a swizzled shared tile of COLS f32 columns.
template <Swizzle S, int COLS> PF_DEVICE const unsigned* tile_address_f32(const void* tile, int row, int col) {
  return reinterpret_cast<const unsigned*>(tile_address<S, 2 * COLS>(tile, row, 2 * col));
}

// The 32-bit shared load of f32 element (row, col) of such a tile, given key = row & 7 (the
// fragment loads know it from the lane: their rows start at multiples of 8). With 8 or more
// chunks a row the swizzle is then one XOR of the chunk column (pf_swizzle.cuh: the key is
// the row's, chunk L ^ key stays in the row), so the unrolled loads share one lane base.
template <Swizzle S, int COLS> PF_DEVICE unsigned lds_tile_f32(const void* tile, int row, int col, int key) {
  if constexpr (S == Swizzle::xor16 && SwizzleCheck<2 * COLS>::chunks_per_row >= 8) {
    const unsigned offset = static_cast<unsigned>(row) * (4u * COLS) +
                            ((static_cast<unsigned>(col >> 2) ^ static_cast<unsigned>(key)) << 4) +
                            (static_cast<unsigned>(col & 3) << 2);
    return lds(reinterpret_cast<const unsigned*>(static_cast<const unsigned char*>(tile) + offset));
  } else {
    return lds(tile_address_f32<S, COLS>(tile, row, col));
  }
}

namespace detail {
// The fragment loops of the loads below: element (row, col) of the tile is load(row, col, key),
// key = row & 7 where the lane knows it (the f32 loads' swizzle shortcut).
template <Layout L, int MT, class Load>
PF_DEVICE void load_frag_a_tf32(FragA16x16F32 (&a)[MT], int m0, int k0, Load load) {
  const int lane = static_cast<int>(lane_id());
  const int g = lane >> 2, t = lane & 3;
PF_UNROLL
  for (int i = 0; i < MT; ++i)
PF_UNROLL
    for (int r = 0; r < 8; ++r) {
      const int q = (r >> 1) & 1, m = m0 + 16 * i + g + 8 * (r & 1), k = k0 + 8 * (r >> 2) + t + 4 * q;
      a[i].x[r] = L == Layout::row ? load(m, k, g) : load(k, m, t + 4 * q);
    }
}
template <Layout L, int NT, class Load>
PF_DEVICE void load_frag_b_tf32(FragB16x8F32 (&b)[NT], int k0, int n0, Load load) {
  const int lane = static_cast<int>(lane_id());
  const int g = lane >> 2, t = lane & 3;
PF_UNROLL
  for (int j = 0; j < NT; ++j)
PF_UNROLL
    for (int r = 0; r < 4; ++r) {
      const int n = n0 + 8 * j + g, k = k0 + 8 * (r >> 1) + t + 4 * (r & 1);
      b[j].x[r] = L == Layout::col ? load(n, k, g) : load(k, n, t + 4 * (r & 1));
    }
}
}  // namespace detail

// Requirements (as the 16-bit loads): m0, k0, n0 multiples of 8; all 32 lanes call.
// A fragments (16x16 f32 each) of rows m0 + 16*i, k0..k0+15.
//   L == row: tile is [m][k] (COLS = tile K);  L == col: tile is [k][m] (COLS = tile M).
template <Layout L, Swizzle S, int COLS, int MT>
PF_DEVICE void load_frag_a_f32(FragA16x16F32 (&a)[MT], const void* tile, int m0, int k0) {
  detail::load_frag_a_tf32<L>(a, m0, k0, [tile](int row, int col, int key) { return lds_tile_f32<S, COLS>(tile, row, col, key); });
}

// B fragments (16x8 f32 each) of k0..k0+15, columns n0 + 8*j.
//   L == col: tile is [n][k] (COLS = tile K);  L == row: tile is [k][n] (COLS = tile N).
template <Layout L, Swizzle S, int COLS, int NT>
PF_DEVICE void load_frag_b_f32(FragB16x8F32 (&b)[NT], const void* tile, int k0, int n0) {
  detail::load_frag_b_tf32<L>(b, k0, n0, [tile](int row, int col, int key) { return lds_tile_f32<S, COLS>(tile, row, col, key); });
}

// A matmul of mixed operand types (f32 with f16 or bf16, or f16 with bf16) runs on these
// TF32 tensor cores too: a 16-bit operand's tile stays 16-bit in shared memory (copied as
// any 16-bit tile) and its fragments load widened to f32, which is exact (TF32 holds every
// f16 and bf16 value: 10 explicit mantissa bits, f32's exponent range), so tf32_round and
// 3xTF32's split leave it as it is. T is the element type (__half or __nv_bfloat16).
template <class T, Swizzle S, int COLS> PF_DEVICE unsigned lds_tile_widened(const void* tile, int row, int col) {
  const unsigned short bits = lds(reinterpret_cast<const unsigned short*>(tile_address<S, COLS>(tile, row, col)));
  return __float_as_uint(ElementTraits<T>::to_float(bits));
}

// load_frag_a_f32's fragments from a tile of 16-bit elements (COLS 16-bit columns).
template <class T, Layout L, Swizzle S, int COLS, int MT>
PF_DEVICE void load_frag_a_f32_widened(FragA16x16F32 (&a)[MT], const void* tile, int m0, int k0) {
  detail::load_frag_a_tf32<L>(a, m0, k0, [tile](int row, int col, int) { return lds_tile_widened<T, S, COLS>(tile, row, col); });
}

// load_frag_b_f32's fragments from a tile of 16-bit elements (COLS 16-bit columns).
template <class T, Layout L, Swizzle S, int COLS, int NT>
PF_DEVICE void load_frag_b_f32_widened(FragB16x8F32 (&b)[NT], const void* tile, int k0, int n0) {
  detail::load_frag_b_tf32<L>(b, k0, n0, [tile](int row, int col, int) { return lds_tile_widened<T, S, COLS>(tile, row, col); });
}

// Global → swizzled shared tile of ROWS x COLS f32 elements with cp.async (16-byte chunks
// of 4 elements): cp_async_tile on the 16-bit view of the same bytes.
template <Swizzle S, int ROWS, int COLS, int NTHREADS, Check CHECK = Check::all, Width WIDTH = Width::by_address>
PF_DEVICE void cp_async_tile_f32(void* tile, const float* src, long long ld, int rows_valid, int cols_valid, int tid) {
  cp_async_tile<S, ROWS, 2 * COLS, NTHREADS, CHECK, WIDTH>(tile, src, 2 * ld, rows_valid, 2 * cols_valid, tid);
}

}  // namespace pf
