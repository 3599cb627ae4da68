// Test kernels for the kernels/cuda helpers. The same file is compiled
//   * as C++ against the emulation header (kernels_cuda_emu_tests),
//   * by NVRTC and nvcc for sm_80 / sm_90 (compile tests, no spills),
//   * by NVRTC for the GPU test target (tests/gpu), when a GPU is present.
// Every kernel is extern "C" with pointer/int parameters; names encode shape and layout.
#include "polyfuse_cuda.cuh"

namespace pft {

// ---- warp MMA, m16n8k16: one warp, A (16MT x K) x B (K x 8NT), K = 32 ---------------------
// A/B are dense in global memory in layout LA/LB; C is row-major f32 (16MT x 8NT).
template <class T, pf::Layout LA, pf::Layout LB, int MT, int NT>
__device__ void mma16816_body(const void* a, const void* b, float* c) {
  constexpr int M = 16 * MT, N = 8 * NT, K = 32;
  constexpr int A_COLS = LA == pf::Layout::row ? K : M, A_ROWS = M * K / A_COLS;
  constexpr int B_COLS = LB == pf::Layout::row ? N : K, B_ROWS = N * K / B_COLS;
  PF_DYNAMIC_SHARED(smem);
  unsigned char* a_tile = smem;
  unsigned char* b_tile = smem + 2 * M * K;
  unsigned char* scratch = b_tile + 2 * N * K;
  const int tid = threadIdx.x;
  pf::cp_async_tile<pf::Swizzle::xor16, A_ROWS, A_COLS, 32>(a_tile, a, A_COLS, A_ROWS, A_COLS, tid);
  pf::cp_async_tile<pf::Swizzle::xor16, B_ROWS, B_COLS, 32>(b_tile, b, B_COLS, B_ROWS, B_COLS, tid);
  pf::cp_async_commit();
  pf::cp_async_wait_all();
  __syncthreads();
  pf::AccTile16816<MT, NT> acc;
  pf::tile::fill(acc, 0.f);
  for (int k0 = 0; k0 < K; k0 += 16) {
    pf::FragA16x16 fa[MT];
    pf::FragB16x8 fb[NT];
    pf::load_frag_a<LA, pf::Swizzle::xor16, A_COLS, MT>(fa, a_tile, 0, k0);
    pf::load_frag_b<LB, pf::Swizzle::xor16, B_COLS, NT>(fb, b_tile, k0, 0);
    pf::mma_16816<T, MT, NT>(acc, fa, fb);
  }
  if constexpr (NT % 2 == 0) {
    pf::store_accumulators<float>(acc, scratch, c, N, M, N, 1, 0, 0, 1);
  } else {
    const unsigned lane = pf::lane_id();
    for (int i = 0; i < pf::AccTile16816<MT, NT>::count; ++i) {
      int r, col;
      pf::AccTile16816<MT, NT>::coord(lane, i, r, col);
      pf::stg(c + r * N + col, acc.v[i]);
    }
  }
}

// ---- macro-MMA from m8n8k4: one warp, A (16MT x 16) x B (16 x 16NT) ----------------------
// bad_quad_pair >= 0 plants a fragment-load bug in one copy of the duplicated operands: the
// lanes of that quad pair repeat their first A (bad_operand 0) or B (1) register in the
// second (k 2, 3 read as k 0, 1); the other quad pair holding the same rows or columns keeps
// them right.
template <pf::Layout LA, pf::Layout LB, int MT, int NT>
__device__ void mma884_body(const void* a, const void* b, float* c, int bad_quad_pair = -1, int bad_operand = 0) {
  constexpr int M = 16 * MT, N = 16 * NT, K = 16;
  constexpr int A_COLS = LA == pf::Layout::row ? K : M, A_ROWS = M * K / A_COLS;
  constexpr int B_COLS = LB == pf::Layout::row ? N : K, B_ROWS = N * K / B_COLS;
  PF_DYNAMIC_SHARED(smem);
  unsigned char* a_tile = smem;
  unsigned char* b_tile = smem + 2 * M * K;
  unsigned char* scratch = b_tile + 2 * N * K;
  const int tid = threadIdx.x;
  pf::TileRegs<A_ROWS, A_COLS, 32> ra;
  pf::TileRegs<B_ROWS, B_COLS, 32> rb;
  pf::load_tile_global(ra, a, A_COLS, A_ROWS, A_COLS, tid);
  pf::load_tile_global(rb, b, B_COLS, B_ROWS, B_COLS, tid);
  pf::store_tile_shared<pf::Swizzle::xor16>(a_tile, ra, tid);
  pf::store_tile_shared<pf::Swizzle::xor16>(b_tile, rb, tid);
  __syncthreads();
  pf::AccTile884<MT, NT> acc;
  pf::tile::fill(acc, 0.f);
  for (int k0 = 0; k0 < K; k0 += 8) {
    pf::FragA884 fa[MT];
    pf::FragB884 fb[NT];
    pf::load_frag_a884<LA, pf::Swizzle::xor16, A_COLS, MT>(fa, a_tile, 0, k0);
    pf::load_frag_b884<LB, pf::Swizzle::xor16, B_COLS, NT>(fb, b_tile, k0, 0);
    if (static_cast<int>((pf::lane_id() >> 2) & 3) == bad_quad_pair) {
      for (int i = 0; i < MT; ++i)
        if (bad_operand == 0) fa[i].x[1] = fa[i].x[0];
      for (int j = 0; j < NT; ++j)
        if (bad_operand == 1) fb[j].x[1] = fb[j].x[0];
    }
    pf::mma_884<LA, LB, MT, NT>(acc, fa, fb);
  }
  pf::store_accumulators<float>(acc, scratch, c, N, M, N, 1, 0, 0, 1);
}

// ---- copies: global → (registers | cp.async) → shared (swizzle S) → ldmatrix → global -----
// 128 threads; tile ROWS x COLS f16; each warp reads 16x16 blocks with ldmatrix (.trans when
// TRANS) and writes every element back at its logical position: out == in (TRANS: in^T).
template <pf::Swizzle S, int ROWS, int COLS, bool CP_ASYNC, bool TRANS>
__device__ void copy_roundtrip_body(const void* in, unsigned short* out) {
  PF_DYNAMIC_SHARED(smem);
  const int tid = threadIdx.x;
  if constexpr (CP_ASYNC) {
    pf::cp_async_tile<S, ROWS, COLS, 128>(smem, in, COLS, ROWS, COLS, tid);
    pf::cp_async_commit();
    pf::cp_async_wait<0>();
  } else {
    pf::TileRegs<ROWS, COLS, 128> regs;
    pf::load_tile_global(regs, in, COLS, ROWS, COLS, tid);
    pf::store_tile_shared<S>(smem, regs, tid);
  }
  __syncthreads();
  const int warp = tid / 32, lane = tid % 32;
  const int q = lane >> 3, r = lane & 7;
  constexpr int blocks = (ROWS / 16) * (COLS / 16);
  for (int blk = warp; blk < blocks; blk += 4) {
    const int r0 = 16 * (blk / (COLS / 16)), c0 = 16 * (blk % (COLS / 16));
    unsigned d[4];
    // matrix q: rows r0 + 8*(q&1) .., columns c0 + 8*(q>>1)
    pf::ldmatrix_x4<TRANS>(d, pf::tile_address<S, COLS>(smem, r0 + 8 * (q & 1) + r, c0 + 8 * (q >> 1)));
    for (int m = 0; m < 4; ++m) {
      const int mr = r0 + 8 * (m & 1), mc = c0 + 8 * (m >> 1);
      for (int h = 0; h < 2; ++h) {
        const unsigned short v = static_cast<unsigned short>(h ? d[m] >> 16 : d[m] & 0xffffu);
        // ldmatrix: lane gets (row lane/4, col 2*(lane%4)+h); .trans: (row 2*(lane%4)+h, col lane/4)
        const int row = TRANS ? mr + 2 * (lane % 4) + h : mr + lane / 4;
        const int col = TRANS ? mc + lane / 4 : mc + 2 * (lane % 4) + h;
        if (TRANS)
          pf::stg(out + col * ROWS + row, v);
        else
          pf::stg(out + row * COLS + col, v);
      }
    }
  }
}

// ---- accumulator store with split-K: 2 warps per split, SPLIT splits ----------------------
// Warp (s, w) holds acc(r, c) = value(s, w, r, c); the output (w's 32x32 tile at column 32w)
// must hold sum over s, converted to OutT. m_valid/n_valid clip the stored region.
__device__ inline float acc_value(int s, int w, int r, int c) {
  return 0.25f * static_cast<float>(((r * 7 + c * 3 + w * 5) % 17) - 8) + 0.125f * static_cast<float>(s + 1);
}
template <class OutT, class Tile>
__device__ void acc_store_body(OutT* out, int ldo, int split_k, int m_valid, int n_valid) {
  PF_DYNAMIC_SHARED(smem);
  const int warp = threadIdx.x / 32;
  const int s = warp / 2, w = warp % 2;
  const unsigned lane = pf::lane_id();
  Tile acc;
  for (int i = 0; i < Tile::count; ++i) {
    int r, c;
    Tile::coord(lane, i, r, c);
    acc.v[i] = acc_value(s, w, r, c);
  }
  pf::store_accumulators<OutT>(acc, smem, out + w * Tile::cols, ldo, m_valid, n_valid - w * Tile::cols, split_k, s, w, 2);
}

// ---- pointwise: one warp, 32x32 tile; t = x (op) y, y a matrix / row vector / column vector --
__device__ inline float apply_op(int op, pf::AccTile16816<2, 4>& t, const pf::AccTile16816<2, 4>& u) {
  switch (op) {
    case 0: pf::tile::add(t, u); break;
    case 1: pf::tile::sub(t, u); break;
    case 2: pf::tile::mul(t, u); break;
    case 3: pf::tile::div(t, u); break;
    case 4: pf::tile::max(t, u); break;
    case 5: pf::tile::min(t, u); break;
    case 6: pf::tile::relu(t); break;
    case 7: pf::tile::sigmoid(t); break;
    case 8: pf::tile::tanh(t); break;
    case 9: pf::tile::gelu(t); break;
    case 10: pf::tile::exp(t); break;
    case 11: pf::tile::add(t, 0.5f); break;
    default: break;
  }
  return 0.f;
}

// ---- f32 operands on tensor cores (pf_mma_tf32.cuh) --------------------------------------
// One warp, A (16MT x 32) x B (32 x 8NT) f32, dense in global memory in layout LA/LB; C is
// row-major f32. The same path as generated kernels: cp.async tile copies, 32-bit fragment
// loads from the swizzled tiles, the f32 macro-MMA in MODE.
template <pf::F32Mma MODE, pf::Layout LA, pf::Layout LB, int MT, int NT>
__device__ void mma_f32_body(const void* a, const void* b, float* c) {
  constexpr int M = 16 * MT, N = 8 * NT, K = 32;
  constexpr int A_COLS = LA == pf::Layout::row ? K : M, A_ROWS = M * K / A_COLS;
  constexpr int B_COLS = LB == pf::Layout::row ? N : K, B_ROWS = N * K / B_COLS;
  PF_DYNAMIC_SHARED(smem);
  unsigned char* a_tile = smem;
  unsigned char* b_tile = smem + 4 * M * K;
  const int tid = threadIdx.x;
  pf::cp_async_tile_f32<pf::Swizzle::xor16, A_ROWS, A_COLS, 32>(a_tile, static_cast<const float*>(a), A_COLS, A_ROWS,
                                                                A_COLS, tid);
  pf::cp_async_tile_f32<pf::Swizzle::xor16, B_ROWS, B_COLS, 32>(b_tile, static_cast<const float*>(b), B_COLS, B_ROWS,
                                                                B_COLS, tid);
  pf::cp_async_commit();
  pf::cp_async_wait_all();
  __syncthreads();
  pf::AccTile16816<MT, NT> acc;
  pf::tile::fill(acc, 0.f);
  for (int k0 = 0; k0 < K; k0 += 16) {
    pf::FragA16x16F32 fa[MT];
    pf::FragB16x8F32 fb[NT];
    pf::load_frag_a_f32<LA, pf::Swizzle::xor16, A_COLS, MT>(fa, a_tile, 0, k0);
    pf::load_frag_b_f32<LB, pf::Swizzle::xor16, B_COLS, NT>(fb, b_tile, k0, 0);
    for (int i = 0; i < MT; ++i)
      for (int j = 0; j < NT; ++j) pf::mma_fragment_f32<MODE>(acc, i, j, fa[i], fb[j]);
  }
  const unsigned lane = pf::lane_id();
  for (int i = 0; i < pf::AccTile16816<MT, NT>::count; ++i) {
    int r, col;
    pf::AccTile16816<MT, NT>::coord(lane, i, r, col);
    pf::stg(c + r * N + col, acc.v[i]);
  }
}
}  // namespace pft

// One mma.m16n8k8.tf32 on A (16x8, row-major) and B (8x8, [k][n]) already TF32, each lane
// loading its registers from global memory by the PTX ISA's fragment layout (independent of
// the helpers' loads); C (16x8) row-major. swap_a >= 0 plants a layout bug: registers
// a[swap_a] and a[swap_a ^ 1] trade places.
extern "C" __global__ void mma_m16n8k8_tf32_layout(const float* a, const float* b, float* c, int swap_a) {
  const int lane = static_cast<int>(pf::lane_id()), g = lane >> 2, t = lane & 3;
  unsigned ra[4], rb[2];
  for (int i = 0; i < 4; ++i) ra[i] = __float_as_uint(pf::ldg(a + (g + 8 * (i & 1)) * 8 + t + 4 * (i >> 1)));
  for (int i = 0; i < 2; ++i) rb[i] = __float_as_uint(pf::ldg(b + (t + 4 * i) * 8 + g));
  if (swap_a >= 0) {
    const unsigned x = ra[swap_a];
    ra[swap_a] = ra[swap_a ^ 1];
    ra[swap_a ^ 1] = x;
  }
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  pf::mma_m16n8k8_tf32(d, ra, rb);
  for (int e = 0; e < 4; ++e) pf::stg(c + (g + 8 * (e >> 1)) * 8 + 2 * t + (e & 1), d[e]);
}

// cvt.rna.tf32.f32 of n values (one thread each, n <= 32).
extern "C" __global__ void tf32_round_values(const float* in, unsigned* out, int n) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < n) pf::stg(out + i, pf::tf32_round(pf::ldg(in + i)));
}

#define PF_MMA_F32(NAME, MODE, LA, LB, MT, NT)                                                 \
  extern "C" __global__ void NAME(const void* a, const void* b, float* c) {                    \
    pft::mma_f32_body<pf::F32Mma::MODE, pf::Layout::LA, pf::Layout::LB, MT, NT>(a, b, c);      \
  }
PF_MMA_F32(mma_tf32_row_col_2x4, tf32, row, col, 2, 4)
PF_MMA_F32(mma_tf32_row_row_2x4, tf32, row, row, 2, 4)
PF_MMA_F32(mma_tf32_col_col_2x4, tf32, col, col, 2, 4)
PF_MMA_F32(mma_tf32_col_row_2x4, tf32, col, row, 2, 4)
PF_MMA_F32(mma_3xtf32_row_col_2x4, x3tf32, row, col, 2, 4)
PF_MMA_F32(mma_tf32_col_row_2x2, tf32, col, row, 2, 2)  // B's tile rows of 4 chunks: the generic address
#undef PF_MMA_F32

#define PF_MMA16816(NAME, T, LA, LB, MT, NT)                                                   \
  extern "C" __global__ void NAME(const void* a, const void* b, float* c) {                    \
    pft::mma16816_body<T, pf::Layout::LA, pf::Layout::LB, MT, NT>(a, b, c);                    \
  }
PF_MMA16816(mma16816_f16_row_col_2x4, __half, row, col, 2, 4)
PF_MMA16816(mma16816_f16_row_row_2x4, __half, row, row, 2, 4)
PF_MMA16816(mma16816_f16_col_col_2x4, __half, col, col, 2, 4)
PF_MMA16816(mma16816_f16_col_row_2x4, __half, col, row, 2, 4)
PF_MMA16816(mma16816_f16_row_col_1x1, __half, row, col, 1, 1)
PF_MMA16816(mma16816_f16_col_row_4x2, __half, col, row, 4, 2)
PF_MMA16816(mma16816_bf16_row_col_2x4, __nv_bfloat16, row, col, 2, 4)
PF_MMA16816(mma16816_bf16_col_row_2x4, __nv_bfloat16, col, row, 2, 4)
#undef PF_MMA16816

#define PF_MMA884(NAME, LA, LB, MT)                                                            \
  extern "C" __global__ void NAME(const void* a, const void* b, float* c) {                    \
    pft::mma884_body<pf::Layout::LA, pf::Layout::LB, MT, MT>(a, b, c);                         \
  }
PF_MMA884(mma884_16x16x8_row_col, row, col, 1)
PF_MMA884(mma884_16x16x8_row_row, row, row, 1)
PF_MMA884(mma884_16x16x8_col_col, col, col, 1)
PF_MMA884(mma884_16x16x8_col_row, col, row, 1)
PF_MMA884(mma884_32x32x8_row_col, row, col, 2)
PF_MMA884(mma884_32x32x8_row_row, row, row, 2)
PF_MMA884(mma884_32x32x8_col_col, col, col, 2)
PF_MMA884(mma884_32x32x8_col_row, col, row, 2)
#undef PF_MMA884
extern "C" __global__ void mma884_16x16x8_row_col_bad_copy(const void* a, const void* b, float* c, int bad_quad_pair,
                                                          int bad_operand) {
  pft::mma884_body<pf::Layout::row, pf::Layout::col, 1, 1>(a, b, c, bad_quad_pair, bad_operand);
}

// ---- partial tiles: a 32x64 tile at the top left of a rows_valid x cols_valid matrix with
// leading dimension ld, copied (CHECK, WIDTH; cp.async or registers) to shared memory and
// written back whole: out (32x64) holds the valid part, zeros elsewhere.
namespace pft {
template <pf::Check CHECK, pf::Width WIDTH, bool CP_ASYNC>
__device__ void partial_copy_body(const void* in, long long ld, int rows_valid, int cols_valid, unsigned short* out) {
  PF_DYNAMIC_SHARED(smem);
  const int tid = threadIdx.x;
  if constexpr (CP_ASYNC) {
    pf::cp_async_tile<pf::Swizzle::none, 32, 64, 128, CHECK, WIDTH>(smem, in, ld, rows_valid, cols_valid, tid);
    pf::cp_async_commit();
    pf::cp_async_wait<0>();
  } else {
    pf::TileRegs<32, 64, 128> regs;
    pf::load_tile_global<CHECK, WIDTH>(regs, in, ld, rows_valid, cols_valid, tid);
    pf::store_tile_shared<pf::Swizzle::none>(smem, regs, tid);
  }
  __syncthreads();
  const unsigned short* tile = reinterpret_cast<const unsigned short*>(smem);
  for (int i = tid; i < 32 * 64; i += 128) pf::stg(out + i, pf::lds(tile + i));
}
}  // namespace pft

#define PF_PARTIAL_COPY(NAME, CHECK, WIDTH, CP)                                                          \
  extern "C" __global__ void NAME(const void* in, long long ld, int rows_valid, int cols_valid,          \
                                  unsigned short* out) {                                                 \
    pft::partial_copy_body<pf::Check::CHECK, pf::Width::WIDTH, CP>(in, ld, rows_valid, cols_valid, out); \
  }
PF_PARTIAL_COPY(partial_copy_all_b128_cp_async, all, b128, true)
PF_PARTIAL_COPY(partial_copy_all_b64_cp_async, all, b64, true)
PF_PARTIAL_COPY(partial_copy_all_b32_cp_async, all, b32, true)
PF_PARTIAL_COPY(partial_copy_all_b16_cp_async, all, b16, true)
PF_PARTIAL_COPY(partial_copy_all_by_address_cp_async, all, by_address, true)
PF_PARTIAL_COPY(partial_copy_none_b128_cp_async, none, b128, true)
PF_PARTIAL_COPY(partial_copy_cols_b64_cp_async, cols, b64, true)
PF_PARTIAL_COPY(partial_copy_all_b128_regs, all, b128, false)
PF_PARTIAL_COPY(partial_copy_all_b64_regs, all, b64, false)
PF_PARTIAL_COPY(partial_copy_all_b32_regs, all, b32, false)
PF_PARTIAL_COPY(partial_copy_all_b16_regs, all, b16, false)
PF_PARTIAL_COPY(partial_copy_all_by_address_regs, all, by_address, false)
PF_PARTIAL_COPY(partial_copy_rows_b32_regs, rows, b32, false)
#undef PF_PARTIAL_COPY

// ---- the implicit GEMM's gathered copy (pf_gather_copy.cuh): chunk (row, col..col+7) of a
// 64x32 tile from row (5 * row) % 64 of a 64x64 source at the same columns + 8, zero where
// (row + col / 8) % 3 == 0 or row >= 60 (nullptr: nothing read); the tile written back whole.
// The rows decomposed once (gather_rows: the source row, -1 past 60), the column per copy.
namespace pft {
PF_DEVICE void write_back_tile(const unsigned char* smem, unsigned short* out) {
  for (int i = threadIdx.x; i < 64 * 32; i += 128)
    pf::stg(out + i, pf::lds(reinterpret_cast<const unsigned short*>(pf::tile_address<pf::Swizzle::xor16, 32>(smem, i / 32, i % 32))));
}
}  // namespace pft
extern "C" __global__ void gather_xor16_64x32_cp_async(const unsigned short* in, unsigned short* out) {
  PF_DYNAMIC_SHARED(smem);
  const auto row_of = [](int row) { return row >= 60 ? -1 : row; };
  const auto tap_of = [](int col) { return col; };
  const auto at = [&](int row, int col) -> const unsigned short* {
    if (row < 0 || (row + col / 8) % 3 == 0) return nullptr;
    return in + (5 * row) % 64 * 64 + col + 8;
  };
  const auto rows = pf::gather_rows<64, 32, 128>(row_of, 0, threadIdx.x);
  pf::cp_async_gather_tile<pf::Swizzle::xor16, 64, 32, 128>(smem, rows, tap_of, at, 0, in, threadIdx.x);
  pf::cp_async_commit();
  pf::cp_async_wait<0>();
  __syncthreads();
  pft::write_back_tile(smem, out);
}
// The same element by element (gather_tile_elements, C = 3's copy): element (row, col) from row
// (5 * row) % 64 at column col + 8, zero where (row + col) % 3 == 0, row >= 60 or col >= 27
// (the K tail, past the GEMM's end).
extern "C" __global__ void gather_elements_xor16_64x32(const unsigned short* in, unsigned short* out) {
  PF_DYNAMIC_SHARED(smem);
  const auto row_of = [](int row) { return row >= 60 ? -1 : row; };
  const auto tap_of = [](int col) { return col >= 27 ? -1 : col; };
  const auto at = [&](int row, int col) -> const unsigned short* {
    if (row < 0 || col < 0 || (row + col) % 3 == 0) return nullptr;
    return in + (5 * row) % 64 * 64 + col + 8;
  };
  const auto rows = pf::gather_rows<64, 32, 128>(row_of, 0, threadIdx.x);
  pf::gather_tile_elements<pf::Swizzle::xor16, 64, 32, 128>(smem, rows, tap_of, at, 0, threadIdx.x);
  __syncthreads();
  pft::write_back_tile(smem, out);
}

#define PF_COPY(NAME, S, ROWS, COLS, CP, TRANS)                                                \
  extern "C" __global__ void NAME(const void* in, unsigned short* out) {                       \
    pft::copy_roundtrip_body<pf::Swizzle::S, ROWS, COLS, CP, TRANS>(in, out);                  \
  }
PF_COPY(copy_xor16_64x32_regs, xor16, 64, 32, false, false)
PF_COPY(copy_xor16_32x64_regs, xor16, 32, 64, false, false)
PF_COPY(copy_xor16_32x128_regs_trans, xor16, 32, 128, false, true)
PF_COPY(copy_xor16_64x16_cp_async, xor16, 64, 16, true, false)
PF_COPY(copy_xor16_64x32_cp_async_trans, xor16, 64, 32, true, true)
PF_COPY(copy_none_64x32_regs, none, 64, 32, false, false)
PF_COPY(copy_none_32x128_cp_async_trans, none, 32, 128, true, true)
#undef PF_COPY

extern "C" __global__ void acc_store_f16_16816(__half* out, int ldo, int split_k, int m_valid, int n_valid) {
  pft::acc_store_body<__half, pf::AccTile16816<2, 4>>(out, ldo, split_k, m_valid, n_valid);
}
extern "C" __global__ void acc_store_bf16_16816(__nv_bfloat16* out, int ldo, int split_k, int m_valid, int n_valid) {
  pft::acc_store_body<__nv_bfloat16, pf::AccTile16816<2, 4>>(out, ldo, split_k, m_valid, n_valid);
}
extern "C" __global__ void acc_store_f32_16816(float* out, int ldo, int split_k, int m_valid, int n_valid) {
  pft::acc_store_body<float, pf::AccTile16816<2, 4>>(out, ldo, split_k, m_valid, n_valid);
}
extern "C" __global__ void acc_store_f16_884(__half* out, int ldo, int split_k, int m_valid, int n_valid) {
  pft::acc_store_body<__half, pf::AccTile884<2, 2>>(out, ldo, split_k, m_valid, n_valid);
}

// x, y: 32x32 f32 row-major; rows/cols: 32-element vectors; mode 0: y matrix, 1: rows
// vector (y(r,c) = rows[r]), 2: cols vector (y(r,c) = cols[c]), 3 and 4: modes 0 and 2 with
// pair loads (Width::b128: one 64-bit / 32-bit access per adjacent pair). out = x (op) y, f32.
extern "C" __global__ void pointwise_16816(const float* x, const float* y, const __half* rows, const __nv_bfloat16* cols,
                                           float* out, int op, int mode) {
  PF_DYNAMIC_SHARED(smem);
  pf::AccTile16816<2, 4> t, u;
  pf::load_matrix(t, x, 32, 32, 32);
  if (mode == 0) pf::load_matrix(u, y, 32, 32, 32);
  if (mode == 1) pf::load_broadcast_rows(u, rows, 32);
  if (mode == 2) pf::load_broadcast_cols(u, cols, 32);
  if (mode == 3) pf::load_matrix<pf::Check::none, pf::Width::b128>(u, y, 32, 32, 32);
  if (mode == 4) pf::load_broadcast_cols<pf::Check::none, pf::Width::b128>(u, cols, 32);
  pft::apply_op(op, t, u);
  pf::store_accumulators<float>(t, smem, out, 32, 32, 32, 1, 0, 0, 1);
}

// GEMM + bias + ReLU (bias nullable, relu 0/1): C (MxN, f16) = A (MxK f16, row) x B (KxN f16,
// row) with 128x128x32 block tiles, 8 warps of 64x32 (2 x 4), cp.async, arbitrary M, N, K
// (K multiple of 8 for 16-byte aligned rows; partial tiles zero-filled and masked).
extern "C" __global__ void __launch_bounds__(256) gemm_bias_relu_128x128x32(const __half* A, const __half* B,
                                                                             const __half* bias, __half* C, int M,
                                                                             int N, int K, int relu) {
  constexpr int BM = 128, BN = 128, BK = 32, MT = 4, NT = 4;
  PF_DYNAMIC_SHARED(smem);
  unsigned char* a_tile = smem;                 // [BM][BK] f16, 8 KiB
  unsigned char* b_tile = smem + 2 * BM * BK;   // [BK][BN] f16, 8 KiB
  unsigned char* scratch = b_tile + 2 * BK * BN;  // 8 warps x 1 KiB
  const int tid = threadIdx.x, warp = tid / 32;
  const int wm = warp / 4, wn = warp % 4;       // warp tile 64x32 at (64 wm, 32 wn)
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  pf::AccTile16816<MT, NT> acc;
  pf::tile::fill(acc, 0.f);
  for (int k0 = 0; k0 < K; k0 += BK) {
    // global → shared (cp.async, zero-filled outside the matrices)
    pf::cp_async_tile<pf::Swizzle::xor16, BM, BK, 256>(a_tile, A + m0 * K + k0, K, M - m0, K - k0, tid);
    pf::cp_async_tile<pf::Swizzle::xor16, BK, BN, 256>(b_tile, B + k0 * N + n0, N, K - k0, N - n0, tid);
    pf::cp_async_commit();
    pf::cp_async_wait<0>();
    __syncthreads();
    // shared → fragments → warp MMA
    for (int kk = 0; kk < BK; kk += 16) {
      pf::FragA16x16 fa[MT];
      pf::FragB16x8 fb[NT];
      pf::load_frag_a<pf::Layout::row, pf::Swizzle::xor16, BK, MT>(fa, a_tile, 64 * wm, kk);
      pf::load_frag_b<pf::Layout::row, pf::Swizzle::xor16, BN, NT>(fb, b_tile, kk, 32 * wn);
      pf::mma_16816<__half, MT, NT>(acc, fa, fb);
    }
    __syncthreads();
  }
  // epilogue: bias, ReLU, store
  const int wrow = m0 + 64 * wm, wcol = n0 + 32 * wn;
  if (bias) {
    pf::AccTile16816<MT, NT> b;
    pf::load_broadcast_cols(b, bias + wcol, N - wcol);
    pf::tile::add(acc, b);
  }
  if (relu) pf::tile::relu(acc);
  pf::store_accumulators<__half>(acc, scratch, C + wrow * N + wcol, N, M - wrow, N - wcol, 1, 0, warp, 8);
}
