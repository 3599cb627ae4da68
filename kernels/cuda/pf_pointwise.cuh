// polyfuse device helpers: pointwise operations on accumulator fragments (fused
// epilogues, paper §VII-A) and loads of their operands into the fragment layout.
//
// Scalars: pf::op::{add, sub, mul, div, max, min, relu, sigmoid, tanh, gelu_erf, gelu_tanh,
// exp, sqrt, rsqrt, log, abs, silu}; gelu is gelu_erf (the exact form). The CPU path
// (kernels/cpu elementwise.h) and the reference (runtime/reference) use the same formulas.
// Tiles (any accumulator tile: AccTile16816, AccTile884 — anything with v[count] and
// coord(lane, idx, row, col)):
//   pf::tile::relu(t) ... pf::tile::silu(t)          in place, unary (every scalar above)
//   pf::tile::add(t, u) / add(t, scalar) ... min      in place, binary (tile or scalar)
//   pf::tile::apply(t, f) / apply(t, u, f)           any f(float[, float]) -> float
//   pf::load_broadcast_rows(t, vec, m_valid)         t(r, c) = vec[r]  (e.g. scale(m))
//   pf::load_broadcast_cols(t, vec, n_valid)         t(r, c) = vec[c]  (e.g. bias(n))
//   pf::load_matrix(t, mat, ld, m_valid, n_valid)    t(r, c) = mat[r*ld + c] (residual)
// Operand pointers point at the warp tile's origin; elements outside the valid range are 0.
// The loads take an optional Check (which bounds can cut the tile) and Width (the widest
// access a row start allows: pairs of adjacent elements load as one) — pf_memory.cuh.
// Operand element types: float, __half, __nv_bfloat16.
#pragma once

#include "pf_base.cuh"
#include "pf_memory.cuh"

namespace pf {
namespace op {
PF_DEVICE float add(float a, float b) { return a + b; }
PF_DEVICE float sub(float a, float b) { return a - b; }
PF_DEVICE float mul(float a, float b) { return a * b; }
PF_DEVICE float div(float a, float b) { return a / b; }
PF_DEVICE float max(float a, float b) { return fmaxf(a, b); }
PF_DEVICE float min(float a, float b) { return fminf(a, b); }
PF_DEVICE float relu(float x) { return x > 0.f ? x : 0.f; }
PF_DEVICE float sigmoid(float x) { return 1.f / (1.f + expf(-x)); }
PF_DEVICE float tanh(float x) { return tanhf(x); }
// Exact GELU: x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))). `gelu` is the same function.
PF_DEVICE float gelu_erf(float x) { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }
PF_DEVICE float gelu(float x) { return gelu_erf(x); }
// GELU's tanh approximation: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
PF_DEVICE float gelu_tanh(float x) {
  return 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
PF_DEVICE float exp(float x) { return expf(x); }
PF_DEVICE float sqrt(float x) { return sqrtf(x); }
// 1 / sqrtf(x), two IEEE roundings (rsqrtf's 2 ulps would do too; this one is the CPU's).
PF_DEVICE float rsqrt(float x) { return 1.f / sqrtf(x); }
PF_DEVICE float log(float x) { return logf(x); }
PF_DEVICE float abs(float x) { return fabsf(x); }
// x * sigmoid(x), as x / (1 + exp(-x)).
PF_DEVICE float silu(float x) { return x / (1.f + expf(-x)); }
// The language's conversions f16(x), bf16(x), f32(x): x rounded to the type (nearest even),
// as an f32 value.
PF_DEVICE float f16(float x) { return __half2float(__float2half_rn(x)); }
PF_DEVICE float bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
PF_DEVICE float f32(float x) { return x; }
}  // namespace op

namespace tile {
template <class Tile, class F> PF_DEVICE void apply(Tile& t, F f) {
PF_UNROLL
  for (int i = 0; i < Tile::count; ++i) t.v[i] = f(t.v[i]);
}
template <class Tile, class F> PF_DEVICE void apply(Tile& t, const Tile& u, F f) {
PF_UNROLL
  for (int i = 0; i < Tile::count; ++i) t.v[i] = f(t.v[i], u.v[i]);
}

#define PF_TILE_UNARY(name) \
  template <class Tile> PF_DEVICE void name(Tile& t) { apply(t, [](float x) { return op::name(x); }); }
PF_TILE_UNARY(relu)
PF_TILE_UNARY(sigmoid)
PF_TILE_UNARY(tanh)
PF_TILE_UNARY(gelu)
PF_TILE_UNARY(gelu_erf)
PF_TILE_UNARY(gelu_tanh)
PF_TILE_UNARY(exp)
PF_TILE_UNARY(sqrt)
PF_TILE_UNARY(rsqrt)
PF_TILE_UNARY(log)
PF_TILE_UNARY(abs)
PF_TILE_UNARY(silu)
#undef PF_TILE_UNARY

#define PF_TILE_BINARY(name)                                                                  \
  template <class Tile> PF_DEVICE void name(Tile& t, const Tile& u) {                           \
    apply(t, u, [](float a, float b) { return op::name(a, b); });                               \
  }                                                                                             \
  template <class Tile> PF_DEVICE void name(Tile& t, float s) {                                 \
    apply(t, [s](float a) { return op::name(a, s); });                                          \
  }
PF_TILE_BINARY(add)
PF_TILE_BINARY(sub)
PF_TILE_BINARY(mul)
PF_TILE_BINARY(div)
PF_TILE_BINARY(max)
PF_TILE_BINARY(min)
#undef PF_TILE_BINARY

template <class Tile> PF_DEVICE void fill(Tile& t, float value) {
PF_UNROLL
  for (int i = 0; i < Tile::count; ++i) t.v[i] = value;
}
}  // namespace tile

// Every accumulator tile holds horizontally adjacent pairs: v[i] and v[i + 1] (i even) are
// columns c and c + 1 (c even) of one row. The loads below take a pair at a time.
namespace detail {
// Elements c and c + 1 at p, of which `valid` (0..2) exist, as floats. One access per lane
// either way: a 2-element load when the rows allow it (WIDTH), else element loads of which
// only the first can be valid when the pair is cut.
template <Width WIDTH, class T> PF_DEVICE void load_pair(const T* p, int valid, float& lo, float& hi) {
  constexpr bool one_access = WIDTH != Width::by_address && static_cast<int>(WIDTH) >= 2 * static_cast<int>(sizeof(T));
  if constexpr (one_access) {
    if (valid == 2) {
      if constexpr (sizeof(T) == 2) {
        const unsigned bits = ldg32(p);
        lo = unpack<T>(bits, 0);
        hi = unpack<T>(bits, 1);
      } else {
        const unsigned long long bits = ldg64(p);
        lo = __uint_as_float(static_cast<unsigned>(bits));
        hi = __uint_as_float(static_cast<unsigned>(bits >> 32));
      }
    } else {
      lo = to_float(ldg_pred(p, valid == 1));
      hi = 0.f;
    }
  } else {
    lo = to_float(ldg_pred(p, valid >= 1));
    hi = to_float(ldg_pred(p + 1, valid >= 2));
  }
}
// How many of columns c, c + 1 are below n_valid.
PF_DEVICE int pair_valid(int c, int n_valid) { return n_valid - c >= 2 ? 2 : n_valid - c > 0 ? n_valid - c : 0; }
}  // namespace detail

// One load per pair: both elements of a pair are in the same row.
template <Check CHECK = Check::all, class Tile, class T> PF_DEVICE void load_broadcast_rows(Tile& t, const T* vec, int m_valid) {
  const unsigned lane = lane_id();
PF_UNROLL
  for (int i = 0; i < Tile::count; i += 2) {
    int r, c;
    Tile::coord(lane, i, r, c);
    t.v[i] = t.v[i + 1] = to_float(ldg_pred(vec + r, !checks_rows(CHECK) || r < m_valid));
  }
}

template <Check CHECK = Check::all, Width WIDTH = Width::by_address, class Tile, class T>
PF_DEVICE void load_broadcast_cols(Tile& t, const T* vec, int n_valid) {
  const unsigned lane = lane_id();
PF_UNROLL
  for (int i = 0; i < Tile::count; i += 2) {
    int r, c;
    Tile::coord(lane, i, r, c);
    detail::load_pair<WIDTH>(vec + c, checks_cols(CHECK) ? detail::pair_valid(c, n_valid) : 2, t.v[i], t.v[i + 1]);
  }
}

template <Check CHECK = Check::all, Width WIDTH = Width::by_address, class Tile, class T>
PF_DEVICE void load_matrix(Tile& t, const T* mat, long long ld, int m_valid, int n_valid) {
  const unsigned lane = lane_id();
PF_UNROLL
  for (int i = 0; i < Tile::count; i += 2) {
    int r, c;
    Tile::coord(lane, i, r, c);
    const bool row_ok = !checks_rows(CHECK) || r < m_valid;
    const int valid = !row_ok ? 0 : checks_cols(CHECK) ? detail::pair_valid(c, n_valid) : 2;
    detail::load_pair<WIDTH>(mat + r * ld + c, valid, t.v[i], t.v[i + 1]);
  }
}

}  // namespace pf
