// The Hopper layout oracle (layout_oracle_sm90.h), each function restating its section.
#include "layout_oracle_sm90.h"

namespace pf_oracle::sm90 {
namespace {
int warp_of(int thread) { return thread / 32; }
int group_id(int thread) { return (thread % 32) >> 2; }          // groupID = %laneid >> 2
int thread_in_group(int thread) { return (thread % 32) % 4; }    // threadID_in_group = %laneid % 4
}  // namespace

// Figure "WGMMA .m64nNk16 register fragment layout for accumulator matrix D": the row
// assignment is
//   row = groupID + 16 * (warp rank)        for d(4j), d(4j+1)
//         groupID + 8 + 16 * (warp rank)    for d(4j+2), d(4j+3)
//   col = threadID_in_group * 2 + (i & 1) + 8 * j, for d(4j) .. d(4j+3).
Coord wgmma_d(int thread, int i) {
  const int j = i / 4, within = i % 4;
  const int row = group_id(thread) + (within >= 2 ? 8 : 0) + 16 * warp_of(thread);
  const int col = thread_in_group(thread) * 2 + (within & 1) + 8 * j;
  return {row, col};
}

// Figure "WGMMA .m64nNk16 register fragment layout for matrix A" (.f16/.bf16): a0..a7 as in
// the m16n8k16 A fragment, per warp rank 16 rows further down:
//   row = groupID (+ 8 for a2, a3, a6, a7) + 16 * (warp rank)
//   col = threadID_in_group * 2 + (i & 1) (+ 8 for a4 .. a7)
Coord wgmma_a(int thread, int i) {
  const bool lower_half = i == 2 || i == 3 || i == 6 || i == 7;
  const int row = group_id(thread) + (lower_half ? 8 : 0) + 16 * warp_of(thread);
  const int col = thread_in_group(thread) * 2 + (i & 1) + (i >= 4 ? 8 : 0);
  return {row, col};
}

// The descriptor's table: 13-0 encode(start), 29-16 encode(LBO), 45-32 encode(SBO), 51-49 the
// base offset, 63-62 the swizzle (0 none, 1 128B, 2 64B, 3 32B); encode(x) = (x & 0x3FFFF) >> 4.
std::uint64_t descriptor(unsigned start, unsigned leading_bytes, unsigned stride_bytes, unsigned base_offset,
                         int span_bytes) {
  const auto encode = [](unsigned x) { return static_cast<std::uint64_t>((x & 0x3FFFFu) >> 4); };
  std::uint64_t mode = 0;
  if (span_bytes == 128) mode = 1;
  if (span_bytes == 64) mode = 2;
  if (span_bytes == 32) mode = 3;
  std::uint64_t d = 0;
  d |= encode(start) << 0;
  d |= encode(leading_bytes) << 16;
  d |= encode(stride_bytes) << 32;
  d |= static_cast<std::uint64_t>(base_offset & 0x7u) << 49;
  d |= mode << 62;
  return d;
}

// CuTe: Swizzle<B, M, S> with yyy_msk = ((1 << B) - 1) << (M + S): offset ^ ((offset & yyy_msk) >> S).
unsigned cute_swizzle(int b, int m, int s, unsigned offset) {
  const unsigned yyy = ((1u << b) - 1u) << (m + s);
  return offset ^ ((offset & yyy) >> s);
}

// "Swizzle 16B chunks within a {32, 64, 128}B span": in the pattern of span/16 lines of 128 bytes
// (256, 512, 1024 bytes), chunk c of a span in line r goes to chunk c XOR (r mod span/16).
unsigned tma_swizzle(int span_bytes, unsigned offset) {
  if (span_bytes == 0) return offset;
  const unsigned chunks_per_span = static_cast<unsigned>(span_bytes) / 16;
  const unsigned line = offset / 128;
  const unsigned chunk_in_line = (offset % 128) / 16;
  const unsigned span_in_line = chunk_in_line / chunks_per_span;
  const unsigned chunk_in_span = chunk_in_line % chunks_per_span;
  const unsigned moved = chunk_in_span ^ (line % chunks_per_span);
  return line * 128 + (span_in_line * chunks_per_span + moved) * 16 + offset % 16;
}

// Shared Memory Matrix Layout. In units of 16 bytes ("128-bit elements", 8 16-bit values):
//  K-major: the operand is mn rows of 2 units (k 0..7, k 8..15). A swizzle atom is 8 rows of
//    span/16 units (Table 38: 8x1 none, 8x2 32B, 8x4 64B, 8x8 128B); a row of an atom is
//    contiguous. SBO: from one 8-row group to the next. LBO (no swizzle): from the first unit
//    column of the 8x2 tile to the second; swizzled: not used (the two units are adjacent).
//  M/N-major: k rows of mn units. A swizzle atom is span/16 units of mn by 8 rows of k
//    (Table 38: 1x8 none, 2x8, 4x8, 8x8); a k row of an atom is contiguous. LBO: interleave: from
//    the first 8 columns (k) to the next 8; swizzled: from the first span/16 units of mn to
//    the next. SBO: interleave: from one unit of mn (8 values) to the next; swizzled: from one
//    group of 8 k rows to the next.
// The swizzle then applies to the resulting address.
unsigned operand_address(bool k_major, int span_bytes, unsigned start, unsigned leading_bytes, unsigned stride_bytes,
                         int mn, int k) {
  const unsigned row_bytes = span_bytes == 0 ? 16u : static_cast<unsigned>(span_bytes);
  unsigned address = start;
  if (k_major) {
    const unsigned unit = static_cast<unsigned>(k) / 8, in_unit = static_cast<unsigned>(k) % 8;
    address += (static_cast<unsigned>(mn) / 8) * stride_bytes + (static_cast<unsigned>(mn) % 8) * row_bytes;
    address += span_bytes == 0 ? unit * leading_bytes : unit * 16;
    address += in_unit * 2;
  } else {
    const unsigned values_per_row = row_bytes / 2;  // mn values in one k row of an atom
    address += (static_cast<unsigned>(k) % 8) * row_bytes + (static_cast<unsigned>(mn) % values_per_row) * 2;
    if (span_bytes == 0) {
      address += (static_cast<unsigned>(k) / 8) * leading_bytes + (static_cast<unsigned>(mn) / 8) * stride_bytes;
    } else {
      address += (static_cast<unsigned>(k) / 8) * stride_bytes + (static_cast<unsigned>(mn) / values_per_row) * leading_bytes;
    }
  }
  return tma_swizzle(span_bytes, address);
}

}  // namespace pf_oracle::sm90
