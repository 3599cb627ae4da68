// Declarations of the probe kernels of layout_oracle_sm90_kernels.cu (compiled for the emulator
// by layout_oracle_sm90_kernels_host.cc). See that file for what each one does.
#pragma once

extern "C" {
void oracle_sm90_swizzle(unsigned* out);
void oracle_sm90_descriptors(const unsigned* fields, unsigned long long* out, int count);
void oracle_sm90_tile(const int* cfg, unsigned* offsets, unsigned long long* descs);
void oracle_sm90_coords(int* out);
#define PFO90_DECLARE_WGMMA(N)                                                                             \
  void oracle_wgmma_ss_f16_n##N(const unsigned short* a, const unsigned short* b, float* d);               \
  void oracle_wgmma_ss_bf16_n##N(const unsigned short* a, const unsigned short* b, float* d);              \
  void oracle_wgmma_rs_f16_n##N(const unsigned* r, const unsigned short* a, const unsigned short* b, float* d); \
  void oracle_wgmma_rs_bf16_n##N(const unsigned* r, const unsigned short* a, const unsigned short* b, float* d);
PFO90_DECLARE_WGMMA(8)
PFO90_DECLARE_WGMMA(16)
PFO90_DECLARE_WGMMA(24)
PFO90_DECLARE_WGMMA(64)
PFO90_DECLARE_WGMMA(128)
PFO90_DECLARE_WGMMA(200)
PFO90_DECLARE_WGMMA(256)
#undef PFO90_DECLARE_WGMMA
void oracle_frag_a_k_none(const unsigned short* a, unsigned* out);
void oracle_frag_a_k_b32(const unsigned short* a, unsigned* out);
void oracle_frag_a_k_b64(const unsigned short* a, unsigned* out);
void oracle_frag_a_k_b128(const unsigned short* a, unsigned* out);
void oracle_frag_a_mn_none(const unsigned short* a, unsigned* out);
void oracle_frag_a_mn_b32(const unsigned short* a, unsigned* out);
void oracle_frag_a_mn_b64(const unsigned short* a, unsigned* out);
void oracle_frag_a_mn_b128(const unsigned short* a, unsigned* out);
void oracle_store_wg_acc_n64(const float* values, float* out);
void oracle_store_wg_acc_n256(const float* values, float* out);
}
