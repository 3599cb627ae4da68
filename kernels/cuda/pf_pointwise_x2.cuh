// polyfuse device helpers: pointwise operations on two 16-bit elements packed in one 32-bit
// register (f16x2 or bf16x2, element 0 in the low half), for prologues applied to a tile in
// shared memory (pf_block_copy.cuh's map_tile_shared with PACKED): one f16x2/bf16x2
// instruction a pair on the GPU (HMNMX2, HMUL2, HFMA2.BF16...) where the f32 form takes two
// conversions, the operation and a pack per element.
//
//   pf::x2::relu<T>(a)  abs  neg          unary
//   pf::x2::max<T>(a, b)  min  add  sub  mul   binary
//   pf::x2::zero()                        the pair (0, 0)
//
// T is __half or __nv_bfloat16. The emulator (host path) computes each element in f32 and
// rounds it to T, which gives the GPU's bits: max, min, abs, neg and relu are exact, and the
// f32 result of one +, - or x of two 16-bit values rounded to T is the correctly rounded
// result (f32's 24 bits >= 2p + 2 for p = 11 and 8: the double rounding is innocuous). The
// code generator uses these only where no rounding operation feeds another
// (codegen/packed_prologue.h): then a prologue gives the same bits packed as element by
// element in f32 (map_tile_regs), up to the sign of a zero that ReLU or max returns.
#pragma once

#include "pf_base.cuh"
#include "pf_pointwise.cuh"

namespace pf {
namespace x2 {
namespace detail {
template <class T> PF_DEVICE float lo(unsigned a) { return unpack<T>(a, 0); }
template <class T> PF_DEVICE float hi(unsigned a) { return unpack<T>(a, 1); }
template <class T> PF_DEVICE constexpr bool is_half() { return IsSame<T, __half>::value; }
}  // namespace detail

PF_DEVICE unsigned zero() { return 0u; }

// Binary operations: PTX `OP.f16x2` on the GPU, for bf16 `fma.rn.bf16x2` with 1.0, -1.0 or -0.0 in
// both halves (0x3f80, 0xbf80, 0x8000: add.rn.bf16x2 and mul.rn.bf16x2 need sm_90); f32 and one
// rounding on the emulator.
#if PF_DEVICE_PATH
#define PF_X2_ASM(instruction, a, b)                                             \
  unsigned d;                                                                    \
  asm(instruction " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));                    \
  return d
#define PF_X2_FMA(a, b, c)                                                       \
  unsigned d;                                                                    \
  asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));       \
  return d
#endif

template <class T> PF_DEVICE unsigned max(unsigned a, unsigned b) {
#if PF_DEVICE_PATH
  if constexpr (detail::is_half<T>()) { PF_X2_ASM("max.f16x2", a, b); }
  else { PF_X2_ASM("max.bf16x2", a, b); }
#else
  return pack2<T>(fmaxf(detail::lo<T>(a), detail::lo<T>(b)), fmaxf(detail::hi<T>(a), detail::hi<T>(b)));
#endif
}

template <class T> PF_DEVICE unsigned min(unsigned a, unsigned b) {
#if PF_DEVICE_PATH
  if constexpr (detail::is_half<T>()) { PF_X2_ASM("min.f16x2", a, b); }
  else { PF_X2_ASM("min.bf16x2", a, b); }
#else
  return pack2<T>(fminf(detail::lo<T>(a), detail::lo<T>(b)), fminf(detail::hi<T>(a), detail::hi<T>(b)));
#endif
}

template <class T> PF_DEVICE unsigned add(unsigned a, unsigned b) {
#if PF_DEVICE_PATH
  if constexpr (detail::is_half<T>()) { PF_X2_ASM("add.rn.f16x2", a, b); }
  else { PF_X2_FMA(a, 0x3f803f80u, b); }
#else
  return pack2<T>(detail::lo<T>(a) + detail::lo<T>(b), detail::hi<T>(a) + detail::hi<T>(b));
#endif
}

template <class T> PF_DEVICE unsigned sub(unsigned a, unsigned b) {
#if PF_DEVICE_PATH
  if constexpr (detail::is_half<T>()) { PF_X2_ASM("sub.rn.f16x2", a, b); }
  else { PF_X2_FMA(b, 0xbf80bf80u, a); }
#else
  return pack2<T>(detail::lo<T>(a) - detail::lo<T>(b), detail::hi<T>(a) - detail::hi<T>(b));
#endif
}

template <class T> PF_DEVICE unsigned mul(unsigned a, unsigned b) {
#if PF_DEVICE_PATH
  if constexpr (detail::is_half<T>()) { PF_X2_ASM("mul.rn.f16x2", a, b); }
  else { PF_X2_FMA(a, b, 0x80008000u); }
#else
  return pack2<T>(detail::lo<T>(a) * detail::lo<T>(b), detail::hi<T>(a) * detail::hi<T>(b));
#endif
}

#if PF_DEVICE_PATH
#undef PF_X2_ASM
#undef PF_X2_FMA
#endif

// relu(x) = max(x, 0): max returns the other operand for a NaN, so relu(NaN) = 0 as op::relu.
template <class T> PF_DEVICE unsigned relu(unsigned a) {
#if PF_DEVICE_PATH
  return max<T>(a, 0u);
#else
  return pack2<T>(op::relu(detail::lo<T>(a)), op::relu(detail::hi<T>(a)));
#endif
}

// The sign bits cleared or flipped: exact, as fabsf and unary minus (a NaN stays a NaN).
template <class T> PF_DEVICE unsigned abs(unsigned a) { return a & 0x7fff7fffu; }
template <class T> PF_DEVICE unsigned neg(unsigned a) { return a ^ 0x80008000u; }

}  // namespace x2
}  // namespace pf
