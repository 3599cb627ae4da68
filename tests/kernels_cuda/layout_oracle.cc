// The layout oracle (see layout_oracle.h). Each function restates its PTX ISA section's
// "row =" / "col =" formulas with the section's own names (groupID, threadID_in_group, the
// low and high group of a quad pair).
#include "layout_oracle.h"

namespace pf_oracle {
namespace {
int group_id(int lane) { return lane >> 2; }           // groupID = %laneid >> 2
int thread_in_group(int lane) { return lane % 4; }     // threadID_in_group = %laneid % 4
bool high_group(int lane) { return lane >= 16; }       // m8n8k4: "otherwise" (%laneid >= 16)
}  // namespace

std::string to_string(const Coord& c) {
  std::string s = "(";  // appended piece by piece: GCC 12 warns falsely on "(" + std::string (PR 105329)
  s += std::to_string(c.row);
  s += ", ";
  s += std::to_string(c.col);
  return s + ")";
}
const char* to_string(Major m) { return m == Major::row ? "row" : "col"; }

// PTX ISA 9.7.14.5.8, multiplicand A, .f16/.bf16:
//   row = groupID for a0, a1, a4, a5; groupID + 8 for a2, a3, a6, a7
//   col = threadID_in_group * 2 + (i & 1), plus 8 for a4..a7
Coord mma_m16n8k16_a(int lane, int i) {
  const bool lower_rows = i < 2 || (i >= 4 && i < 6);
  return {group_id(lane) + (lower_rows ? 0 : 8), thread_in_group(lane) * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
}

// PTX ISA 9.7.14.5.8, multiplicand B, .f16/.bf16:
//   row = threadID_in_group * 2 + (i & 1), plus 8 for b2, b3;   col = groupID
Coord mma_m16n8k16_b(int lane, int i) {
  return {thread_in_group(lane) * 2 + (i & 1) + (i >= 2 ? 8 : 0), group_id(lane)};
}

// PTX ISA 9.7.14.5.8, accumulators C/D:
//   row = groupID for c0, c1; groupID + 8 for c2, c3;   col = threadID_in_group * 2 + (i & 1)
Coord mma_m16n8k16_c(int lane, int i) {
  return {group_id(lane) + (i >= 2 ? 8 : 0), thread_in_group(lane) * 2 + (i & 1)};
}

// PTX ISA 9.7.14.5.7, multiplicand A, .f16/.bf16:
//   row = groupID for a0, a1; groupID + 8 for a2, a3;   col = threadID_in_group * 2 + (i & 1)
Coord mma_m16n8k8_a(int lane, int i) {
  return {group_id(lane) + (i >= 2 ? 8 : 0), thread_in_group(lane) * 2 + (i & 1)};
}

// PTX ISA 9.7.14.5.7, multiplicand B, .f16/.bf16:
//   row = threadID_in_group * 2 + i;   col = groupID
Coord mma_m16n8k8_b(int lane, int i) { return {thread_in_group(lane) * 2 + i, group_id(lane)}; }

// PTX ISA 9.7.14.5.1, the table of MMA computations: computation q + 1 is done by %laneid
// 4q..4q+3 (low group) and 16+4q..16+4q+3 (high group).
int mma_m8n8k4_quad_pair(int lane) { return (lane % 16) / 4; }
void mma_m8n8k4_lanes(int q, int (&lanes)[8]) {
  for (int t = 0; t < 4; ++t) {
    lanes[t] = 4 * q + t;
    lanes[4 + t] = 16 + 4 * q + t;
  }
}

// PTX ISA 9.7.14.5.1, multiplicand A (.f16):
//   row major:    row = %laneid % 4 (+ 4 in the high group);   col = i
//   column major: row = i % 4 (+ 4 in the high group);         col = %laneid % 4
Coord mma_m8n8k4_a(Major a, int lane, int i) {
  const int high = high_group(lane) ? 4 : 0;
  if (a == Major::row) return {lane % 4 + high, i};
  return {i % 4 + high, lane % 4};
}

// PTX ISA 9.7.14.5.1, multiplicand B (.f16):
//   row major:    row = %laneid % 4;   col = i (+ 4 in the high group)
//   column major: row = i;             col = %laneid % 4 (+ 4 in the high group)
Coord mma_m8n8k4_b(Major b, int lane, int i) {
  const int high = high_group(lane) ? 4 : 0;
  if (b == Major::row) return {lane % 4, i + high};
  return {i, lane % 4 + high};
}

// PTX ISA 9.7.14.5.1, accumulators C/D with .ctype .f32 (Figures 51 and 52):
//   row = X (+ 4 in the high group), X = (%laneid & 0b1) + (i & 0b10)
//   col = (i & 0b100) + (%laneid & 0b10) + (i & 0b1)
Coord mma_m8n8k4_c(int lane, int i) {
  const int x = (lane & 1) + (i & 2);
  return {x + (high_group(lane) ? 4 : 0), (i & 4) + (lane & 2) + (i & 1)};
}

// The paper's Figure 2: quad pair q holds the A rows of block row q % 2 (threads 0 and 8
// share row 0) and the B columns of block column q / 2 (threads 0 and 4 share column 0);
// element e belongs to instruction e / 4, which covers k = 4 (e / 4) .. 4 (e / 4) + 3.
Coord macro16x16x8_a(Major a, int lane, int e) {
  const int q = mma_m8n8k4_quad_pair(lane), instruction = e / 4;
  const Coord in_qp = mma_m8n8k4_a(a, lane, e % 4);
  return {8 * (q % 2) + in_qp.row, 4 * instruction + in_qp.col};
}
Coord macro16x16x8_b(Major b, int lane, int e) {
  const int q = mma_m8n8k4_quad_pair(lane), instruction = e / 4;
  const Coord in_qp = mma_m8n8k4_b(b, lane, e % 4);
  return {4 * instruction + in_qp.row, 8 * (q / 2) + in_qp.col};
}
Coord macro16x16x8_c(int lane, int e) {
  const int q = mma_m8n8k4_quad_pair(lane);
  const Coord in_qp = mma_m8n8k4_c(lane, e);
  return {8 * (q % 2) + in_qp.row, 8 * (q / 2) + in_qp.col};
}

// PTX ISA 9.7.14.5.15, the address table: threads 0-7 hold addr0-addr7 (the rows of the
// first matrix), threads 8-15 addr8-addr15 (the second), and so on.
int ldmatrix_address_lane(int matrix, int row) { return 8 * matrix + row; }

// PTX ISA 9.7.14.5.15, Figure 104: a group of four consecutive threads loads one row; thread
// t receives row t / 4, elements 2 (t % 4) and 2 (t % 4) + 1 (low half first). .trans loads
// the matrix in column-major format: the register holds what the plain load would give for
// the transposed matrix, i.e. rows 2 (t % 4) and 2 (t % 4) + 1 of column t / 4.
Coord ldmatrix_element(bool trans, int lane, int half) {
  const int along = lane / 4, across = 2 * (lane % 4) + half;
  return trans ? Coord{across, along} : Coord{along, across};
}

Coord acc_tile_16816(int nt, int lane, int idx) {
  const int fragment = idx / 4;
  const Coord c = mma_m16n8k16_c(lane, idx % 4);
  return {16 * (fragment / nt) + c.row, 8 * (fragment % nt) + c.col};
}
Coord acc_tile_884(int nt, int lane, int idx) {
  const int piece = idx / 8;
  const Coord c = macro16x16x8_c(lane, idx % 8);
  return {16 * (piece / nt) + c.row, 16 * (piece % nt) + c.col};
}

}  // namespace pf_oracle
