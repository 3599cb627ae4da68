// Internal: the register-blocked BRGEMM microkernel, written once over a vector-traits
// type V and instantiated by each microkernel_<isa>.cc inside its own namespace.
//
// Why intrinsics + templates (not a JIT, not hand-written assembly): the seed's Neon
// kernels are assembly and its later chapters JIT them, but a JIT is a large per-ISA
// encoder we would have to test instruction by instruction, and assembly per block shape
// multiplies code. Here the only per-ISA code is a ~20-line traits struct (load, masked
// load, broadcast, FMA, store); the block loops below have compile-time trip counts, so
// the compiler fully unrolls them into straight-line code with the accumulator in
// registers (the seed's microkernel structure: load C, stream A and broadcast B with the
// K loop and the batch-reduce loop inside, store C). Every tail shape is its own
// instantiation (masked last vector, fewer columns), so edge tiles pay no branches.
// The same template serves AVX-512 (32x12), AVX2 (16x6), Neon (16x6) and the portable
// fallback, so a path we cannot run here still executes the logic the others test.
//
// V provides: acc (f32 accumulator vector), avec/bvec (operand vectors), elem (input
// element type), lanes, k_pack, tail_t, make_tail(n), zero(), load_c/load_c_n,
// store_c/store_c_n, load_a/load_a_n, broadcast_b, fma(acc, a, b) -> acc + a*b, and for the
// epilogue splat(float) -> acc, add(acc, acc), relu(acc) (x > 0 ? x : +0, NaN -> +0: the
// scalar definition's bits).
#pragma once

#include "microkernel.h"

#ifndef POLYFUSE_UKERNEL_NS
#error "define POLYFUSE_UKERNEL_NS (one namespace per ISA file) before including"
#endif

namespace polyfuse::cpu::detail::POLYFUSE_UKERNEL_NS {

// The k steps of every batch entry, for each outer batch entry: acc += A_{o,i} B_{o,i}.
// UNIT_B: B's columns are V::k_pack elements apart (p.b_n is not read).
template <class V, int MV, int NR, bool MASKED, bool UNIT_B>
inline void accumulate(typename V::acc (&acc)[NR][MV], const MicroArgs& p, typename V::tail_t tail) {
  using elem = typename V::elem;
  constexpr int A_STEP = V::lanes * V::k_pack;  // elements of A per vector
  const elem* a_outer = static_cast<const elem*>(p.a);
  const elem* b_outer = static_cast<const elem*>(p.b);
  const int64_t b_n = UNIT_B ? V::k_pack : p.b_n;
  // Otherwise the columns are reached from one pointer per three columns, as
  // base + {0, 1, 2} * b_n (x86's scaled index): 4 pointers and the stride in registers.
  constexpr int G = 3, GROUPS = (NR + G - 1) / G;
  for (int64_t o = 0; o < p.outer; ++o, a_outer += p.a_outer, b_outer += p.b_outer) {
    const elem* a_batch = a_outer;
    const elem* b_batch = b_outer;
    for (int64_t i = 0; i < p.batch; ++i) {
      const elem* a = a_batch;
      const elem* bg[GROUPS];
#pragma GCC unroll 8
      for (int g = 0; g < GROUPS; ++g) bg[g] = b_batch + g * G * b_n;
#pragma GCC unroll 4
      for (int64_t step = 0; step < p.k; ++step) {
        typename V::avec av[MV];
#pragma GCC unroll 4
        for (int v = 0; v < MV; ++v)
          av[v] = (MASKED && v == MV - 1) ? V::load_a_n(a + v * A_STEP, tail)
                                          : V::load_a(a + v * A_STEP);
#pragma GCC unroll 16
        for (int j = 0; j < NR; ++j) {
          const typename V::bvec bv = UNIT_B ? V::broadcast_b(bg[0] + j * b_n) : V::broadcast_b(bg[j / G] + (j % G) * b_n);
#pragma GCC unroll 4
          for (int v = 0; v < MV; ++v) acc[j][v] = V::fma(acc[j][v], av[v], bv);
        }
        a += p.a_k;
#pragma GCC unroll 8
        for (int g = 0; g < (UNIT_B ? 1 : GROUPS); ++g) bg[g] += p.b_k;
      }
      a_batch += p.a_batch;
      b_batch += p.b_batch;
    }
  }
}

template <class V, int MV, int NR, bool MASKED>
void microkernel(const MicroArgs& p) {
  using acc_t = typename V::acc;
  constexpr int L = V::lanes;
  const auto tail = V::make_tail(MASKED ? p.m_tail : L);
  // Locals, so stores through C cannot be assumed to alias the argument block.
  float* const c_base = p.c;
  const int64_t ldc = p.ldc;

  acc_t acc[NR][MV];
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      float* c = c_base + j * ldc + v * L;
      if (!p.load_c)
        acc[j][v] = V::zero();
      else if (MASKED && v == MV - 1)
        acc[j][v] = V::load_c_n(c, tail);
      else
        acc[j][v] = V::load_c(c);
    }
  }

  // B's columns k_pack elements apart (packed panels; a row-major B read in place) is the
  // common case: its broadcasts then address b + a constant. A run-time column stride took a
  // register per column (12 on AVX-512: spilled, reloaded in every k step). On one AVX-512
  // core, an L1-resident 32 x 12 x 256 f32 call: 167 -> 181 GFLOP/s (B row-major), 160 -> 166
  // (B column-major, the pointer per three columns in accumulate).
  if (p.b_n == V::k_pack)
    accumulate<V, MV, NR, MASKED, true>(acc, p, tail);
  else
    accumulate<V, MV, NR, MASKED, false>(acc, p, tail);

  // Epilogue (the call that finishes the tile): bias, addend, then relu, on the registers.
  if (p.bias_m) {
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      const acc_t bias = (MASKED && v == MV - 1) ? V::load_c_n(p.bias_m + v * L, tail) : V::load_c(p.bias_m + v * L);
#pragma GCC unroll 16
      for (int j = 0; j < NR; ++j) acc[j][v] = V::add(acc[j][v], bias);
    }
  }
  if (p.bias_n) {
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
      const acc_t bias = V::splat(p.bias_n[j]);
#pragma GCC unroll 4
      for (int v = 0; v < MV; ++v) acc[j][v] = V::add(acc[j][v], bias);
    }
  }
  if (p.addend) {
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
      const float* r = p.addend + j * p.ld_addend;
#pragma GCC unroll 4
      for (int v = 0; v < MV; ++v)
        acc[j][v] = V::add(acc[j][v], (MASKED && v == MV - 1) ? V::load_c_n(r + v * L, tail) : V::load_c(r + v * L));
    }
  }
  if (p.relu) {
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
      for (int v = 0; v < MV; ++v) acc[j][v] = V::relu(acc[j][v]);
  }

  float* const d_base = p.d ? p.d : c_base;
  const int64_t ldd = p.d ? p.ldd : ldc;
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      float* d = d_base + j * ldd + v * L;
      if (MASKED && v == MV - 1)
        V::store_c_n(d, acc[j][v], tail);
      else
        V::store_c(d, acc[j][v]);
    }
  }
}

// Fills family.fn with every <mv <= MV, nr <= NR> instantiation, masked and not.
template <class V, int MV, int NR>
void fill_family(KernelFamily& family) {
  family.fn[0][MV - 1][NR - 1] = &microkernel<V, MV, NR, false>;
  family.fn[1][MV - 1][NR - 1] = &microkernel<V, MV, NR, true>;
  if constexpr (NR > 1)
    fill_family<V, MV, NR - 1>(family);
  else if constexpr (MV > 1)
    fill_family<V, MV - 1, V::columns>(family);
}

template <class V>
KernelFamily make_family() {
  KernelFamily family;
  family.lanes = V::lanes;
  family.vectors = V::vectors;
  family.columns = V::columns;
  family.k_pack = V::k_pack;
  fill_family<V, V::vectors, V::columns>(family);
  return family;
}

}  // namespace polyfuse::cpu::detail::POLYFUSE_UKERNEL_NS
