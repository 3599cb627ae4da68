// Attention programs on tensors in other layouts than (B, H, S, D), shared by the emulator's
// tests (attention_emu_test.cc) and the GPU's (gpu_run_test.cc, CudaAttention): each runs as the
// one attention kernel (schedule/attention.h).
#pragma once

#include <string>

namespace polyfuse::testing {

// FlashAttention's (B, S, H, D) tensors, the scale `/ sqrt(D)`, e in f32.
inline std::string bshd_attention_source() {
  return "def bshd(f16(B, S, H, D) Q, f16(B, T, H, D) K, f16(B, T, H, D) V) -> (f16(B, S, H, D) O) {\n"
         "  L(b, h, s, t) +=! Q(b, s, h, d) * K(b, t, h, d) / sqrt(D)\n"
         "  mx(b, h, s) max=! L(b, h, s, t)\n"
         "  e(b, h, s, t) = exp(L(b, h, s, t) - mx(b, h, s))\n"
         "  z(b, h, s) +=! e(b, h, s, t)\n"
         "  O(b, s, h, d) +=! e(b, h, s, t) * V(b, t, h, d) / z(b, h, s)\n"
         "}\n";
}

// Causal grouped-query attention on (B, S, H, D) memory: Q and O as (B, S, G, R, D), H = G * R;
// K and V one head a group, (B, T, G, D).
inline std::string gqa_attention_source() {
  return "def gqa(f16(B, S, G, R, D) Q, f16(B, T, G, D) K, f16(B, T, G, D) V) -> (f16(B, S, G, R, D) O) {\n"
         "  L(b, g, r, s, t) +=! Q(b, s, g, r, d) * K(b, t, g, d) / sqrt(D)\n"
         "  M(b, g, r, s, t) = t <= s ? L(b, g, r, s, t) : -1e30\n"
         "  mx(b, g, r, s) max=! M(b, g, r, s, t)\n"
         "  e(b, g, r, s, t) = exp(M(b, g, r, s, t) - mx(b, g, r, s))\n"
         "  z(b, g, r, s) +=! e(b, g, r, s, t)\n"
         "  O(b, s, g, r, d) +=! e(b, g, r, s, t) * V(b, t, g, d) / z(b, g, r, s)\n"
         "}\n";
}

// Every order: Q (h, b, s, d), K shared by the heads with its key first (t, b, d), V (b, h, t, n)
// with E columns, P on chip in O's order and O (s, h, b, n) in f32; e in f16.
inline std::string shuffled_attention_source() {
  return "def shuffled(f16(H, B, S, D) Q, f16(T, B, D) K, f16(B, H, T, E) V) -> (f32(S, H, B, E) O) {\n"
         "  L(b, h, s, t) +=! Q(h, b, s, d) * K(t, b, d)\n"
         "  mx(b, h, s) max=! L(b, h, s, t)\n"
         "  e(b, h, s, t) = f16(exp(L(b, h, s, t) - mx(b, h, s)))\n"
         "  z(b, h, s) +=! e(b, h, s, t)\n"
         "  P(s, h, b, n) +=! e(b, h, s, t) * V(b, h, t, n)\n"
         "  O(s, h, b, n) = P(s, h, b, n) / z(b, h, s)\n"
         "}\n";
}

}  // namespace polyfuse::testing
