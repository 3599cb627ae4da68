// Internal: packing of A and B blocks into the panel order the microkernels stream
// (seed: llvm-layered-gemm-tiling-packing Fig. 2), widening f16/bf16 to f32 on the way
// unless the kernel consumes bf16 pairs.
#pragma once

#include <cstdint>

#include "polyfuse/cpu/types.h"

namespace polyfuse::cpu::detail {

// A strided matrix view: element (r, c) at base[r * rs + c * cs] (elements of dtype).
struct View {
  const void* base;
  DType dtype;
  int64_t rs;
  int64_t cs;
};

// Packs the rows x depth block of A at `a` into ceil(rows / mr) panels. Panel p holds
// rows [p*mr, p*mr + mr) for every k: k_pack == 1: f32 dst[p][k][mr];
// k_pack == 2 (bf16 source only): uint16 dst[p][k/2][mr][2]. Missing rows and the odd
// k of the last pair are zero. Panels are mr * round_up(depth, k_pack) apart.
void pack_a(const View& a, int64_t rows, int64_t depth, int64_t mr, int64_t k_pack,
            void* dst);

// Packs the depth x cols block of B at `b` into ceil(cols / nr) panels: panel q holds
// columns [q*nr, q*nr + nr): k_pack == 1: f32 dst[q][k][nr]; k_pack == 2: uint16
// dst[q][k/2][nr][2]. Missing columns and the odd k are zero.
void pack_b(const View& b, int64_t depth, int64_t cols, int64_t nr, int64_t k_pack,
            void* dst);

}  // namespace polyfuse::cpu::detail
