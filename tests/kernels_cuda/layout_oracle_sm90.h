// The layout oracle of the Hopper helpers (kernels/cuda/pf_wgmma*.cuh, pf_swizzle_sm90.cuh):
// an independent table written from the PTX ISA (each function names its section) and from the
// CUDA driver's description of the TMA swizzles, with the same rule as layout_oracle.h: it
// includes nothing of kernels/cuda and none of it was derived from the helpers. The tests
// (layout_oracle_sm90_test.cc) run the helpers' host paths through the probe kernels of
// layout_oracle_sm90_kernels.cu and compare every register, table entry and descriptor bit with
// it; the planted-bug build (plant_layout_bugs.cmake, bugs 6..10) must make them fail.
//
// Matrices as in the PTX ISA: A is M x K (row m, col k), B is K x N, D is M x N. Threads of a
// warpgroup are numbered 0..127 (warp = thread / 32 in the warpgroup, lane = thread % 32).
#pragma once

#include <cstdint>

#include "layout_oracle.h"

namespace pf_oracle::sm90 {

// ---- wgmma register fragments (PTX ISA 9.7.15.5.1.1 "Register Fragments") ----------------
// The figures "WGMMA .m64nNk16 register fragment layout for accumulator matrix D" and "... for
// matrix A" (.f16/.bf16): each warp owns 16 rows (warp w: rows 16w..16w+15); inside them the
// fragment repeats the m16n8 layout of mma.sync every 8 columns.

// D (64 x N, f32): register i of `thread` (i < N / 2).
Coord wgmma_d(int thread, int i);
// A (64 x 16, register form): element i (0..7; register i / 2, low half first) of `thread`.
Coord wgmma_a(int thread, int i);

// ---- the matrix descriptor (PTX ISA 9.7.15.5.1.2.2 "Matrix Descriptor Format") -------------
// span_bytes: 0 (no swizzle), 32, 64 or 128.
std::uint64_t descriptor(unsigned start, unsigned leading_bytes, unsigned stride_bytes, unsigned base_offset,
                         int span_bytes);

// ---- the swizzles ----------------------------------------------------------------------------
// CuTe's Swizzle<B, M, S> (cute/swizzle.hpp's definition, as its documentation states it):
// bits [M + S, M + S + B) of the offset are XORed into bits [M, M + B).
unsigned cute_swizzle(int b, int m, int s, unsigned offset);
// The driver's CU_TENSOR_MAP_SWIZZLE_{32,64,128}B ("swizzle 16B chunks within a 32/64/128B
// span"), in the words of the programming guide's TMA swizzle tables: the 16-byte chunks of a
// span are permuted by the index of the 128-byte line within the pattern (span / 16 lines).
unsigned tma_swizzle(int span_bytes, unsigned offset);

// ---- wgmma operands in shared memory (PTX ISA 9.7.15.5.1.2 "Shared Memory Matrix Layout") ---
// The byte address of element (mn, k) (mn = m of A or n of B, k = 0..15, 16-bit elements) of
// an operand that a descriptor with these fields describes: swizzle atoms of Table 38 (K-major:
// 8 rows x span; M/N-major: span x 8 rows of k), and the strides of the LBO/SBO tables.
unsigned operand_address(bool k_major, int span_bytes, unsigned start, unsigned leading_bytes, unsigned stride_bytes,
                         int mn, int k);

}  // namespace pf_oracle::sm90
