// Which instruction-set paths this CPU runs, and which one a kernel gets.
#pragma once

#include "polyfuse/cpu/types.h"

namespace polyfuse::cpu {

// True if the path runs on this CPU (and was compiled into this build):
// generic always; avx2 needs AVX2+FMA; avx512 needs AVX-512F; neon is aarch64 only.
bool isa_supported(Isa isa);

// True if this CPU has AVX-512-BF16 (vdpbf16ps), used by avx512 bf16 BRGEMM kernels.
bool cpu_has_avx512_bf16();

// The best supported path, capped by the environment variable POLYFUSE_CPU_ISA
// (generic|avx2|avx512|neon) when it is set: a cap above what the CPU runs is ignored.
Isa best_isa();

// `requested` made concrete: native -> best_isa(); a forced path the CPU cannot run
// throws ConfigError naming `field` ("BrgemmConfig.isa: avx512 is not supported ...").
Isa resolve_isa(Isa requested, const char* field);

}  // namespace polyfuse::cpu
