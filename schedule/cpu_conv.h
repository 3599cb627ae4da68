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

}  // namespace polyfuse
