// Portable fallback microkernel: 4-lane GCC/Clang vector extension (SSE2 on x86-64,
// Neon on aarch64, scalar code elsewhere), 8 x 4 block. Compiled with baseline flags.
#define POLYFUSE_UKERNEL_NS generic_ns
#include "microkernel_template.h"

namespace polyfuse::cpu::detail {
namespace generic_ns {
namespace {

typedef float v4 __attribute__((vector_size(16)));

struct Generic {
  using acc = v4;
  using avec = v4;
  using bvec = v4;
  using elem = float;
  using tail_t = int;
  static constexpr int lanes = 4, vectors = 2, columns = 4, k_pack = 1;
  static int make_tail(int n) { return n; }
  static v4 zero() { return v4{0.f, 0.f, 0.f, 0.f}; }
  static v4 load(const float* p) {
    v4 r;
    __builtin_memcpy(&r, p, sizeof r);
    return r;
  }
  static v4 load_n(const float* p, int n) {
    v4 r = zero();
    for (int i = 0; i < n; ++i) r[i] = p[i];
    return r;
  }
  static void store(float* p, v4 x) { __builtin_memcpy(p, &x, sizeof x); }
  static void store_n(float* p, v4 x, int n) {
    for (int i = 0; i < n; ++i) p[i] = x[i];
  }
  static v4 load_c(const float* p) { return load(p); }
  static v4 load_c_n(const float* p, int n) { return load_n(p, n); }
  static void store_c(float* p, v4 x) { store(p, x); }
  static void store_c_n(float* p, v4 x, int n) { store_n(p, x, n); }
  static v4 load_a(const float* p) { return load(p); }
  static v4 load_a_n(const float* p, int n) { return load_n(p, n); }
  static v4 broadcast_b(const float* p) { return v4{*p, *p, *p, *p}; }
  static v4 fma(v4 c, v4 a, v4 b) { return c + a * b; }
  static v4 splat(float x) { return v4{x, x, x, x}; }
  static v4 add(v4 x, v4 y) { return x + y; }
  static v4 relu(v4 x) {  // NaN, -0 -> +0
    for (int i = 0; i < 4; ++i) x[i] = x[i] > 0.f ? x[i] : 0.f;
    return x;
  }
};

}  // namespace
}  // namespace generic_ns

const KernelFamily& generic_f32_family() {
  static const KernelFamily family = generic_ns::make_family<generic_ns::Generic>();
  return family;
}

}  // namespace polyfuse::cpu::detail
