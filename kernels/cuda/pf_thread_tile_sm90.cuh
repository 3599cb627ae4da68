// polyfuse device helpers, Hopper block-copy layer: the canonical tile that tma_load_tile
// (pf_tma.cuh) writes, written instead by the block's threads with ordinary loads and stores —
// for tensors TMA cannot address (rows not a multiple of 16 bytes apart: row-major f16 B with
// an odd N, A with an odd K; cuTensorMapEncodeTiled refuses their maps).
//
//   thread_load_tile<V>(tile, src, extent_inner, extent_outer, inner0, outer0, rows, atoms, s,
//                       thread, threads)
//       src is a row-major matrix of extent_outer rows of extent_inner 16-bit elements (row r at
//       src + r * extent_inner); the tile gets the same bytes as `atoms` TMA boxes of
//       {W/2, rows} at (inner0 + j W/2, outer0) with swizzle s (pf_swizzle_sm90.cuh: W the
//       swizzle span), zeros outside the matrix. Thread `thread` of `threads` writes every
//       threads-th 16-byte chunk, loading it in groups of V elements (V = 1, 2, 4 or 8: one
//       16/32/64/128-bit load each; extent_inner must be a multiple of V and src 2V-byte aligned,
//       so that no group straddles the end of a row or a misaligned address), kThreadLoadBatch
//       chunks' loads issued before the first chunk is stored. With `prologue`
//       (a float -> float functor), every element inside the matrix is stored as
//       prologue(element), rounded to T (an operand prologue applied on the way to shared memory);
//       with prologue_at(f) (f: (float element, int outer, int inner) -> float) as
//       f(element, its row, its column): a prologue that reads other tensors at the element's
//       coordinates; with prologue_columns<NC>(columns, f) those read by the column alone (a
//       dequantisation's scale(k)) once per chunk column, 8 columns a load (see PrologueColumns).
//
//   transform_tile<T>(tile, extent_inner, extent_outer, inner0, outer0, rows, atoms, s, thread,
//                     threads, prologue)
//       the same prologue applied in place to the canonical tile of T (16-bit) that TMA loaded
//       from such a matrix (boxes as above): every element inside the matrix becomes
//       prologue(element) rounded to T, the zeros TMA wrote outside it stay. Thread `thread` of
//       `threads` reads and writes every threads-th 16-byte chunk, kTransformBatch chunks' reads
//       before the first write; chunks wholly outside the matrix are not touched.
//
//   cp_async_gather_tile<ROWS>(tile, rows, tap_of, at, k0, zero_src, thread)
//       the K-major canonical tile (one 128-byte swizzle atom: 64 16-bit columns, ROWS rows) of an
//       implicit GEMM's A, gathered by the 128 threads of a warpgroup as pf_gather_copy.cuh's
//       cp_async_gather_tile gathers the sm_80 tile: thread `thread` copies the same rows of every
//       tile (rows = pf::gather_rows<ROWS, 64, 128>(row_of, m0, thread), decomposed once a tile)
//       at one column, its k-block's tap decomposed once (tap_of(k0 + column)); at(row, tap) the
//       16-byte aligned address of the chunk's 8 channels, or nullptr for zeros (padding, past
//       the GEMM's end: cp.async's zero-fill, source size 0, the 16-byte aligned `zero_src` never
//       read). The copies land in the background, so a thread can have several k-blocks' gathers
//       in flight: it commits each k-block's as a group and, before the consumers may read the
//       stage, waits for that group (cp_async_wait), fences it for the async proxy and arrives
//       (the copies are the thread's generic writes).
//
//   cp_async_canonical_tile<S, ROWS, COLS, NTHREADS, CHECK, WIDTH>(tile, src, ld, rows_valid,
//                                                                  cols_valid, tid)
//       the tile of ROWS x COLS 16-bit elements at src (row r at src + r * ld, COLS contiguous)
//       by cp.async as atoms of W/2 columns x ROWS rows (W = row_bytes(S)): a K-major tile of
//       ROWS m/n and COLS k (A(m, k), B(n, k)), or the MN-major tile of COLS m/n and ROWS k
//       (B(k, n)). Elements at rows >= rows_valid or columns >= cols_valid are zero filled (no
//       access); CHECK and WIDTH as pf_block_copy.cuh's cp_async_tile. Thread tid of NTHREADS
//       copies chunks tid, tid + NTHREADS, ...: consecutive threads read consecutive 16 bytes
//       of an atom's row. Commit and wait are the caller's, then the fence below.
//
// The stores go through the generic proxy: before wgmma (the async proxy) reads the tile, every
// writing thread executes fence_proxy_async() (pf_mbarrier.cuh) and then synchronises with the
// readers (an mbarrier arrive they wait on, or a barrier) — PTX ISA 9.7.13.4 "fence.proxy".
#pragma once

#include "pf_base.cuh"
#include "pf_block_copy.cuh"
#include "pf_gather_copy.cuh"
#include "pf_memory.cuh"
#include "pf_sm90.cuh"
#include "pf_swizzle_sm90.cuh"

namespace pf {
namespace sm90 {

namespace detail {

// Loads V 16-bit elements at `p` (2V-byte aligned) into element slots first .. first + V - 1 of
// `chunk` (8 slots of 16 bits), or zeros (and no access) when `in` is false.
template <int V> PF_DEVICE void load_group(Chunk16& chunk, int first, const unsigned short* p, bool in) {
  static_assert(V == 1 || V == 2 || V == 4 || V == 8, "groups of 1, 2, 4 or 8 elements");
  if constexpr (V == 8) {
    chunk = ldg128_pred(p, in);
  } else if constexpr (V == 4) {
    const unsigned long long bits = ldg_pred(reinterpret_cast<const unsigned long long*>(p), in);
    chunk.x[first / 2] = static_cast<unsigned>(bits);
    chunk.x[first / 2 + 1] = static_cast<unsigned>(bits >> 32);
  } else if constexpr (V == 2) {
    chunk.x[first / 2] = ldg_pred(reinterpret_cast<const unsigned*>(p), in);
  } else {
    const unsigned bits = ldg_pred(p, in);
    chunk.x[first / 2] |= bits << (16 * (first % 2));
  }
}

}  // namespace detail

// The identity prologue: elements are copied bit for bit.
struct NoPrologue {};

// A prologue that takes the element's coordinates too: f(x, outer, inner).
template <class F> struct PrologueAt {
  F f;
};
template <class F> PF_DEVICE PrologueAt<F> prologue_at(F f) { return PrologueAt<F>{f}; }

// A prologue with NC operands read by the column alone (a dequantisation's scale(k) of A(m, k)),
// loaded 8 columns at a time: columns(inner, count, v) fills v[i][0..7] with operand i's values
// at columns inner .. inner + 7 (the first `count` inside; pf::ldg_chunk), once for each chunk
// column a thread copies (not once per element: a thread's chunks of a tile share their
// columns), and f(x, outer, inner, c) takes the element's values c[i] = v[i][its column - inner].
template <int NC, class L, class F> struct PrologueColumns {
  L columns;
  F f;
};
template <int NC, class L, class F> PF_DEVICE PrologueColumns<NC, L, F> prologue_columns(L columns, F f) {
  return PrologueColumns<NC, L, F>{columns, f};
}

namespace detail {
template <class F> PF_DEVICE float apply_prologue(F& prologue, float x, int, int) { return prologue(x); }
template <class F> PF_DEVICE float apply_prologue(PrologueAt<F>& prologue, float x, int outer, int inner) {
  return prologue.f(x, outer, inner);
}
// The number of column operands of a prologue (0 but for PrologueColumns).
template <class F> struct ColumnOperands {
  static constexpr int count = 0;
};
template <int NC, class L, class F> struct ColumnOperands<PrologueColumns<NC, L, F>> {
  static constexpr int count = NC;
};

// The prologue on the 8 elements of `chunk` (16-bit T) of row `outer`, columns inner ..
// inner + 7, those with in(e) only: elements outside the matrix stay zero (the prologue of 0 need
// not be). A PrologueColumns loads its column operands into `columns` when the chunk column
// differs from columns_at.
template <class T, class F, int NC, class In>
PF_DEVICE void apply_to_chunk(Chunk16& chunk, F& prologue, float (&columns)[NC][8], int& columns_at, int outer, int inner,
                              int extent_inner, const In& in) {
  if constexpr (ColumnOperands<F>::count > 0) {
    if (inner != columns_at) {
      prologue.columns(inner, imax(0, imin(8, extent_inner - inner)), columns);
      columns_at = inner;
    }
  }
PF_UNROLL
  for (int e = 0; e < 8; ++e) {
    if constexpr (ColumnOperands<F>::count > 0) {
      if (in(e)) {
        float at[NC];
PF_UNROLL
        for (int i = 0; i < NC; ++i) at[i] = columns[i][e];
        chunk_set<T>(chunk, e, prologue.f(chunk_get<T>(chunk, e), outer, inner + e, at));
      }
    } else if constexpr (!IsSame<F, NoPrologue>::value) {
      if (in(e)) chunk_set<T>(chunk, e, apply_prologue(prologue, chunk_get<T>(chunk, e), outer, inner + e));
    }
  }
}
}  // namespace detail

// A thread's chunks go in batches of kThreadLoadBatch: every load of a batch is issued before the
// first is transformed and stored, so a thread waits for global memory once a batch instead of
// once a chunk (the loads are volatile asm: the compiler does not reorder them). One chunk at a
// time, the producer of examples/relu_gemm.tc took 2.15 ms at 4096^3 on an H200, 10x cuBLAS.
enum : int { kThreadLoadBatch = 8 };  // (an enumerator: kernels that copy nothing do not warn of it)

template <int V, class T, class F = NoPrologue>
PF_DEVICE void thread_load_tile(void* tile, const T* src, int extent_inner, int extent_outer, int inner0, int outer0,
                                int rows, int atoms, Swizzle s, int thread, int threads, F prologue = F()) {
  static_assert(sizeof(T) == 2, "16-bit elements");
  const unsigned short* bits = reinterpret_cast<const unsigned short*>(src);
  const int w = row_bytes(s), chunks_per_row = w / 16, chunks_per_atom = rows * chunks_per_row;
  const int chunks = atoms * chunks_per_atom;
  constexpr int NC = detail::ColumnOperands<F>::count;
  float columns[NC > 0 ? NC : 1][8];  // the column operands at the chunk column columns_at
  int columns_at = -2147483647 - 1;
  // Chunk q: atom j, row r, 16-byte column c of the atom's rows; its element coordinates.
  const auto where = [&](int q, int& j, int& r, int& c, int& outer, int& inner) {
    j = q / chunks_per_atom;
    r = (q % chunks_per_atom) / chunks_per_row;
    c = q % chunks_per_row;
    outer = outer0 + r;
    inner = inner0 + j * (w / 2) + c * 8;
  };
PF_NO_UNROLL
  for (int q0 = thread; q0 < chunks; q0 += kThreadLoadBatch * threads) {
    Chunk16 batch[kThreadLoadBatch];
PF_UNROLL
    for (int b = 0; b < kThreadLoadBatch; ++b) {
      batch[b] = Chunk16{{0u, 0u, 0u, 0u}};
      const int q = q0 + b * threads;
      if (q >= chunks) continue;
      int j, r, c, outer, inner;
      where(q, j, r, c, outer, inner);
      const bool row_in = outer >= 0 && outer < extent_outer;
      const unsigned short* row = bits + static_cast<long long>(row_in ? outer : 0) * extent_inner;
PF_UNROLL
      for (int g = 0; g < 8; g += V) {
        const bool in = row_in && inner + g >= 0 && inner + g < extent_inner;
        detail::load_group<V>(batch[b], g, row + (in ? inner + g : 0), in);
      }
    }
PF_UNROLL
    for (int b = 0; b < kThreadLoadBatch; ++b) {
      const int q = q0 + b * threads;
      if (q >= chunks) continue;
      int j, r, c, outer, inner;
      where(q, j, r, c, outer, inner);
      const bool row_in = outer >= 0 && outer < extent_outer;
      Chunk16& chunk = batch[b];
      // an element's load group is inside or outside as a whole
      detail::apply_to_chunk<T>(chunk, prologue, columns, columns_at, outer, inner, extent_inner,
                                [&](int e) { return row_in && inner + e / V * V >= 0 && inner + e / V * V < extent_inner; });
      const unsigned logical = atom_column_offset(s, rows, j) + static_cast<unsigned>(r * w + c * 16);
      sts128(static_cast<unsigned char*>(tile) + swizzle_offset(s, logical), chunk);
    }
  }
}

// Chunks a thread of transform_tile reads before it writes the first.
enum : int { kTransformBatch = 4 };

template <class T, class F>
PF_DEVICE void transform_tile(void* tile, int extent_inner, int extent_outer, int inner0, int outer0, int rows, int atoms,
                              Swizzle s, int thread, int threads, F prologue) {
  static_assert(sizeof(T) == 2, "16-bit elements");
  const int w = row_bytes(s), chunks_per_row = w / 16, chunks_per_atom = rows * chunks_per_row;
  const int chunks = atoms * chunks_per_atom;
  constexpr int NC = detail::ColumnOperands<F>::count;
  float columns[NC > 0 ? NC : 1][8];  // the column operands at the chunk column columns_at
  int columns_at = -2147483647 - 1;
  unsigned char* base = static_cast<unsigned char*>(tile);
  // Chunk q: atom j, row r, 16-byte column c of the atom's rows; its first element's row and
  // column in the matrix, and its swizzled byte offset in the tile.
  const auto where = [&](int q, int& outer, int& inner) {
    const int j = q / chunks_per_atom, r = (q % chunks_per_atom) / chunks_per_row, c = q % chunks_per_row;
    outer = outer0 + r;
    inner = inner0 + j * (w / 2) + c * 8;
    return swizzle_offset(s, atom_column_offset(s, rows, j) + static_cast<unsigned>(r * w + c * 16));
  };
PF_NO_UNROLL
  for (int q0 = thread; q0 < chunks; q0 += kTransformBatch * threads) {
    Chunk16 batch[kTransformBatch];
PF_UNROLL
    for (int b = 0; b < kTransformBatch; ++b) {
      const int q = q0 + b * threads;
      int outer, inner;
      const unsigned at = q < chunks ? where(q, outer, inner) : 0u;
      const bool touched = q < chunks && outer >= 0 && outer < extent_outer && inner + 8 > 0 && inner < extent_inner;
      batch[b] = touched ? lds128(base + at) : Chunk16{{0u, 0u, 0u, 0u}};
    }
PF_UNROLL
    for (int b = 0; b < kTransformBatch; ++b) {
      const int q = q0 + b * threads;
      if (q >= chunks) continue;
      int outer, inner;
      const unsigned at = where(q, outer, inner);
      if (outer < 0 || outer >= extent_outer || inner + 8 <= 0 || inner >= extent_inner) continue;
      detail::apply_to_chunk<T>(batch[b], prologue, columns, columns_at, outer, inner, extent_inner,
                                [&](int e) { return inner + e >= 0 && inner + e < extent_inner; });
      sts128(base + at, batch[b]);
    }
  }
}

template <Swizzle S, int ROWS, int COLS, int NTHREADS, Check CHECK = Check::all, Width WIDTH = Width::by_address>
PF_DEVICE void cp_async_canonical_tile(void* tile, const void* src, long long ld, int rows_valid, int cols_valid,
                                       int tid) {
  constexpr int w = row_bytes(S), atom_cols = w / 2, chunks_per_row = w / 16;
  static_assert(COLS % atom_cols == 0 && ROWS % 8 == 0, "whole atoms of 8-row groups");
  constexpr int chunks_per_atom = ROWS * chunks_per_row, chunks = COLS / atom_cols * chunks_per_atom;
  const unsigned short* s = static_cast<const unsigned short*>(src);
PF_UNROLL
  for (int q = tid; q < chunks; q += NTHREADS) {
    const int j = q / chunks_per_atom, row = q % chunks_per_atom / chunks_per_row, c = q % chunks_per_row;
    const int col = j * atom_cols + 8 * c;
    unsigned char* dst = static_cast<unsigned char*>(tile) +
                         swizzle_offset(S, atom_column_offset(S, ROWS, j) + static_cast<unsigned>(row * w + 16 * c));
    const int n = pf::detail::chunk_valid<CHECK>(row, col, rows_valid, cols_valid);
    // zero fill, no global read (the source operand still 16-byte aligned: never dereferenced)
    if (CHECK != Check::none && n == 0) cp_async16(dst, pf::detail::align_down16(src), 0);
    else pf::detail::cp_async_chunk<WIDTH>(dst, s + row * ld + col, n);
  }
}

template <int ROWS, class Rows, class TapOf, class At>
PF_DEVICE void cp_async_gather_tile(void* tile, const Rows& rows, const TapOf& tap_of, const At& at, int k0,
                                    const void* zero_src, int thread) {
  using G = GatherThread<ROWS, 64, 128, 2>;
  const int column = G::column(thread);
  const auto tap = tap_of(k0 + column);  // this k-block's filter tap and channel: once for all the rows
PF_UNROLL
  for (int i = 0; i < G::rows; ++i) {
    const unsigned logical = static_cast<unsigned>(G::row(thread, i) * 128 + 2 * column);
    unsigned char* dst = static_cast<unsigned char*>(tile) + swizzle_offset(Swizzle::b128, logical);
    const void* src = at(rows.row[i], tap);
    if (src) cp_async16(dst, src, 16);
    else cp_async16(dst, pf::detail::align_down16(zero_src), 0);
  }
}

}  // namespace sm90
}  // namespace pf
