// The CPU the generated C++ is blocked for, and the Goto-style cache blocking derived
// from it (seed: llvm-layered-gemm-tiling-packing §3, constraints 1-7).
//
// The compiler only needs cache sizes and the microkernel's register block; the kernels
// (kernels/cpu) choose their own microkernel at run time. default_cpu_target() is a
// fixed description (so emitted code and golden files do not depend on the build
// machine); detect_cpu_target() reads this machine's caches.
#pragma once

#include <cstdint>
#include <string>

#include "frontend/element_type.h"

namespace polyfuse {

// Caches and register block of the target CPU.
struct CpuTarget {
  std::int64_t l1d_bytes = 32 * 1024;   // per core
  std::int64_t l2_bytes = 1024 * 1024;  // per core
  std::int64_t l3_bytes = 32 << 20;     // this core's share
  std::int64_t mr = 16;                 // rows of C in the microkernel's registers (AVX2 16x6)
  std::int64_t nr = 6;                  // columns of C in registers
};

// 32 KiB L1d, 1 MiB L2, 32 MiB L3, a 16x6 register block: a typical x86-64 AVX2 core.
CpuTarget default_cpu_target();

// This machine's cache sizes (sysconf, then /sys/devices/system/cpu/cpu0/cache, else
// the defaults), with the default register block.
CpuTarget detect_cpu_target();

// Block sizes of one loop nest: C is computed in mc x nc blocks (the parallel loops),
// and each block's reduction in kc-deep slices (the BRGEMM batch).
struct CpuBlocking {
  std::int64_t mc = 0;
  std::int64_t nc = 0;
  std::int64_t kc = 0;

  bool operator==(const CpuBlocking&) const = default;
};

// Goto-style blocking for `target`, in powers of two (readable, and multiples of every
// register block), elements counted at 4 bytes (kernels/cpu widens f16/bf16 to f32 in
// its packed panels):
//   kc: a kc x nr panel of B fills half of L1              (LLVM paper constraint 1)
//   mc: an mc x kc block of A fills half of L2              (constraint 3)
//   nc: the f32 mc x nc block of C fills L2, so the last-touch epilogue finds it there
//       (the paper's nc from L3 is larger; the C block is what we fuse on). Each block's
//       BRGEMM packs its rows of A and columns of B once, so wide blocks pack each operand
//       fewer times: at 1024^3, 256 x 1024 blocks pack 5 M elements where 256 x 256 blocks
//       packed 8 M (GEMM + bias + ReLU on one core: 80 -> 85 GFLOP/s of the thread's CPU time)
// clamped to kc in [64, 512], mc in [32, 256], nc in [32, 1024].
CpuBlocking goto_blocking(const CpuTarget& target);

// "mc=256 nc=256 kc=512".
std::string to_string(const CpuBlocking& blocking);

}  // namespace polyfuse
