// Internal: cache sizes of this CPU and the Goto-style cache blocking derived from them
// (seed: llvm-layered-gemm-tiling-packing §3, constraints 1-7).
#pragma once

#include <cstdint>

namespace polyfuse::cpu::detail {

struct CacheSizes {
  int64_t l1d = 32 * 1024;   // bytes, per core
  int64_t l2 = 512 * 1024;   // bytes, per core
  int64_t l3 = 8 << 20;      // bytes, this core's share
};

// Detected once (sysconf, then /sys/devices/system/cpu/cpu0/cache, then the defaults).
const CacheSizes& cache_sizes();

// mc x kc blocks of A (packed into L2), kc x nc blocks of B (one nr-wide panel of it
// in L1, the block in L3), as multiples of the register block mr x nr.
struct Blocking {
  int64_t mc = 0;
  int64_t kc = 0;
  int64_t nc = 0;
};

// kc: a kc x nr panel of B fills half of L1 (the other half holds C and A vectors);
// mc: an mc x kc block of A fills half of L2; nc: a kc x nc block of B fills half of
// this core's L3 share. Clamped to sensible ranges and rounded to mr, nr, k_pack.
Blocking blocking_for(const CacheSizes& caches, int64_t mr, int64_t nr, int64_t k_pack,
                      int64_t element_bytes);

}  // namespace polyfuse::cpu::detail
