// polyfuse device helpers, block layer: copies of a ROWS x COLS tile of 16-bit elements
// (f16/bf16) between global and shared memory by the NTHREADS threads of a block
// (paper §V-A), in 16-byte chunks distributed cyclically over the threads (chunk
// q = tid + it*NTHREADS is row q / (COLS/8), chunk column q % (COLS/8)), so consecutive
// threads read consecutive 16 bytes of a row: coalesced 128-bit global accesses.
//
//   load_tile_global     global → registers (ld.global.v4), between the two a prologue may
//   load_tile_broadcast  load the tensors it reads beside the operand (broadcast tiles) and
//   map_tile_regs        apply pointwise operations to the valid elements,
//   store_tile_shared    registers → swizzled shared tile (st.shared.v4),
//   cp_async_tile        global → swizzled shared tile directly (cp.async, sm_80+);
//   map_tile_shared      a prologue applied in place to the chunks a thread's cp_async_tile
//                        copied, once they landed (before the barrier that publishes them).
// Partial tiles: elements at rows >= rows_valid or columns >= cols_valid read as zero (no
// access). Two template arguments say what the generator knew (pf_memory.cuh):
//   CHECK  which of the two bounds can cut the tile (Check::none for a full tile: no
//          predicates at all);
//   WIDTH  the widest access every row start allows (Width::b128 when the leading dimension
//          is a multiple of 8 elements; narrower ones for other constant leading dimensions;
//          Width::by_address tests each chunk's address at run time).
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_swizzle.cuh"

namespace pf {

template <int ROWS, int COLS, int NTHREADS> struct TileRegs {
  static_assert(COLS % 8 == 0, "tile rows must hold whole 16-byte chunks");
  static constexpr int chunks_per_row = COLS / 8;
  static constexpr int chunks = ROWS * chunks_per_row;
  static constexpr int per_thread = (chunks + NTHREADS - 1) / NTHREADS;
  Chunk16 c[per_thread];
};

namespace detail {
// The number of valid elements (0..8) of the chunk at row/col.
template <Check CHECK> PF_DEVICE int chunk_valid(int row, int col, int rows_valid, int cols_valid) {
  if (checks_rows(CHECK) && row >= rows_valid) return 0;
  if (!checks_cols(CHECK)) return 8;
  const int n = cols_valid - col;
  return n <= 0 ? 0 : n >= 8 ? 8 : n;
}

// Element i (0..7) of `count` 16-bit elements at p, zero past count, in WIDTH-byte pieces.
template <Width WIDTH> PF_DEVICE Chunk16 load_chunk_pieces(const unsigned short* p, int count) {
  Chunk16 v = {{0u, 0u, 0u, 0u}};
  constexpr int per = WIDTH == Width::b64 ? 4 : WIDTH == Width::b32 ? 2 : 1;  // elements per piece
PF_UNROLL
  for (int piece = 0; piece < 8 / per; ++piece) {
    const int first = piece * per;
    if constexpr (per == 4) {
      if (first + 4 <= count) {
        const unsigned long long bits = ldg64(p + first);
        v.x[first / 2] = static_cast<unsigned>(bits);
        v.x[first / 2 + 1] = static_cast<unsigned>(bits >> 32);
        continue;
      }
    } else if constexpr (per == 2) {
      if (first + 2 <= count) {
        v.x[first / 2] = ldg32(p + first);
        continue;
      }
    }
    for (int e = first; e < first + per; ++e) v.x[e >> 1] |= static_cast<unsigned>(ldg_pred(p + e, e < count)) << (16 * (e & 1));
  }
  return v;
}

// One chunk of 8 elements at row/col of a global tile, zero-filled outside the valid part.
template <Check CHECK = Check::all, Width WIDTH = Width::by_address>
PF_DEVICE Chunk16 load_chunk_global(const unsigned short* src, long long ld, int row, int col,
                                    int rows_valid, int cols_valid) {
  const unsigned short* p = src + row * ld + col;
  const int n = chunk_valid<CHECK>(row, col, rows_valid, cols_valid);
  if (CHECK != Check::none && n == 0) return ldg128_pred(p, false);
  if constexpr (WIDTH == Width::b128) {
    if (n == 8) return ldg128(p);
    return load_chunk_pieces<Width::b16>(p, n);
  } else if constexpr (WIDTH == Width::by_address) {
    if (n == 8 && aligned16(p)) return ldg128(p);
    return load_chunk_pieces<Width::b16>(p, n);
  } else {
    return load_chunk_pieces<WIDTH>(p, n);
  }
}

// cp.async of one chunk (n valid elements, zero fill) in WIDTH-byte pieces; 2-byte rows
// take a synchronous element copy (cp.async moves 4, 8 or 16 bytes).
template <Width WIDTH> PF_DEVICE void cp_async_chunk(unsigned char* dst, const unsigned short* p, int n) {
  if constexpr (WIDTH == Width::b128) {
    cp_async16(dst, p, 2 * n);
  } else if constexpr (WIDTH == Width::b64 || WIDTH == Width::b32) {
    constexpr int per = WIDTH == Width::b64 ? 4 : 2;
PF_UNROLL
    for (int piece = 0; piece < 8 / per; ++piece) {
      const int valid = n - piece * per;
      const int elements = valid <= 0 ? 0 : valid >= per ? per : valid;
      // an empty piece reads nothing; it names the chunk's (valid) start, not past the end
      cp_async_small<2 * per>(dst + 2 * per * piece, elements ? p + per * piece : p, 2 * elements);
    }
  } else if constexpr (WIDTH == Width::b16) {
    sts128(dst, load_chunk_pieces<Width::b16>(p, n));
  } else {
    if (aligned16(p)) cp_async16(dst, p, 2 * n);
    else sts128(dst, load_chunk_pieces<Width::b16>(p, n));
  }
}
}  // namespace detail

template <Check CHECK = Check::all, Width WIDTH = Width::by_address, int ROWS, int COLS, int NTHREADS>
PF_DEVICE void load_tile_global(TileRegs<ROWS, COLS, NTHREADS>& regs, const void* src, long long ld,
                                int rows_valid, int cols_valid, int tid) {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) break;
    regs.c[it] = detail::load_chunk_global<CHECK, WIDTH>(static_cast<const unsigned short*>(src), ld, q / R::chunks_per_row,
                                           8 * (q % R::chunks_per_row), rows_valid, cols_valid);
  }
}

// The registers of a tile whose element (row, col) is src[row * row_stride + col * col_stride]
// (16-bit elements), chunk by chunk as load_tile_global holds a tile: a prologue operand
// broadcast against the operand tile (a stride is 0 along a dimension it is not indexed by).
// Each thread loads the values of its own chunks once: with col_stride 1 (g(k) beside
// A(m, k), or a whole Z(m, k)) 16-byte loads where aligned (WIDTH: the widest access the row
// stride allows, as load_chunk_global's), with col_stride 0 (s(m) beside A(m, k)) one load per
// chunk, element by element otherwise. Elements outside the valid part are zero.
template <Check CHECK = Check::all, Width WIDTH = Width::by_address, int ROWS, int COLS, int NTHREADS>
PF_DEVICE void load_tile_broadcast(TileRegs<ROWS, COLS, NTHREADS>& regs, const void* src, long long row_stride,
                                   long long col_stride, int rows_valid, int cols_valid, int tid) {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
  const unsigned short* s = static_cast<const unsigned short*>(src);
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) break;
    const int row = q / R::chunks_per_row, col = 8 * (q % R::chunks_per_row);
    if (col_stride == 1) {
      regs.c[it] = detail::load_chunk_global<CHECK, WIDTH>(s, row_stride, row, col, rows_valid, cols_valid);
      continue;
    }
    const int n = detail::chunk_valid<CHECK>(row, col, rows_valid, cols_valid);
    Chunk16 v = {{0u, 0u, 0u, 0u}};
    if (col_stride == 0) {
      const unsigned bits = ldg_pred(s + row * row_stride, n > 0);
      for (int e = 0; e < 4; ++e) v.x[e] = bits | bits << 16;
    } else {
      for (int e = 0; e < 8; ++e)
        v.x[e >> 1] |= static_cast<unsigned>(ldg_pred(s + row * row_stride + (col + e) * col_stride, e < n)) << (16 * (e & 1));
    }
    regs.c[it] = v;
  }
}

// Applies f to every valid element held in the registers (element type T): f(x, y...) with
// x the element and y... the elements at the same place of `operands` (element types U...,
// load_tile_broadcast), all as float; its result replaces x.
template <class T, Check CHECK = Check::all, class... U, int ROWS, int COLS, int NTHREADS, class F, class... Operands>
PF_DEVICE void map_tile_regs(TileRegs<ROWS, COLS, NTHREADS>& regs, F f, int rows_valid, int cols_valid, int tid,
                             const Operands&... operands) {
  static_assert(sizeof...(U) == sizeof...(Operands), "one element type per operand tile");
  using R = TileRegs<ROWS, COLS, NTHREADS>;
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    const int row = q / R::chunks_per_row, col = 8 * (q % R::chunks_per_row);
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) continue;
    const int n = detail::chunk_valid<CHECK>(row, col, rows_valid, cols_valid);
    for (int e = 0; e < 8; ++e)
      if (e < n) chunk_set<T>(regs.c[it], e, f(chunk_get<T>(regs.c[it], e), chunk_get<U>(operands.c[it], e)...));
  }
}

// The shared address of thread `tid`'s chunk `it` of a tile (TileRegs' order): the thread's
// chunks are `step` rows apart in one column, and when the swizzle moves them evenly
// (RowsShiftEvenly) each is the first one's plus a constant (one register, not one a chunk).
template <Swizzle S, int ROWS, int COLS, int NTHREADS> struct ChunkAddresses {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
  static constexpr int step = NTHREADS / R::chunks_per_row;
  static constexpr bool same_column = NTHREADS % R::chunks_per_row == 0;  // every chunk of a thread
  static constexpr bool even = same_column && RowsShiftEvenly<S, COLS, step>::value;
  unsigned char* tile;
  unsigned char* first;
  int tid;
  PF_DEVICE ChunkAddresses(void* t, int thread)
      : tile(static_cast<unsigned char*>(t)),
        first(tile + 16 * tile_chunk<S, COLS>(thread / R::chunks_per_row, thread % R::chunks_per_row)),
        tid(thread) {}
  PF_DEVICE unsigned char* operator[](int it) const {
    const int q = tid + it * NTHREADS;
    return even ? first + 2 * COLS * step * it : tile + 16 * tile_chunk<S, COLS>(q / R::chunks_per_row, q % R::chunks_per_row);
  }
};

template <Swizzle S, int ROWS, int COLS, int NTHREADS>
PF_DEVICE void store_tile_shared(void* tile, const TileRegs<ROWS, COLS, NTHREADS>& regs, int tid) {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
  const ChunkAddresses<S, ROWS, COLS, NTHREADS> dst(tile, tid);
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) break;
    sts128(dst[it], regs.c[it]);
  }
}

// Global → swizzled shared tile with cp.async (commit/wait are the caller's). Partial
// chunks use cp.async's zero-fill.
template <Swizzle S, int ROWS, int COLS, int NTHREADS, Check CHECK = Check::all, Width WIDTH = Width::by_address>
PF_DEVICE void cp_async_tile(void* tile, const void* src, long long ld, int rows_valid, int cols_valid, int tid) {
  using R = TileRegs<ROWS, COLS, NTHREADS>;
  const unsigned short* s = static_cast<const unsigned short*>(src);
  using A = ChunkAddresses<S, ROWS, COLS, NTHREADS>;
  const A dsts(tile, tid);
  // the sources likewise: the first one's plus a multiple of `ld` (one pointer, not one a chunk)
  const unsigned short* const s_first = s + (tid / R::chunks_per_row) * ld + 8 * (tid % R::chunks_per_row);
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) break;
    const int row = q / R::chunks_per_row, col = 8 * (q % R::chunks_per_row);
    unsigned char* dst = dsts[it];
    const int n = detail::chunk_valid<CHECK>(row, col, rows_valid, cols_valid);
    // zero fill, no global read; the source operand must still be 16-byte aligned: the tile
    // origin rounded down (never dereferenced)
    if (CHECK != Check::none && n == 0) cp_async16(dst, detail::align_down16(src), 0);
    else detail::cp_async_chunk<WIDTH>(dst, A::same_column ? s_first + A::step * it * ld : s + row * ld + col, n);
  }
}

// Applies f in place to the valid elements of thread `tid`'s own chunks of a swizzled shared
// tile: those cp_async_tile<S, ROWS, COLS, NTHREADS> copied for `tid`, which its
// cp_async_wait made visible to it and no other thread touches before the caller's barrier
// (which publishes the results). Elements past the valid part keep cp.async's zero fill.
// `operands` hold the prologue's other tensors beside the tile (load_tile_broadcast, element
// types U...). PACKED: f maps a pair of elements, f(unsigned x2, unsigned y2...) on 16-bit
// pairs (pf_pointwise_x2.cuh; the operands' type is T); else f(float x, float y...) element by
// element, as map_tile_regs.
template <class T, Swizzle S, int ROWS, int COLS, int NTHREADS, Check CHECK, bool PACKED, class... U, class F,
          class... Operands>
PF_DEVICE void map_tile_shared(void* tile, F f, int rows_valid, int cols_valid, int tid, const Operands&... operands) {
  static_assert(sizeof...(U) == sizeof...(Operands), "one element type per operand tile");
  using R = TileRegs<ROWS, COLS, NTHREADS>;
  const ChunkAddresses<S, ROWS, COLS, NTHREADS> at(tile, tid);
PF_UNROLL
  for (int it = 0; it < R::per_thread; ++it) {
    const int q = tid + it * NTHREADS;
    if (R::chunks % NTHREADS != 0 && q >= R::chunks) break;
    const int n = detail::chunk_valid<CHECK>(q / R::chunks_per_row, 8 * (q % R::chunks_per_row), rows_valid, cols_valid);
    if (CHECK != Check::none && n == 0) continue;
    Chunk16 v = lds128(at[it]);
    if constexpr (PACKED) {
PF_UNROLL
      for (int p = 0; p < 4; ++p) v.x[p] = f(v.x[p], operands.c[it].x[p]...);
      if (CHECK != Check::none && n < 8)  // the zero fill past the valid part stays zero
        for (int e = n; e < 8; ++e) v.x[e >> 1] &= (e & 1) ? 0x0000ffffu : 0xffff0000u;
    } else {
      for (int e = 0; e < 8; ++e)
        if (e < n) chunk_set<T>(v, e, f(chunk_get<T>(v, e), chunk_get<U>(operands.c[it], e)...));
    }
    sts128(at[it], v);
  }
}

}  // namespace pf
