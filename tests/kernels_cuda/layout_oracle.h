// The layout oracle: an independent table of the fragment layouts that the kernels/cuda
// helpers implement, written from the PTX ISA (the section is named at each function) and
// from the paper's macro-MMA figure, and cross-checked against CuTe's published layouts
// (layout_oracle_cute_test.cc). It is test-only and shares no code with the helpers: it
// includes nothing of kernels/cuda and none of its functions was derived from them, so a
// helper that drifts from the hardware's layout cannot take the oracle with it.
//
// The tests (layout_oracle_{mma,ldmatrix,store}_test.cc) run the helpers' host
// implementations on the emulator through the probe kernels of layout_oracle_kernels.cu,
// with inputs whose every element encodes its own (row, col), and compare every lane's
// every register with this table. That they can fail is tested too, without any switch in
// kernels/cuda: the build links the same test objects a second time with the probe kernels
// compiled from a copy of the helper headers in which plant_layout_bugs.cmake has planted
// wrong layouts (kernels_cuda_layout_oracle_planted_bugs), and the ctests
// kernels_cuda_layout_oracle_catches_* pass only if each planted bug makes its oracle test
// fail with the mismatch line it must print (expect_layout_mismatch.cmake).
//
// Every function answers, for one (lane, element) of a fragment, which (row, col) of the
// matrix that element holds. Elements are numbered as the PTX ISA numbers them ("a0, a1,
// ...", low to high): element i of a fragment of 16-bit values is the low (i even) or high
// (i odd) half of register i / 2. Matrices are indexed as in the PTX ISA: A is M x K (row m,
// col k), B is K x N (row k, col n), C/D is M x N.
#pragma once

#include <string>

namespace pf_oracle {

struct Coord {
  int row;
  int col;
  bool operator==(const Coord&) const = default;
};
std::string to_string(const Coord& c);  // "(row, col)"

// Storage order of an operand of mma.m8n8k4 and of the macro-MMAs (.row / .col).
enum class Major { row, col };
const char* to_string(Major m);

// ---- mma.m16n8k16, .f16 / .bf16 inputs, .f32 accumulators -----------------------------
// PTX ISA 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type".
// groupID = lane / 4, threadID_in_group = lane % 4.

// A (16 x 16): a0..a7 in four registers.
Coord mma_m16n8k16_a(int lane, int i);
// B (16 x 8): b0..b3 in two registers.
Coord mma_m16n8k16_b(int lane, int i);
// C/D (16 x 8, f32): c0..c3.
Coord mma_m16n8k16_c(int lane, int i);

// ---- mma.m16n8k8, .f16 / .bf16 (the two halves of m16n8k16 on sm_75) ---------------------
// PTX ISA 9.7.14.5.7 "Matrix Fragments for mma.m16n8k8".

// A (16 x 8): a0..a3 in two registers.
Coord mma_m16n8k8_a(int lane, int i);
// B (8 x 8): b0, b1 in one register.
Coord mma_m16n8k8_b(int lane, int i);

// ---- mma.m8n8k4, .f16 inputs, .f32 accumulators ---------------------------------------
// PTX ISA 9.7.14.5.1 "Matrix Fragments for mma.m8n8k4 with .f16 floating point type".
// A warp computes four independent 8x8x4 products; computation q is done by the quad pair
// of lanes 4q..4q+3 (low group) and 16+4q..16+4q+3 (high group), from those lanes'
// registers only. The coordinates below are inside that computation's matrices.

// Which computation (quad pair, 0..3) `lane` takes part in.
int mma_m8n8k4_quad_pair(int lane);
// The lanes of quad pair q, low group first.
void mma_m8n8k4_lanes(int q, int (&lanes)[8]);
// A (8 x 4), .row or .col: a0..a3 in two registers.
Coord mma_m8n8k4_a(Major a, int lane, int i);
// B (4 x 8), .row or .col: b0..b3 in two registers.
Coord mma_m8n8k4_b(Major b, int lane, int i);
// C/D (8 x 8, f32): c0..c7.
Coord mma_m8n8k4_c(int lane, int i);

// ---- The paper's macro-MMAs built from mma.m8n8k4 --------------------------------------
// Bhaskaracharya et al., "Automatic Kernel Generation for Volta Tensor Cores", §IV-A and
// Figure 2: a warp computes a 16x16x8 product with two m8n8k4 instructions. Quad pair q
// computes the 8x8 block (q % 2, q / 2) of C: thread 0 holds row 0 of A, which thread 8
// (quad pair 2) holds too, and column 0 of B, which thread 4 (quad pair 1) holds too. A
// lane's macro fragment is 8 halves: elements 0..3 are the operand of the first instruction
// (k 0..3), elements 4..7 that of the second (k 4..7). The accumulator fragment is the
// lane's 8 m8n8k4 accumulators, offset by its quad pair's block.

// A (16 x 8), element e = 0..7 of the lane's fragment.
Coord macro16x16x8_a(Major a, int lane, int e);
// B (8 x 16), element e = 0..7.
Coord macro16x16x8_b(Major b, int lane, int e);
// C (16 x 16), element e = 0..7.
Coord macro16x16x8_c(int lane, int e);

// ---- ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16 -------------------------
// PTX ISA 9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix" (its address table and
// Figure 104). `num` matrices of 8x8 16-bit elements; destination register q holds a
// fragment of matrix q.

// The lane whose address operand is row `row` of matrix `matrix` (matrix < num).
int ldmatrix_address_lane(int matrix, int row);
// Element `half` (0: low, 1: high) of a destination register of `lane`: (row, col) of the
// matrix as it lies in memory (row = the addressed row). With .trans the register holds the
// transposed matrix's fragment.
Coord ldmatrix_element(bool trans, int lane, int half);

// ---- Warp accumulator tiles of the helper API ------------------------------------------
// How a tile numbers its fragments is the helpers' documented API (pf_mma_m16n8k16.cuh,
// pf_mma_m8n8k4.cuh: "fragment (i, j) ... v[(i*NT + j)*4 + 0..3]", "piece (i, j) ... 8 f32
// per lane per piece"); where each element of a fragment lies is the PTX layout above.

// AccTile16816<MT, NT>: value v[idx] of `lane`, in the (16 MT) x (8 NT) tile.
Coord acc_tile_16816(int nt, int lane, int idx);
// AccTile884<MT, NT>: value v[idx] of `lane`, in the (16 MT) x (16 NT) tile.
Coord acc_tile_884(int nt, int lane, int idx);

}  // namespace pf_oracle
