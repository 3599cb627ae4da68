// Convolutions on the CPU target as BRGEMM batch-reduce over the filter taps (the libxsmm /
// oneDNN direct-convolution scheme), read off the access relations of one statement:
//
//   O(n, p, q, k) +=! I(n, 2*p + r - 1, 2*q + s - 1, c) * F(k, r, s, c)  where I = 0 outside
//
// The output O is computed in blocks of output columns q (the BRGEMM's m) by output channels
// k (its n). For one block and one tap (r, s), A_rs is the rows x C matrix of input pixels
// the block's columns read at that tap: it starts at the element the input's subscripts give
// at (n, p, q0, r, s, c = 0), its rows are the affine subscripts' distance between consecutive
// q (2 * C here: stride times channels), its columns the channels (unit stride). B_rs is the
// filter's C x nc slice of that tap for the block's nc output channels, row-major: the
// filter packed in panels [taps][c][nc] (schedule/cpu_plan.h's CpuConvTaps: each thread packs
// the panel of the block at hand, or a copy stage packs all of them before the blocks),
// unless the filter is stored [taps][c][k] with every output channel in one block. The
// innermost tap s is the BRGEMM batch (its A stride is the subscripts' coefficient of s: C),
// the outer taps are loops whose BRGEMMs accumulate into the same block.
//
// Padding: a read outside the input (`where I = 0 outside`) reads a zero-padded copy of the
// input, made once per call, so every block is the same uniform BRGEMM (no edge blocks with
// fewer taps); the copy costs one pass over the input, small beside R * S * K products per
// input element.
//
// A statement takes this path when: it is a sum (`+=!` or `+=`) of the product of two reads;
// one read (the filter) has plain subscripts, the other (the input) affine ones whose last is
// a reduction index c that appears nowhere else in the input and in the filter; the written
// tensor's last index (the output channel) is read only by the filter; every other reduction
// index (a tap) is read plainly by the filter; the output column is the innermost other
// written index that the input reads and the filter does not; both reads have one type
// (f32, f16 or bf16); every value read outside the input is zero. Anything else stays a loop
// nest, and `why` says which rule it broke.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/program.h"

namespace polyfuse {

// The roles of a convolution's indices and its padding.
struct ConvOverTaps {
  int input_read = -1;               // Statement::reads index of the input
  int filter_read = -1;              // and of the filter
  std::string column;                // output column index: the BRGEMM's m
  std::string channel_out;           // output channel index (the written tensor's last): its n
  std::string channel_in;            // the contracted channel index c: each BRGEMM's k
  std::vector<std::string> batch;    // the other written indices, in the written order
  std::vector<std::string> taps;     // the other reduction indices, in domain order
  std::vector<std::int64_t> pad_before, pad_after;  // per input dimension (zeros: no copy)

  bool padded() const;
};

// The convolution roles of `statement` (of `program`, every size bound), or nullopt with
// the rule it breaks in `why` ("the filter's subscripts are not plain indices").
std::optional<ConvOverTaps> conv_over_taps(const Program& program, const Statement& statement, std::string* why);

// Pixels in vectors: with fewer output channels than an AVX-512 vector's 16 lanes (ResNeXt's
// grouped 3x3 has 4 to 32 per group, 8 in stage 3), the BRGEMM of a block whose rows are pixels
// and whose columns are channels runs with the channels along the microkernel's vectors (C is
// normalised column-major, kernels/cpu's brgemm.cc), half of each vector or more idle. Swapping
// the roles puts pixels in the vectors: A reads a copy of the input with the pixel column
// innermost (NHWGC -> NHGCW, zero-padded as the padded copy is), so each channel's row of
// pixels is contiguous, the block accumulates column-major (pixel-major) in a block buffer,
// and a transposition through registers stores it. Measured on ResNeXt-50's stage-3 grouped
// 3x3 at batch 1 (8 channels per group, one core): 34-37 -> 61-66 GFLOP/s.
//
// The input dimension that is moved innermost, or nullopt: taken for an f32 convolution with
// fewer than 16 output channels and at least 16 output columns, whose stage nothing joins
// (`closed`: its pointwise statements are stages of their own, which read the stored output),
// when exactly one input subscript reads the column, with coefficient 1 (unit stride: no
// stride-2 layer), and the dimensions after it have no border (they flatten into the channel
// rows of the copy).
std::optional<std::size_t> pixels_in_vectors_dim(const ConvOverTaps& conv, const Access& input,
                                                 const std::map<std::string, std::int64_t>& extent, ElementType input_type,
                                                 ElementType output_type, bool closed);

// A convolution's A: the input, or its zero-padded copy (with pixels in vectors, a copy with the
// pixel column innermost).
struct ConvInputLayout {
  std::vector<std::int64_t> pad_after;   // the copy's border after each input dimension
  std::vector<std::int64_t> copy_shape;  // the copy's shape, in its own order
  std::vector<std::int64_t> strides;     // per input dimension: its stride in the copy
};

// The padded copy's pixels are an odd number of cache lines apart when they span 16 lines or
// more (C = 256, 512 f32): the microkernel broadcasts from up to 12 pixels at once, which 1 or
// 2 KiB apart would crowd into two or four L1 sets; the channels added are zeros. (Without a
// copy, `strides` are the input's own.)
ConvInputLayout conv_input_layout(const ConvOverTaps& conv, const std::vector<std::int64_t>& input_shape,
                                  ElementType type, std::optional<std::size_t> pixels_dim);

}  // namespace polyfuse
