// The Hopper test kernels of hopper_kernels.cu as data (names, shapes, dynamic shared memory,
// the tensor maps they take) and their emulator launchers (hopper_kernels_host.cc). The same
// tables drive the emulator tests (hopper_*_emu_test.cc) and the GPU tests (tests/gpu), which
// launch the kernels by name.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "polyfuse_emu/cuda_types.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map_rules.h"

namespace pfh_test {

using polyfuse::tma::TensorMapBytes;

// The probes' A is 64 x kProbeK ([m][k]), B is N x kProbeK ([n][k]); up to 4 k-steps of 16.
constexpr int kProbeK = 64;

// A wgmma probe kernel: hopper_wgmma_{ss,rs}_{f16,bf16}_n<N>_{k,mn}_{k,mn} (one warpgroup;
// A and B copied into canonical tiles of the swizzles given at launch, then k_steps wgmma).
struct WgmmaProbe {
  bool registers;    // the register form (rs): A's fragments loaded with ldmatrix first
  bool bf16;
  int n;
  bool a_mn_major;   // A's tile is M-major (else K-major)
  bool b_mn_major;   // B's tile is N-major
  std::string name() const;
  // Dynamic shared memory of a launch whose B tile has swizzle mode `swizzle_b` (0..3).
  std::size_t shared_bytes(int swizzle_b) const;
};
inline void PrintTo(const WgmmaProbe& p, std::ostream* os) { *os << p.name(); }
// Every probe of hopper_kernels.cu (N = 8, 16, 24, 64, 128, 256; both forms, types, majors).
const std::vector<WgmmaProbe>& wgmma_probes();
// Runs a probe on the emulator (grid 1, block 128): a and b as above (16-bit bits), d 64 x N.
polyfuse::emu::Stats run_wgmma_probe(const WgmmaProbe& p, const unsigned short* a, const unsigned short* b, float* d,
                                     int k_steps, int swizzle_a, int swizzle_b);

// An FP8 wgmma probe kernel: hopper_wgmma_fp8_{e4m3,e5m2}_{e4m3,e5m2}_n<N> (one warpgroup; A
// 64 x 2 kProbeK bytes [m][k] and B N x 2 kProbeK bytes [n][k] of FP8 codes, both K-major, copied
// into canonical tiles of the swizzles given at launch, then k_steps (1 or 4) k32 wgmma).
struct Fp8Probe {
  bool a_e5m2;  // A is e5m2 (else e4m3)
  bool b_e5m2;
  int n;
  std::string name() const;
};
inline void PrintTo(const Fp8Probe& p, std::ostream* os) { *os << p.name(); }
// The FP8 probes of hopper_kernels.cu: e4m3 x e4m3 N = 64, e4m3 x e5m2 N = 128, e5m2 x e4m3 N = 8,
// e5m2 x e5m2 N = 256.
const std::vector<Fp8Probe>& wgmma_fp8_probes();
// Runs an FP8 probe on the emulator (grid 1, block 128): a and b the FP8 bytes as above, d 64 x N.
polyfuse::emu::Stats run_wgmma_fp8_probe(const Fp8Probe& p, const unsigned char* a, const unsigned char* b, float* d,
                                         int k_steps, int swizzle_a, int swizzle_b);

// hopper_tma_load_{2,3}d: one box at coordinates c into shared offset 1024 (mbarrier at 0),
// copied out raw to `out` (box_bytes, a multiple of 16).
std::size_t tma_load_shared_bytes(int box_bytes);
polyfuse::emu::Stats run_tma_load(const TensorMapBytes& map, int rank, const int (&c)[3], unsigned char* out,
                                  int box_bytes, unsigned threads);
// hopper_tma_store_2d: a raw box (`in`, box_bytes) through shared memory, stored by TMA at (c0, c1).
polyfuse::emu::Stats run_tma_store_2d(const TensorMapBytes& map, int c0, int c1, const unsigned char* in,
                                      int box_bytes);
// hopper_thread_load_tile_v<V> (v = 1, 2, 4, 8; v = -2: groups of 2 through the prologue x + 1,
// f16): thread_load_tile<V> of `atoms` boxes {W/2, rows} at (inner0, outer0)
// of src (extent_outer rows of extent_inner elements) with swizzle mode `swizzle`, copied out raw
// to `out` (atoms * rows * W bytes).
polyfuse::emu::Stats run_thread_load_tile(int v, const unsigned short* src, int extent_inner, int extent_outer,
                                          int inner0, int outer0, int rows, int atoms, int swizzle, unsigned char* out,
                                          unsigned threads);
// hopper_mbarrier_phases: out[thread * 10 + i] (see hopper_kernels.cu), 8 bytes of shared memory.
polyfuse::emu::Stats run_mbarrier_phases(int* out, unsigned threads);

// A pipelined GEMM kernel: C (m x n, f32, row-major) = A (m x k, [m][k]) * B, B stored [n][k]
// (K-major) or [k][n] (N-major); block tile 64 x bn x 64, one warpgroup, `stages` stages.
struct GemmConfig {
  std::string name;
  bool bf16;
  int bn;
  bool b_mn_major;
  int swizzle;  // 0..3: none, 32B, 64B, 128B
  int stages;
  std::size_t shared_bytes;
};
inline void PrintTo(const GemmConfig& g, std::ostream* os) { *os << g.name; }
constexpr int kGemmBlockM = 64, kGemmBlockK = 64;
const std::vector<GemmConfig>& gemm_configs();
dim3 gemm_grid(const GemmConfig& g, int m, int n);
// The tensor maps of A (lda elements between rows, a multiple of 8) and B (ldb between the rows
// of its storage order) that the kernel expects.
polyfuse::tma::TiledMapRequest gemm_map_a(const GemmConfig& g, const void* a, int m, int k, int lda);
polyfuse::tma::TiledMapRequest gemm_map_b(const GemmConfig& g, const void* b, int n, int k, int ldb);
polyfuse::emu::Stats run_gemm(const GemmConfig& g, const TensorMapBytes& a, const TensorMapBytes& b, float* c, int m,
                              int n, int k);

}  // namespace pfh_test
