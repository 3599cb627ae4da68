// polyfuse device helpers, block layer: accumulator store (paper §V-D), and the split-K
// reduction that precedes a fused epilogue (reduce_split_k, at the end).
//
//   store_accumulators<OutT>(acc, scratch, out, ldo, m_valid, n_valid,
//                            split_k, split_index, warp_in_split, warps_per_split)
//
// f32 accumulator fragments (AccTile16816 or AccTile884) → 16x16 pieces reordered through
// shared memory → (split-K: summed over the split_k warps that computed the same warp tile,
// §V-D2) → converted to OutT (__half, __nv_bfloat16 or float) → coalesced 128-bit global
// stores: lane l stores row l % 16, columns 8*(l/16)..+7 of a piece, so each row of a piece
// is one full 32-byte sector.
//
// `scratch`: dynamic shared memory of 1 KiB per warp (split_k * warps_per_split KiB),
// 16-byte aligned; the warp (split_index s, warp_in_split w) uses KiB s*warps_per_split + w.
// `out` points at the warp tile's element (0, 0) (the same for all split indices); only rows
// < m_valid and columns < n_valid are written (masked stores at the edges; CHECK says which
// bounds can cut the tile, WIDTH the widest store a row start allows: pf_memory.cuh). Only warps with
// split_index 0 store. With split_k > 1 every warp of the block must call this (it contains
// __syncthreads); with split_k == 1 it synchronises the warp only.
//
// The 16x16 f32 piece in scratch is swizzled in 16-byte chunks (4 floats):
//   L = 4*row + col/4,   physical = (L & ~7) | ((L & 7) ^ (row & 6))
// which makes the fragment stores (64-bit, m16n8k16 layout) and the row reads (128-bit,
// first chunk chosen by row bit 2) conflict-free.
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"

namespace pf {

namespace detail {
PF_DEVICE int acc_scratch_offset(int row, int col) {
  const int linear = 4 * row + (col >> 2);
  return 4 * ((linear & ~7) | ((linear & 7) ^ (row & 6))) + (col & 3);
}
PF_DEVICE void block_or_warp_sync(int split_k) {
  if (split_k > 1) {
    __syncthreads();
  } else {
    __syncwarp();
  }
}
// Stores the first `count` (<= 0: none) of 8 values at p, whole rows in WIDTH-byte pieces.
template <class OutT, Width WIDTH> PF_DEVICE void store_row8(OutT* p, const float (&v)[8], int count) {
  constexpr int bytes = WIDTH == Width::by_address ? 0 : static_cast<int>(WIDTH);
  if (count <= 0) {
    stg128_pred(p, Chunk16{{0u, 0u, 0u, 0u}}, false);
  } else if (count >= 8 && (bytes == 16 || (bytes == 0 && aligned16(p)))) {
    if constexpr (sizeof(OutT) == 4) {
      Chunk16 lo, hi;
      for (int e = 0; e < 4; ++e) {
        lo.x[e] = __float_as_uint(v[e]);
        hi.x[e] = __float_as_uint(v[4 + e]);
      }
      stg128(p, lo);
      stg128(p + 4, hi);
    } else {
      Chunk16 c;
      for (int e = 0; e < 4; ++e) c.x[e] = pack2<OutT>(v[2 * e], v[2 * e + 1]);
      stg128(p, c);
    }
  } else if (count >= 8 && bytes >= 4) {  // a whole row in 8- or 4-byte pieces
    if constexpr (sizeof(OutT) == 4) {
      if constexpr (bytes >= 8) {
        for (int e = 0; e < 8; e += 2)
          stg64(p + e, __float_as_uint(v[e]) | (static_cast<unsigned long long>(__float_as_uint(v[e + 1])) << 32));
      } else {
        for (int e = 0; e < 8; ++e) stg32(p + e, __float_as_uint(v[e]));
      }
    } else if constexpr (bytes >= 8) {
      for (int e = 0; e < 8; e += 4)
        stg64(p + e, pack2<OutT>(v[e], v[e + 1]) | (static_cast<unsigned long long>(pack2<OutT>(v[e + 2], v[e + 3])) << 32));
    } else {
      for (int e = 0; e < 8; e += 2) stg32(p + e, pack2<OutT>(v[e], v[e + 1]));
    }
  } else {
    for (int e = 0; e < 8; ++e) stg_pred(p + e, from_float<OutT>(v[e]), e < count);
  }
}
}  // namespace detail

template <class OutT, Check CHECK = Check::all, Width WIDTH = Width::by_address, class Tile>
PF_DEVICE void store_accumulators(const Tile& acc, void* scratch, OutT* out, long long ldo, int m_valid,
                                  int n_valid, int split_k, int split_index, int warp_in_split,
                                  int warps_per_split) {
  const int lane = static_cast<int>(lane_id());
  float* base = static_cast<float*>(scratch);
  float* mine = base + 256 * (split_index * warps_per_split + warp_in_split);
  const int row = lane & 15, half = lane >> 4;
  // Fully unrolled: the accumulator tile is indexed by these loops and must stay in
  // registers.
PF_UNROLL
  for (int pm = 0; pm < Tile::pieces_m; ++pm) {
PF_UNROLL
    for (int pn = 0; pn < Tile::pieces_n; ++pn) {
PF_UNROLL
      // 1. fragments → scratch (each lane: 4 pairs of horizontally adjacent values)
      for (int e = 0; e < 8; e += 2) {
        const int idx = Tile::piece_index(pm, pn, e);
        int r, c;
        Tile::coord(static_cast<unsigned>(lane), idx, r, c);
        sts64(mine + detail::acc_scratch_offset(r & 15, c & 15), __float_as_uint(acc.v[idx]),
              __float_as_uint(acc.v[idx + 1]));
      }
      detail::block_or_warp_sync(split_k);
      // 2. split 0 reads rows, sums the other splits, converts, stores to global
      if (split_index == 0) {
        // The lane's 8 values are chunks 2*half and 2*half + 1 of its row; lanes with bit 2
        // of the row set read them in the other order (conflict-free). The chunks are put
        // back in order with selects: v is indexed by constants only (no stack frame).
        float v[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        const bool swapped = ((row >> 2) & 1) != 0;
        const int first = 2 * half + (swapped ? 1 : 0);
        for (int s = 0; s < split_k; ++s) {
          const float* src = base + 256 * (s * warps_per_split + warp_in_split);
          const Chunk16 a = lds128(src + detail::acc_scratch_offset(row, 4 * first));
          const Chunk16 b = lds128(src + detail::acc_scratch_offset(row, 4 * (first ^ 1)));
PF_UNROLL
          for (int e = 0; e < 4; ++e) {
            v[e] += __uint_as_float(swapped ? b.x[e] : a.x[e]);
            v[4 + e] += __uint_as_float(swapped ? a.x[e] : b.x[e]);
          }
        }
        const int grow = 16 * pm + row, gcol = 16 * pn + 8 * half;
        const bool row_ok = !checks_rows(CHECK) || grow < m_valid;
        const int count = !row_ok ? 0 : checks_cols(CHECK) ? n_valid - gcol : 8;
        detail::store_row8<OutT, WIDTH>(out + grow * ldo + gcol, v, count);
      }
      detail::block_or_warp_sync(split_k);
    }
  }
}

// Split-K before a fused epilogue (§V-D2, then §VII-A): the split_k warps that computed
// the same warp tile add their accumulators into those of split index 0, which then runs
// the epilogue and stores with split_k = 1. Through `scratch` (1 KiB per warp, as above),
// 8 values per lane per round, each round's 256 floats laid out [half][lane][4] so that
// both 128-bit stores and loads are conflict-free. Every warp of the block must call it
// (__syncthreads); the register tile is indexed by fully unrolled loops only.
template <class Tile>
PF_DEVICE void reduce_split_k(Tile& acc, void* scratch, int split_k, int split_index, int warp_in_split,
                              int warps_per_split) {
  const int lane = static_cast<int>(lane_id());
  float* base = static_cast<float*>(scratch);
  float* mine = base + 256 * (split_index * warps_per_split + warp_in_split) + 4 * lane;
PF_UNROLL
  for (int first = 0; first < Tile::count; first += 8) {
    if (split_index != 0) {
PF_UNROLL
      for (int h = 0; h < 2; ++h) {
        Chunk16 c;
PF_UNROLL
        for (int e = 0; e < 4; ++e) c.x[e] = first + 4 * h + e < Tile::count ? __float_as_uint(acc.v[first + 4 * h + e]) : 0u;
        sts128(mine + 128 * h, c);
      }
    }
    __syncthreads();
    if (split_index == 0) {
      for (int s = 1; s < split_k; ++s) {
        const float* theirs = base + 256 * (s * warps_per_split + warp_in_split) + 4 * lane;
PF_UNROLL
        for (int h = 0; h < 2; ++h) {
          const Chunk16 c = lds128(theirs + 128 * h);
PF_UNROLL
          for (int e = 0; e < 4; ++e)
            if (first + 4 * h + e < Tile::count) acc.v[first + 4 * h + e] += __uint_as_float(c.x[e]);
        }
      }
    }
    __syncthreads();
  }
}

}  // namespace pf
