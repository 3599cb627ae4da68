// Shared helpers of the kernels/cuda emulator tests: the test kernels' declarations, random
// 16-bit data, and scalar references.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "polyfuse_emu/cuda_types.h"
#include "polyfuse_emu/fp16.h"

// Kernels of test_kernels.cu (compiled for the emulator in test_kernels_host.cc).
extern "C" {
#define PF_DECLARE_MMA(NAME) void NAME(const void* a, const void* b, float* c);
PF_DECLARE_MMA(mma16816_f16_row_col_2x4)
PF_DECLARE_MMA(mma16816_f16_row_row_2x4)
PF_DECLARE_MMA(mma16816_f16_col_col_2x4)
PF_DECLARE_MMA(mma16816_f16_col_row_2x4)
PF_DECLARE_MMA(mma16816_f16_row_col_1x1)
PF_DECLARE_MMA(mma16816_f16_col_row_4x2)
PF_DECLARE_MMA(mma16816_bf16_row_col_2x4)
PF_DECLARE_MMA(mma16816_bf16_col_row_2x4)
PF_DECLARE_MMA(mma884_16x16x8_row_col)
PF_DECLARE_MMA(mma884_16x16x8_row_row)
PF_DECLARE_MMA(mma884_16x16x8_col_col)
PF_DECLARE_MMA(mma884_16x16x8_col_row)
PF_DECLARE_MMA(mma884_32x32x8_row_col)
PF_DECLARE_MMA(mma884_32x32x8_row_row)
PF_DECLARE_MMA(mma884_32x32x8_col_col)
PF_DECLARE_MMA(mma884_32x32x8_col_row)
PF_DECLARE_MMA(mma_tf32_row_col_2x4)
PF_DECLARE_MMA(mma_tf32_row_row_2x4)
PF_DECLARE_MMA(mma_tf32_col_col_2x4)
PF_DECLARE_MMA(mma_tf32_col_row_2x4)
PF_DECLARE_MMA(mma_3xtf32_row_col_2x4)
PF_DECLARE_MMA(mma_tf32_col_row_2x2)
#undef PF_DECLARE_MMA
void mma_m16n8k8_tf32_layout(const float* a, const float* b, float* c, int swap_a);
void tf32_round_values(const float* in, unsigned* out, int n);
void mma884_16x16x8_row_col_bad_copy(const void* a, const void* b, float* c, int bad_quad_pair, int bad_operand);
#define PF_DECLARE_PARTIAL_COPY(NAME) void NAME(const void* in, long long ld, int rows_valid, int cols_valid, unsigned short* out);
PF_DECLARE_PARTIAL_COPY(partial_copy_all_b128_cp_async)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_b64_cp_async)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_b32_cp_async)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_b16_cp_async)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_by_address_cp_async)
PF_DECLARE_PARTIAL_COPY(partial_copy_none_b128_cp_async)
PF_DECLARE_PARTIAL_COPY(partial_copy_cols_b64_cp_async)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_b128_regs)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_b64_regs)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_b32_regs)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_b16_regs)
PF_DECLARE_PARTIAL_COPY(partial_copy_all_by_address_regs)
PF_DECLARE_PARTIAL_COPY(partial_copy_rows_b32_regs)
#undef PF_DECLARE_PARTIAL_COPY
#define PF_DECLARE_COPY(NAME) void NAME(const void* in, unsigned short* out);
PF_DECLARE_COPY(copy_xor16_64x32_regs)
PF_DECLARE_COPY(copy_xor16_32x64_regs)
PF_DECLARE_COPY(copy_xor16_32x128_regs_trans)
PF_DECLARE_COPY(copy_xor16_64x16_cp_async)
PF_DECLARE_COPY(copy_xor16_64x32_cp_async_trans)
PF_DECLARE_COPY(copy_none_64x32_regs)
PF_DECLARE_COPY(copy_none_32x128_cp_async_trans)
#undef PF_DECLARE_COPY
void gather_xor16_64x32_cp_async(const unsigned short* in, unsigned short* out);
void gather_elements_xor16_64x32(const unsigned short* in, unsigned short* out);
void acc_store_f16_16816(__half* out, int ldo, int split_k, int m_valid, int n_valid);
void acc_store_bf16_16816(__nv_bfloat16* out, int ldo, int split_k, int m_valid, int n_valid);
void acc_store_f32_16816(float* out, int ldo, int split_k, int m_valid, int n_valid);
void acc_store_f16_884(__half* out, int ldo, int split_k, int m_valid, int n_valid);
void pointwise_16816(const float* x, const float* y, const __half* rows, const __nv_bfloat16* cols, float* out,
                     int op, int mode);
void gemm_bias_relu_128x128x32(const __half* A, const __half* B, const __half* bias, __half* C, int M, int N, int K,
                               int relu);
}

namespace pft_test {

inline float to_f(unsigned short bits, bool bf16) {
  return bf16 ? polyfuse::emu::fp16::bfloat16_to_float(bits) : polyfuse::emu::fp16::half_to_float(bits);
}
inline unsigned short from_f(float v, bool bf16) {
  return bf16 ? polyfuse::emu::fp16::float_to_bfloat16(v) : polyfuse::emu::fp16::float_to_half(v);
}

// n random 16-bit values in [-1, 1] (f16 or bf16 bits).
inline std::vector<unsigned short> random_bits(std::size_t n, bool bf16, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<unsigned short> v(n);
  for (auto& x : v) x = from_f(dist(rng), bf16);
  return v;
}

// Dense storage of a rows x cols matrix M in layout row (M[r][c] at r*cols + c) or col.
inline std::size_t at(bool row_major, int rows, int cols, int r, int c) {
  return row_major ? static_cast<std::size_t>(r) * cols + c : static_cast<std::size_t>(c) * rows + r;
}

}  // namespace pft_test
