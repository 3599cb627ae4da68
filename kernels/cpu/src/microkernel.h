// Internal: the contract between the BRGEMM drivers (brgemm.cc) and the per-ISA
// microkernel files. Self-contained on purpose (only <cstdint>): the microkernel files
// are compiled with ISA flags (-mavx2, -mavx512f, ...) and must not instantiate any
// inline library code that the linker could share with baseline code.
#pragma once

#include <cstdint>

namespace polyfuse::cpu::detail {

// One call computes a (lanes * mv) x nr block of a column-major f32 C:
//   C[0:mv*lanes, 0:nr] (+)= sum_{i < batch} sum_{p < k} A_i[:, p] * B_i[p, :]
// A's m index is unit stride (a vector load); B elements are broadcast.
// For kernels with k_pack = 2 (bf16 pairs) one step p covers two k and A/B hold pairs.
struct MicroArgs {
  const void* a;
  int64_t a_k;      // elements of A from step p to p+1
  const void* b;
  int64_t b_k;      // elements of B from step p to p+1
  int64_t b_n;      // elements of B from column j to j+1
  float* c;
  int64_t ldc;
  int64_t k;        // steps
  int64_t batch;
  int64_t a_batch;  // elements from A_i to A_{i+1}
  int64_t b_batch;
  int64_t outer = 1;    // BrgemmConfig::outer_batch: the batch again this many times,
  int64_t a_outer = 0;  // A_{o,0} to A_{o+1,0}
  int64_t b_outer = 0;
  int m_tail;       // valid lanes of the last vector (masked kernels only), 1..lanes
  bool load_c;      // false: start from zero instead of C
  // The epilogue of the call that finishes the tile (BrgemmEpilogue), in registers before
  // the store: acc += bias_m[i] (row i of the tile; a vector per v) or bias_n[j] (column j),
  // then acc += addend[i + j * ld_addend], then relu when set. The tile goes to d (ldd) where
  // set, else back to c.
  const float* bias_m = nullptr;
  const float* bias_n = nullptr;
  const float* addend = nullptr;
  int64_t ld_addend = 0;
  bool relu = false;
  float* d = nullptr;
  int64_t ldd = 0;
};

using MicroKernelFn = void (*)(const MicroArgs&);

constexpr int kMaxVectors = 4;   // vectors along m
constexpr int kMaxColumns = 12;  // columns along n

// All instantiations of one ISA's register-blocked microkernel, indexed
// [masked][vectors - 1][columns - 1]; null where a shape is beyond the family's block.
struct KernelFamily {
  int lanes = 0;        // f32 lanes of one vector
  int vectors = 0;      // vectors along m of the full block
  int columns = 0;      // columns of the full block
  int k_pack = 1;       // k values per step (1: f32 panels, 2: bf16 pairs)
  MicroKernelFn fn[2][kMaxVectors][kMaxColumns] = {};
};

// Defined in microkernel_<isa>.cc; a family whose ISA is not compiled in has lanes 0.
// Call one only when the CPU runs its ISA (isa_supported): the getter itself is
// compiled with that ISA's flags.
const KernelFamily& generic_f32_family();
const KernelFamily& avx2_f32_family();
const KernelFamily& avx512_f32_family();
const KernelFamily& avx512_bf16_family();  // vdpbf16ps on bf16 pairs
const KernelFamily& neon_f32_family();

}  // namespace polyfuse::cpu::detail
