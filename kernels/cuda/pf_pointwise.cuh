// polyfuse device helpers: pointwise operations on accumulator fragments (fused
// epilogues, paper §VII-A) and loads of their operands into the fragment layout.
//
// Scalars: pf::op::{add, sub, mul, div, max, min, relu, sigmoid, tanh, gelu, exp}.
// Tiles (any accumulator tile: AccTile16816, AccTile884 — anything with v[count] and
// coord(lane, idx, row, col)):
//   pf::tile::relu(t) ... pf::tile::exp(t)           in place, unary
//   pf::tile::add(t, u) / add(t, scalar) ... min      in place, binary (tile or scalar)
//   pf::tile::apply(t, f) / apply(t, u, f)           any f(float[, float]) -> float
//   pf::load_broadcast_rows(t, vec, m_valid)         t(r, c) = vec[r]  (e.g. scale(m))
//   pf::load_broadcast_cols(t, vec, n_valid)         t(r, c) = vec[c]  (e.g. bias(n))
//   pf::load_matrix(t, mat, ld, m_valid, n_valid)    t(r, c) = mat[r*ld + c] (residual)
// Operand pointers point at the warp tile's origin; elements outside the valid range are 0.
// The loads take an optional Check (pf_memory.cuh): which bounds can cut the tile.
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
// Exact GELU: x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))).
PF_DEVICE float gelu(float x) { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }
PF_DEVICE float exp(float x) { return expf(x); }
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
PF_TILE_UNARY(exp)
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

template <Check CHECK = Check::all, class Tile, class T> PF_DEVICE void load_broadcast_rows(Tile& t, const T* vec, int m_valid) {
  const unsigned lane = lane_id();
PF_UNROLL
  for (int i = 0; i < Tile::count; ++i) {
    int r, c;
    Tile::coord(lane, i, r, c);
    t.v[i] = to_float(ldg_pred(vec + r, !checks_rows(CHECK) || r < m_valid));
  }
}

template <Check CHECK = Check::all, class Tile, class T> PF_DEVICE void load_broadcast_cols(Tile& t, const T* vec, int n_valid) {
  const unsigned lane = lane_id();
PF_UNROLL
  for (int i = 0; i < Tile::count; ++i) {
    int r, c;
    Tile::coord(lane, i, r, c);
    t.v[i] = to_float(ldg_pred(vec + c, !checks_cols(CHECK) || c < n_valid));
  }
}

template <Check CHECK = Check::all, class Tile, class T>
PF_DEVICE void load_matrix(Tile& t, const T* mat, long long ld, int m_valid, int n_valid) {
  const unsigned lane = lane_id();
PF_UNROLL
  for (int i = 0; i < Tile::count; ++i) {
    int r, c;
    Tile::coord(lane, i, r, c);
    t.v[i] = to_float(ldg_pred(mat + r * ld + c, (!checks_rows(CHECK) || r < m_valid) && (!checks_cols(CHECK) || c < n_valid)));
  }
}

}  // namespace pf
