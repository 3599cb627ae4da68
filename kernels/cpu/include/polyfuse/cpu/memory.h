// Pointer helpers of generated CPU code: cache-line alignment of the entry's temporaries, and a
// pointer the compiler keeps instead of recomputing.
#pragma once

#include <cstdint>

namespace polyfuse::cpu {

// `p` rounded up to a cache line boundary (64 bytes): generated code allocates its temporaries
// one line longer and aligns them with this.
template <class T>
T* line_aligned(T* p) {
  return reinterpret_cast<T*>((reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t{63});
}

// `p`, as a value the compiler keeps instead of recomputing it. The address of a thread_local
// array is a call of __tls_get_addr in a shared library, which GCC 12 makes again in every
// iteration of a loop that reads the array (an f16 layer norm's one-pass arithmetic called it for
// every vector of 16 results), even through a pointer initialised from it; a pointer the compiler
// cannot see through is computed once.
template <class T>
T* kept(T* p) {
  asm("" : "+r"(p));
  return p;
}

}  // namespace polyfuse::cpu
