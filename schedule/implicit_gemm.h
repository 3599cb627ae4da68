// Convolutions as implicit GEMMs on the tensor-core (mma.sync) path, issue 24 item 2:
//
//   O(n, p, q, k) +=! I(n, 2*p + r - 1, 2*q + s - 1, c) * F(k, r, s, c)  where I = 0 outside
//
// is the GEMM O[M][N] += A[M][K] * B[K][N] with M = (n, p, q) (the output pixels, the written
// indices other than the output channel, in the output's order), N = (k) (the output channel)
// and K = the filter's other indices in the filter's order, (r, s, c). B is the filter itself
// viewed as [N][K] (KRSC: column-major B) or [K][N] (RSCK: row-major B), no copy. A is the im2col
// matrix of I, which is never in memory: the kernel's copy of an A tile to shared memory gathers
// each 16-byte chunk (8 channels of one tap of one output pixel) from I at the address its
// affine subscripts give, and zero-fills (cp.async's source size 0) the chunks of taps that fall
// outside I (codegen/implicit_gemm_kernel.h). The roles of the indices and the padding come from
// the convolution analysis the CPU target uses (schedule/cpu_conv.h's conv_over_taps).
//
// The plan writes it as a contraction's GEMM view (schedule/contraction_to_gemm.h) whose A is the
// unmaterialised `I_im2col` (ContractionGrouping::a_gathered), so the pointwise statements right
// after it fuse as epilogues exactly as for a GEMM (bias(k) along N, a residual read at the
// output element).
//
// A grouped convolution, `O(n, p, q, g, k) +=! I(n, p + r, q + s, g, c) * F(g, k, r, s, c)`, is one
// GEMM per group g (ContractionGrouping::conv_groups, the output indices the filter reads): N = (g,
// k) is block-diagonal, group g's columns g*K.. reading only its own input channels. Its view is
// the GEMM over N = G*K (the output, the filter and the epilogues' vectors keep their layout, bias(g,
// k) is bias(n)); the kernel runs the groups on blockIdx.z, each with its own column range, and adds
// g's share to the gathered rows' offsets.
//
// A convolution takes this path when conv_over_taps takes it and: its operands are f16, bf16 or
// f32 (TF32 tensor cores, as for f32 matmuls); the group indices, if any, are the output's last
// but its channel; it is not depthwise (one input channel per group: memory-bound, a GEMM too
// narrow for tensor cores; it stays a reduction kernel); the filter is [groups.., output
// channel][taps.., c] or [taps.., c][groups.., output channel] with the channel c last among the
// taps. Otherwise it stays a
// reduction kernel, and `why_not` says which rule kept it off. When C is not a multiple of the
// elements in 16 bytes, 8 or 4 (a chunk would span taps; C = 3, a first layer), the copy gathers
// A element by element (implicit_gemm_by_element; the plan's note says so).
#pragma once

#include "frontend/program.h"
#include "schedule/contraction_to_gemm.h"

namespace polyfuse {

// The implicit-GEMM grouping of convolution `statement` (is_gemm, a_gathered), or why_not.
ContractionGrouping implicit_gemm_grouping(const Program& program, const Statement& statement);

// Whether the copy of convolution `statement`'s A goes element by element: C is not a multiple of
// the elements in 16 bytes (8 for f16 and bf16, 4 for f32).
bool implicit_gemm_by_element(const Program& program, const Statement& statement);

}  // namespace polyfuse
