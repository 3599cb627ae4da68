// Declarations of the probe kernels of layout_oracle_kernels.cu (compiled for the emulator
// by layout_oracle_kernels_host.cc). See that file for what each one does.
#pragma once

#include "polyfuse_emu/cuda_types.h"
#include "polyfuse_emu/fp16.h"

extern "C" {
#define PFO_DECLARE_MMA(NAME) void NAME(const unsigned* a, const unsigned* b, float* d);
PFO_DECLARE_MMA(oracle_mma16816_f16)
PFO_DECLARE_MMA(oracle_mma16816_bf16)
PFO_DECLARE_MMA(oracle_mma16816_f16_tile2x2)
PFO_DECLARE_MMA(oracle_mma16816_f16_fragments2x2)
#define PFO_DECLARE_MMA884(LA, LB)                     \
  PFO_DECLARE_MMA(oracle_mma884_16x16x8_##LA##_##LB)   \
  PFO_DECLARE_MMA(oracle_mma884_32x32x8_##LA##_##LB)   \
  PFO_DECLARE_MMA(oracle_mma884_macro32x32x8_##LA##_##LB)
PFO_DECLARE_MMA884(row, row)
PFO_DECLARE_MMA884(row, col)
PFO_DECLARE_MMA884(col, row)
PFO_DECLARE_MMA884(col, col)
#undef PFO_DECLARE_MMA884
#undef PFO_DECLARE_MMA

#define PFO_DECLARE_LDMATRIX(NAME) void NAME(const unsigned short* rows, int row_count, const int* lane_row, unsigned* out);
PFO_DECLARE_LDMATRIX(oracle_ldmatrix_x1)
PFO_DECLARE_LDMATRIX(oracle_ldmatrix_x2)
PFO_DECLARE_LDMATRIX(oracle_ldmatrix_x4)
PFO_DECLARE_LDMATRIX(oracle_ldmatrix_x1_trans)
PFO_DECLARE_LDMATRIX(oracle_ldmatrix_x2_trans)
PFO_DECLARE_LDMATRIX(oracle_ldmatrix_x4_trans)
#undef PFO_DECLARE_LDMATRIX

#define PFO_DECLARE_LOAD_FRAG(NAME) void NAME(const unsigned short* tile, int r0, int c0, unsigned* out);
PFO_DECLARE_LOAD_FRAG(oracle_load_frag_a_row)
PFO_DECLARE_LOAD_FRAG(oracle_load_frag_a_col)
PFO_DECLARE_LOAD_FRAG(oracle_load_frag_b_col)
PFO_DECLARE_LOAD_FRAG(oracle_load_frag_b_row)
PFO_DECLARE_LOAD_FRAG(oracle_load_frag_a884_row)
PFO_DECLARE_LOAD_FRAG(oracle_load_frag_a884_col)
PFO_DECLARE_LOAD_FRAG(oracle_load_frag_b884_col)
PFO_DECLARE_LOAD_FRAG(oracle_load_frag_b884_row)
#undef PFO_DECLARE_LOAD_FRAG

void oracle_coord_16816(int* out);
void oracle_coord_884(int* out);

#define PFO_DECLARE_ACC_STORE(NAME, OUT_T)          \
  void NAME##_b128(OUT_T* out, int ldo, int pass);  \
  void NAME##_b64(OUT_T* out, int ldo, int pass);   \
  void NAME##_b32(OUT_T* out, int ldo, int pass);   \
  void NAME##_b16(OUT_T* out, int ldo, int pass);
PFO_DECLARE_ACC_STORE(oracle_acc_store_f32_16816, float)
PFO_DECLARE_ACC_STORE(oracle_acc_store_f16_16816, __half)
PFO_DECLARE_ACC_STORE(oracle_acc_store_bf16_16816, __nv_bfloat16)
PFO_DECLARE_ACC_STORE(oracle_acc_store_f32_884, float)
PFO_DECLARE_ACC_STORE(oracle_acc_store_f16_884, __half)
PFO_DECLARE_ACC_STORE(oracle_acc_store_bf16_884, __nv_bfloat16)
#undef PFO_DECLARE_ACC_STORE

void oracle_resident_tile_32(const float* values, float* out, int col0, int cols_valid);
void oracle_resident_tile_64(const float* values, float* out, int col0, int cols_valid);

#define PFO_DECLARE_OPERAND_LOAD(NAME) void NAME(const float* mat, const float* vec, float* out, int mode);
PFO_DECLARE_OPERAND_LOAD(oracle_operand_load_16816)
PFO_DECLARE_OPERAND_LOAD(oracle_operand_load_16816_pairs)
PFO_DECLARE_OPERAND_LOAD(oracle_operand_load_884)
PFO_DECLARE_OPERAND_LOAD(oracle_operand_load_884_pairs)
#undef PFO_DECLARE_OPERAND_LOAD
}
