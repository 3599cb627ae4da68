// Run-time CPU feature detection and the choice of the ISA path.
#include "polyfuse/cpu/isa.h"

#include <cstdlib>
#include <string>

namespace polyfuse::cpu {

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::native:
    case Isa::generic:
      return true;
    case Isa::avx2:
#if defined(__x86_64__)
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
      return false;
#endif
    case Isa::avx512:
#if defined(__x86_64__)
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f");
#else
      return false;
#endif
    case Isa::neon:
#if defined(__aarch64__)
      return true;
#else
      return false;
#endif
  }
  return false;
}

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

namespace {

int rank(Isa isa) {
  switch (isa) {
    case Isa::generic: return 0;
    case Isa::avx2: return 1;
    case Isa::neon: return 1;
    case Isa::avx512: return 2;
    case Isa::native: return 3;
  }
  return 0;
}

Isa environment_cap() {
  const char* text = std::getenv("POLYFUSE_CPU_ISA");
  if (!text) return Isa::native;
  const std::string value(text);
  for (Isa isa : {Isa::generic, Isa::avx2, Isa::avx512, Isa::neon})
    if (value == to_string(isa)) return isa;
  return Isa::native;
}

}  // namespace

Isa best_isa() {
  const Isa cap = environment_cap();
  for (Isa isa : {Isa::avx512, Isa::avx2, Isa::neon})
    if (isa_supported(isa) && rank(isa) <= rank(cap)) return isa;
  return Isa::generic;
}

Isa resolve_isa(Isa requested, const char* field) {
  if (requested == Isa::native) return best_isa();
  if (!isa_supported(requested))
    throw ConfigError(std::string(field) + ": " + to_string(requested) +
                      " is not supported by this CPU or build");
  return requested;
}

}  // namespace polyfuse::cpu
