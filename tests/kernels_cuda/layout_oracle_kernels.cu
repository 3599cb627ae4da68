// Probe kernels of the layout oracle tests: each runs one kernels/cuda helper on one warp
// (one warp per block; block b works on slice b of its arrays) with its inputs and outputs in
// global memory. They hold no layout knowledge of their own: a lane's registers come from
// and go to [block][lane][register] arrays, ldmatrix addresses come from a per-lane array,
// and which element a register holds is decided by the test (layout_oracle.h), never here.
// Valid CUDA as well as emulator C++ (layout_oracle_kernels_host.cc), so that the same probes
// can be run on a GPU.
#include "polyfuse_cuda.cuh"

namespace pfo {

__device__ inline unsigned slot() { return blockIdx.x * 32 + pf::lane_id(); }

// ---- MMA: registers in, accumulators out ---------------------------------------------------
// a: [block][lane][4 MT], b: [block][lane][RB NT], d: [block][lane][Tile::count]; C starts at 0.
template <class Tile> __device__ void store_tile(const Tile& acc, float* d) {
  for (int i = 0; i < Tile::count; ++i) pf::stg(d + slot() * Tile::count + i, acc.v[i]);
}

// VIA: 0 the warp-tile call, 1 one call per fragment as generated code does.
template <class T, int MT, int NT, int VIA>
__device__ void mma16816_probe(const unsigned* a, const unsigned* b, float* d) {
  pf::FragA16x16 fa[MT];
  pf::FragB16x8 fb[NT];
  for (int i = 0; i < MT; ++i)
    for (int r = 0; r < 4; ++r) fa[i].x[r] = pf::ldg(a + slot() * 4 * MT + 4 * i + r);
  for (int j = 0; j < NT; ++j)
    for (int r = 0; r < 2; ++r) fb[j].x[r] = pf::ldg(b + slot() * 2 * NT + 2 * j + r);
  pf::AccTile16816<MT, NT> acc;
  pf::tile::fill(acc, 0.f);
  if constexpr (MT == 1 && NT == 1) {
    const float zero[4] = {0.f, 0.f, 0.f, 0.f};
    pf::mma_m16n8k16<T>(acc.v, fa[0], fb[0], zero);
  } else if constexpr (VIA == 1) {
    for (int i = 0; i < MT; ++i)
      for (int j = 0; j < NT; ++j) pf::mma_fragment<T>(acc, i, j, fa[i], fb[j]);
  } else {
    pf::mma_16816<T, MT, NT>(acc, fa, fb);
  }
  store_tile(acc, d);
}

// VIA: 0 mma_16x16x8 / mma_32x32x8, 1 mma_macro_32x32x8 (generated code's 32x32x8 call).
template <pf::Layout LA, pf::Layout LB, int MT, int VIA>
__device__ void mma884_probe(const unsigned* a, const unsigned* b, float* d) {
  pf::FragA884 fa[MT];
  pf::FragB884 fb[MT];
  for (int i = 0; i < MT; ++i)
    for (int r = 0; r < 4; ++r) {
      fa[i].x[r] = pf::ldg(a + slot() * 4 * MT + 4 * i + r);
      fb[i].x[r] = pf::ldg(b + slot() * 4 * MT + 4 * i + r);
    }
  pf::AccTile884<MT, MT> acc;
  pf::tile::fill(acc, 0.f);
  if constexpr (MT == 1) {
    pf::mma_16x16x8<LA, LB>(acc, fa, fb);
  } else if constexpr (VIA == 1) {
    pf::mma_macro_32x32x8<LA, LB, MT, MT>(acc, 0, 0, fa, fb);
  } else {
    pf::mma_32x32x8<LA, LB>(acc, fa, fb);
  }
  store_tile(acc, d);
}

// ---- ldmatrix: rows of 8 16-bit elements copied to shared memory; lane l's address is row
// lane_row[l]; out: [lane][NUM] destination registers. -------------------------------------
template <int NUM, bool TRANS>
__device__ void ldmatrix_probe(const unsigned short* rows, int row_count, const int* lane_row, unsigned* out) {
  PF_DYNAMIC_SHARED(smem);
  unsigned short* shared_rows = reinterpret_cast<unsigned short*>(smem);
  for (int i = threadIdx.x; i < 8 * row_count; i += 32) pf::sts(shared_rows + i, pf::ldg(rows + i));
  __syncthreads();
  const unsigned lane = pf::lane_id();
  const unsigned char* address = smem + 16 * pf::ldg(lane_row + lane);
  unsigned d[NUM];
  if constexpr (NUM == 4) {
    pf::ldmatrix_x4<TRANS>(d, address);
  } else if constexpr (NUM == 2) {
    pf::ldmatrix_x2<TRANS>(d, address);
  } else {
    pf::ldmatrix_x1<TRANS>(d[0], address);
  }
  for (int q = 0; q < NUM; ++q) pf::stg(out + lane * NUM + q, d[q]);
}

// ---- fragment loads from a swizzled shared tile ---------------------------------------------
// tile: ROWS x COLS 16-bit elements, row-major in global memory, stored in shared memory at
// tile_address<xor16, COLS>; out: [lane][registers of the F fragments].
template <int ROWS, int COLS> __device__ unsigned char* shared_tile(const unsigned short* tile) {
  PF_DYNAMIC_SHARED(smem);
  for (int i = threadIdx.x; i < ROWS * COLS; i += 32)
    pf::sts(reinterpret_cast<unsigned short*>(pf::tile_address<pf::Swizzle::xor16, COLS>(smem, i / COLS, i % COLS)),
            pf::ldg(tile + i));
  __syncthreads();
  return smem;
}
template <class Frag, int F> __device__ void store_fragments(const Frag (&f)[F], unsigned* out) {
  constexpr int regs = sizeof(f[0].x) / sizeof(f[0].x[0]);
  for (int i = 0; i < F; ++i)
    for (int r = 0; r < regs; ++r) pf::stg(out + (pf::lane_id() * F + i) * regs + r, f[i].x[r]);
}

// OPERAND 'a': A rows m0 + 16i.., k0..; 'b': B k0.., columns n0 + 8j.. (m16n8k16) or
// n0 + 16j.. (884). X884: the macro-MMA fragments instead of the m16n8k16 ones.
template <char OPERAND, bool X884, pf::Layout L, int ROWS, int COLS, int F>
__device__ void load_frag_probe(const unsigned short* tile, int r0, int c0, unsigned* out) {
  const unsigned char* smem = shared_tile<ROWS, COLS>(tile);
  if constexpr (OPERAND == 'a' && !X884) {
    pf::FragA16x16 f[F];
    pf::load_frag_a<L, pf::Swizzle::xor16, COLS, F>(f, smem, r0, c0);
    store_fragments(f, out);
  } else if constexpr (OPERAND == 'b' && !X884) {
    pf::FragB16x8 f[F];
    pf::load_frag_b<L, pf::Swizzle::xor16, COLS, F>(f, smem, r0, c0);
    store_fragments(f, out);
  } else if constexpr (OPERAND == 'a') {
    pf::FragA884 f[F];
    pf::load_frag_a884<L, pf::Swizzle::xor16, COLS, F>(f, smem, r0, c0);
    store_fragments(f, out);
  } else {
    pf::FragB884 f[F];
    pf::load_frag_b884<L, pf::Swizzle::xor16, COLS, F>(f, smem, r0, c0);
    store_fragments(f, out);
  }
}

// ---- accumulator tiles: coord(), the accumulator store and the epilogue operand loads -------
// coord: out [lane][idx][2] = (row, col) that Tile::coord reports.
template <class Tile> __device__ void coord_probe(int* out) {
  for (int i = 0; i < Tile::count; ++i) {
    int r, c;
    Tile::coord(pf::lane_id(), i, r, c);
    pf::stg(out + (pf::lane_id() * Tile::count + i) * 2, r);
    pf::stg(out + (pf::lane_id() * Tile::count + i) * 2 + 1, c);
  }
}

// v[idx] of `lane` = lane + 1 (pass 0) or idx + 1 (pass 1), stored to the tile at out (ldo).
template <class OutT, pf::Width W, class Tile> __device__ void acc_store_probe(OutT* out, int ldo, int pass) {
  PF_DYNAMIC_SHARED(smem);
  const unsigned lane = pf::lane_id();
  Tile acc;
  for (int i = 0; i < Tile::count; ++i) acc.v[i] = static_cast<float>(pass == 0 ? lane + 1 : i + 1);
  pf::store_accumulators<OutT, pf::Check::none, W>(acc, smem, out, ldo, Tile::rows, Tile::cols, 1, 0, 0, 1);
}

// store_frags_to_tile: `values` [lane][32] are the registers of an AccTile16816<2, 4>, stored into a
// 32 x COLS f16 shared tile (first filled with -7) at columns col0.., masked at cols_valid; out: the
// tile's [row][col] elements, read back through the swizzle.
template <int COLS> __device__ void resident_tile_probe(const float* values, float* out, int col0, int cols_valid) {
  PF_DYNAMIC_SHARED(smem);
  const int lane = static_cast<int>(pf::lane_id());
  for (int e = lane; e < 32 * COLS; e += 32) pf::sts(reinterpret_cast<__half*>(smem) + e, __float2half(-7.f));
  __syncwarp();
  pf::AccTile16816<2, 4> acc;
  for (int i = 0; i < pf::AccTile16816<2, 4>::count; ++i) acc.v[i] = pf::ldg(values + lane * 32 + i);
  pf::store_frags_to_tile<__half, pf::Swizzle::xor16, COLS>(acc, smem, 0, col0, cols_valid);
  __syncwarp();
  for (int e = lane; e < 32 * COLS; e += 32) {
    const unsigned char* at = pf::tile_address<pf::Swizzle::xor16, COLS>(smem, e / COLS, e % COLS);
    pf::stg(out + e, __half2float(pf::lds(reinterpret_cast<const __half*>(at))));
  }
}

// mode 0: load_matrix(mat, ld = Tile::cols), 1: load_broadcast_rows(vec), 2: load_broadcast_cols(vec);
// out: [lane][idx] the loaded values.
template <pf::Width W, class Tile> __device__ void operand_load_probe(const float* mat, const float* vec, float* out, int mode) {
  Tile t;
  if (mode == 0) pf::load_matrix<pf::Check::none, W>(t, mat, Tile::cols, Tile::rows, Tile::cols);
  if (mode == 1) pf::load_broadcast_rows<pf::Check::none>(t, vec, Tile::rows);
  if (mode == 2) pf::load_broadcast_cols<pf::Check::none, W>(t, vec, Tile::cols);
  for (int i = 0; i < Tile::count; ++i) pf::stg(out + pf::lane_id() * Tile::count + i, t.v[i]);
}

}  // namespace pfo

#define PFO_MMA16816(NAME, T, MT, NT, VIA)                                                   \
  extern "C" __global__ void NAME(const unsigned* a, const unsigned* b, float* d) {          \
    pfo::mma16816_probe<T, MT, NT, VIA>(a, b, d);                                            \
  }
PFO_MMA16816(oracle_mma16816_f16, __half, 1, 1, 0)
PFO_MMA16816(oracle_mma16816_bf16, __nv_bfloat16, 1, 1, 0)
PFO_MMA16816(oracle_mma16816_f16_tile2x2, __half, 2, 2, 0)
PFO_MMA16816(oracle_mma16816_f16_fragments2x2, __half, 2, 2, 1)
#undef PFO_MMA16816

#define PFO_MMA884(NAME, LA, LB, MT, VIA)                                                    \
  extern "C" __global__ void NAME(const unsigned* a, const unsigned* b, float* d) {          \
    pfo::mma884_probe<pf::Layout::LA, pf::Layout::LB, MT, VIA>(a, b, d);                     \
  }
#define PFO_MMA884_LAYOUTS(LA, LB)                                                          \
  PFO_MMA884(oracle_mma884_16x16x8_##LA##_##LB, LA, LB, 1, 0)                                \
  PFO_MMA884(oracle_mma884_32x32x8_##LA##_##LB, LA, LB, 2, 0)                                \
  PFO_MMA884(oracle_mma884_macro32x32x8_##LA##_##LB, LA, LB, 2, 1)
PFO_MMA884_LAYOUTS(row, row)
PFO_MMA884_LAYOUTS(row, col)
PFO_MMA884_LAYOUTS(col, row)
PFO_MMA884_LAYOUTS(col, col)
#undef PFO_MMA884_LAYOUTS
#undef PFO_MMA884

#define PFO_LDMATRIX(NAME, NUM, TRANS)                                                                     \
  extern "C" __global__ void NAME(const unsigned short* rows, int row_count, const int* lane_row, unsigned* out) { \
    pfo::ldmatrix_probe<NUM, TRANS>(rows, row_count, lane_row, out);                                       \
  }
PFO_LDMATRIX(oracle_ldmatrix_x1, 1, false)
PFO_LDMATRIX(oracle_ldmatrix_x2, 2, false)
PFO_LDMATRIX(oracle_ldmatrix_x4, 4, false)
PFO_LDMATRIX(oracle_ldmatrix_x1_trans, 1, true)
PFO_LDMATRIX(oracle_ldmatrix_x2_trans, 2, true)
PFO_LDMATRIX(oracle_ldmatrix_x4_trans, 4, true)
#undef PFO_LDMATRIX

// A is 64 x 32 (m, k), B is 32 x 64 (k, n); tiles [m][k] / [k][m] / [n][k] / [k][n].
#define PFO_LOAD_FRAG(NAME, OPERAND, X884, L, ROWS, COLS, F)                                 \
  extern "C" __global__ void NAME(const unsigned short* tile, int r0, int c0, unsigned* out) { \
    pfo::load_frag_probe<OPERAND, X884, pf::Layout::L, ROWS, COLS, F>(tile, r0, c0, out);    \
  }
PFO_LOAD_FRAG(oracle_load_frag_a_row, 'a', false, row, 64, 32, 2)
PFO_LOAD_FRAG(oracle_load_frag_a_col, 'a', false, col, 32, 64, 2)
PFO_LOAD_FRAG(oracle_load_frag_b_col, 'b', false, col, 64, 32, 3)
PFO_LOAD_FRAG(oracle_load_frag_b_row, 'b', false, row, 32, 64, 3)
PFO_LOAD_FRAG(oracle_load_frag_a884_row, 'a', true, row, 64, 32, 2)
PFO_LOAD_FRAG(oracle_load_frag_a884_col, 'a', true, col, 32, 64, 2)
PFO_LOAD_FRAG(oracle_load_frag_b884_col, 'b', true, col, 64, 32, 2)
PFO_LOAD_FRAG(oracle_load_frag_b884_row, 'b', true, row, 32, 64, 2)
#undef PFO_LOAD_FRAG

extern "C" __global__ void oracle_coord_16816(int* out) { pfo::coord_probe<pf::AccTile16816<2, 4>>(out); }
extern "C" __global__ void oracle_coord_884(int* out) { pfo::coord_probe<pf::AccTile884<2, 2>>(out); }

#define PFO_ACC_STORE(NAME, OUT_T, W, TILE)                                                  \
  extern "C" __global__ void NAME(OUT_T* out, int ldo, int pass) {                           \
    pfo::acc_store_probe<OUT_T, pf::Width::W, TILE>(out, ldo, pass);                         \
  }
#define PFO_ACC_STORE_WIDTHS(NAME, OUT_T, TILE)                                              \
  PFO_ACC_STORE(NAME##_b128, OUT_T, b128, PFO_TILE_##TILE)                                   \
  PFO_ACC_STORE(NAME##_b64, OUT_T, b64, PFO_TILE_##TILE)                                     \
  PFO_ACC_STORE(NAME##_b32, OUT_T, b32, PFO_TILE_##TILE)                                     \
  PFO_ACC_STORE(NAME##_b16, OUT_T, b16, PFO_TILE_##TILE)
#define PFO_TILE_16816 pf::AccTile16816<2, 4>
#define PFO_TILE_884 pf::AccTile884<2, 2>
PFO_ACC_STORE_WIDTHS(oracle_acc_store_f32_16816, float, 16816)
PFO_ACC_STORE_WIDTHS(oracle_acc_store_f16_16816, __half, 16816)
PFO_ACC_STORE_WIDTHS(oracle_acc_store_bf16_16816, __nv_bfloat16, 16816)
PFO_ACC_STORE_WIDTHS(oracle_acc_store_f32_884, float, 884)
PFO_ACC_STORE_WIDTHS(oracle_acc_store_f16_884, __half, 884)
PFO_ACC_STORE_WIDTHS(oracle_acc_store_bf16_884, __nv_bfloat16, 884)

extern "C" __global__ void oracle_resident_tile_32(const float* values, float* out, int col0, int cols_valid) {
  pfo::resident_tile_probe<32>(values, out, col0, cols_valid);
}
extern "C" __global__ void oracle_resident_tile_64(const float* values, float* out, int col0, int cols_valid) {
  pfo::resident_tile_probe<64>(values, out, col0, cols_valid);
}

#define PFO_OPERAND_LOAD(NAME, W, TILE)                                                              \
  extern "C" __global__ void NAME(const float* mat, const float* vec, float* out, int mode) {        \
    pfo::operand_load_probe<pf::Width::W, PFO_TILE_##TILE>(mat, vec, out, mode);                     \
  }
PFO_OPERAND_LOAD(oracle_operand_load_16816, by_address, 16816)
PFO_OPERAND_LOAD(oracle_operand_load_16816_pairs, b128, 16816)
PFO_OPERAND_LOAD(oracle_operand_load_884, by_address, 884)
PFO_OPERAND_LOAD(oracle_operand_load_884_pairs, b128, 884)
#undef PFO_OPERAND_LOAD
#undef PFO_ACC_STORE_WIDTHS
#undef PFO_ACC_STORE
#undef PFO_TILE_16816
#undef PFO_TILE_884
