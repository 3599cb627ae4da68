// polyfuse device helpers: ldmatrix (instruction layer) and the m16n8k16 fragment loads
// from swizzled shared tiles built on it (warp-tile layer).
//
// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16 — PTX ISA 9.7.15.5
// "Warp-level matrix load instruction: ldmatrix" (Figure 104): lanes 8q..8q+7 give the row
// addresses of matrix q (16 bytes each); lane l receives in register q the elements
// (row l/4, columns 2*(l%4), 2*(l%4)+1) of matrix q — with .trans the elements
// (rows 2*(l%4), 2*(l%4)+1, column l/4), i.e. of the transposed matrix.
//
// Fragment loads (tile = ROWS x COLS 16-bit elements, Swizzle S, see pf_swizzle.cuh):
//   load_frag_a<L, S, COLS, MT>(a, tile, m0, k0): A rows m0..m0+16*MT-1, k0..k0+15
//        L == row: tile is [m][k] (COLS = tile K), ldmatrix.x4
//        L == col: tile is [k][m] (COLS = tile M), ldmatrix.x4.trans
//   load_frag_b<L, S, COLS, NT>(b, tile, k0, n0): B k0..k0+15, columns n0..n0+8*NT-1
//        L == col: tile is [n][k] (COLS = tile K), ldmatrix.x4 (x2 for an odd last one)
//        L == row: tile is [k][n] (COLS = tile N), ldmatrix.x4.trans
// Requirements: m0, k0, n0 multiples of 8; all 32 lanes call (warp-collective).
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_mma_m16n8k16.cuh"
#include "pf_swizzle.cuh"

namespace pf {

#if PF_HOST_PATH
namespace detail {
// Host ldmatrix of `num` 8x8 b16 matrices: one rendezvous gathering the row addresses.
template <bool TRANS, int NUM> inline void host_ldmatrix(unsigned* d, const void* row_address) {
  const unsigned lane = ::pf_host::lane_id();
  if (lane < 8u * NUM) ::pf_host::access(::pf_host::shared_space, ::pf_host::load, row_address, 16);
  const unsigned char* const* rows = static_cast<const unsigned char* const*>(
      ::pf_host::warp_exchange(TRANS ? "ldmatrix.trans" : "ldmatrix", &row_address, sizeof row_address));
  for (int q = 0; q < NUM; ++q) {
    unsigned short e[2];
    for (int h = 0; h < 2; ++h) {
      const unsigned char* src = TRANS ? rows[8 * q + 2 * (lane % 4) + h] + 2 * (lane / 4)
                                       : rows[8 * q + lane / 4] + 2 * (2 * (lane % 4) + h);
      e[h] = static_cast<unsigned short>(src[0] | (src[1] << 8));
    }
    d[q] = static_cast<unsigned>(e[0]) | (static_cast<unsigned>(e[1]) << 16);
  }
}
}  // namespace detail
#endif

template <bool TRANS> PF_DEVICE void ldmatrix_x4(unsigned (&d)[4], const void* row_address) {
#if PF_DEVICE_PATH
  if constexpr (TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(shared_address(row_address)));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(shared_address(row_address)));
  }
#elif PF_HOST_PATH
  detail::host_ldmatrix<TRANS, 4>(d, row_address);
#endif
}

template <bool TRANS> PF_DEVICE void ldmatrix_x2(unsigned (&d)[2], const void* row_address) {
#if PF_DEVICE_PATH
  if constexpr (TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(shared_address(row_address)));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(shared_address(row_address)));
  }
#elif PF_HOST_PATH
  detail::host_ldmatrix<TRANS, 2>(d, row_address);
#endif
}

template <bool TRANS> PF_DEVICE void ldmatrix_x1(unsigned& d, const void* row_address) {
#if PF_DEVICE_PATH
  if constexpr (TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
                 : "=r"(d)
                 : "r"(shared_address(row_address)));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
                 : "=r"(d)
                 : "r"(shared_address(row_address)));
  }
#elif PF_HOST_PATH
  detail::host_ldmatrix<TRANS, 1>(&d, row_address);
#endif
}

// A fragments (16x16 each) of rows m0 + 16*i, k0..k0+15. Row-major tiles whose swizzle keeps
// 16 rows apart at one distance (RowsShiftEvenly) address each fragment from the first
// one's address plus a constant: one lane address per call instead of one per fragment.
template <Layout L, Swizzle S, int COLS, int MT>
PF_DEVICE void load_frag_a(FragA16x16 (&a)[MT], const void* tile, int m0, int k0) {
  const int lane = static_cast<int>(lane_id());
  const int q = lane >> 3, r = lane & 7;
  if constexpr (L == Layout::row && RowsShiftEvenly<S, COLS, 16>::value) {
    const unsigned char* first = tile_address<S, COLS>(tile, m0 + r + 8 * (q & 1), k0 + 8 * (q >> 1));
PF_UNROLL
    for (int i = 0; i < MT; ++i) ldmatrix_x4<false>(a[i].x, first + 2 * 16 * COLS * i);
  } else {
PF_UNROLL
    for (int i = 0; i < MT; ++i) {
      if constexpr (L == Layout::row) {
        ldmatrix_x4<false>(a[i].x, tile_address<S, COLS>(tile, m0 + 16 * i + r + 8 * (q & 1), k0 + 8 * (q >> 1)));
      } else {
        ldmatrix_x4<true>(a[i].x, tile_address<S, COLS>(tile, k0 + r + 8 * (q >> 1), m0 + 16 * i + 8 * (q & 1)));
      }
    }
  }
}

// B fragments (16x8 each) of k0..k0+15, columns n0 + 8*j.
template <Layout L, Swizzle S, int COLS, int NT>
PF_DEVICE void load_frag_b(FragB16x8 (&b)[NT], const void* tile, int k0, int n0) {
  const int lane = static_cast<int>(lane_id());
  const int q = lane >> 3, r = lane & 7;
PF_UNROLL
  for (int j = 0; j + 1 < NT; j += 2) {
    unsigned d[4];
    if constexpr (L == Layout::col) {
      ldmatrix_x4<false>(d, tile_address<S, COLS>(tile, n0 + 8 * j + 8 * (q >> 1) + r, k0 + 8 * (q & 1)));
    } else if constexpr (RowsShiftEvenly<S, COLS, 8>::value) {
      // k0 (a multiple of 8) moves the lane's address by a constant: the k-slices of a
      // k-step share the lanes' column offsets
      ldmatrix_x4<true>(d, tile_address<S, COLS>(tile, r + 8 * (q & 1), n0 + 8 * j + 8 * (q >> 1)) + 2 * COLS * k0);
    } else {
      ldmatrix_x4<true>(d, tile_address<S, COLS>(tile, k0 + r + 8 * (q & 1), n0 + 8 * j + 8 * (q >> 1)));
    }
    b[j].x[0] = d[0];
    b[j].x[1] = d[1];
    b[j + 1].x[0] = d[2];
    b[j + 1].x[1] = d[3];
  }
  if constexpr (NT % 2 == 1) {
    const int j = NT - 1;
    const int q2 = q & 1;  // lanes 16..31 repeat lanes 0..15 (their addresses are unused)
    if constexpr (L == Layout::col) {
      ldmatrix_x2<false>(b[j].x, tile_address<S, COLS>(tile, n0 + 8 * j + r, k0 + 8 * q2));
    } else {
      ldmatrix_x2<true>(b[j].x, tile_address<S, COLS>(tile, k0 + r + 8 * q2, n0 + 8 * j));
    }
  }
}

}  // namespace pf
