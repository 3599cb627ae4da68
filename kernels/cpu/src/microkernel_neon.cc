// Neon microkernel (aarch64): the seed's 16 x 6 f32 block (24 accumulators v0-v23,
// 4 registers for the 16 values of A, B broadcast with ld1r), K loop and batch-reduce
// inside. Tails go through a small stack buffer (Neon has no masked loads).
#define POLYFUSE_UKERNEL_NS neon_ns
#include "microkernel_template.h"

#if defined(__aarch64__)
#include <arm_neon.h>

namespace polyfuse::cpu::detail {
namespace neon_ns {
namespace {

struct Neon {
  using acc = float32x4_t;
  using avec = float32x4_t;
  using bvec = float32x4_t;
  using elem = float;
  using tail_t = int;
  static constexpr int lanes = 4, vectors = 4, columns = 6, k_pack = 1;
  static int make_tail(int n) { return n; }
  static float32x4_t zero() { return vdupq_n_f32(0.f); }
  static float32x4_t load_n(const float* p, int n) {
    float buffer[4] = {0.f, 0.f, 0.f, 0.f};
    for (int i = 0; i < n; ++i) buffer[i] = p[i];
    return vld1q_f32(buffer);
  }
  static void store_n(float* p, float32x4_t x, int n) {
    float buffer[4];
    vst1q_f32(buffer, x);
    for (int i = 0; i < n; ++i) p[i] = buffer[i];
  }
  static float32x4_t load_c(const float* p) { return vld1q_f32(p); }
  static float32x4_t load_c_n(const float* p, int n) { return load_n(p, n); }
  static void store_c(float* p, float32x4_t x) { vst1q_f32(p, x); }
  static void store_c_n(float* p, float32x4_t x, int n) { store_n(p, x, n); }
  static float32x4_t load_a(const float* p) { return vld1q_f32(p); }
  static float32x4_t load_a_n(const float* p, int n) { return load_n(p, n); }
  static float32x4_t broadcast_b(const float* p) { return vld1q_dup_f32(p); }
  static float32x4_t fma(float32x4_t c, float32x4_t a, float32x4_t b) {
    return vfmaq_f32(c, a, b);
  }
  static float32x4_t splat(float x) { return vdupq_n_f32(x); }
  static float32x4_t add(float32x4_t x, float32x4_t y) { return vaddq_f32(x, y); }
  static float32x4_t relu(float32x4_t x) {  // x > 0 ? x : +0 (NaN, -0 -> +0; vmaxq would keep NaN)
    return vbslq_f32(vcgtq_f32(x, zero()), x, zero());
  }
};

}  // namespace
}  // namespace neon_ns

const KernelFamily& neon_f32_family() {
  static const KernelFamily family = neon_ns::make_family<neon_ns::Neon>();
  return family;
}

}  // namespace polyfuse::cpu::detail

#else
namespace polyfuse::cpu::detail {
const KernelFamily& neon_f32_family() {
  static const KernelFamily none;
  return none;
}
}  // namespace polyfuse::cpu::detail
#endif
