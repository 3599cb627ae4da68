// The text of an sm_80 mma.sync main loop written without the schedule tree (the back-to-back
// kernel, codegen/back_to_back_kernel.h, and the implicit GEMM, codegen/implicit_gemm_kernel.h):
// a k-loop through a cp.async ring of shared stages, the warps' m16n8k16 MMAs on a stage
// (warps of 32 rows: two A fragments, `fragments_n` B fragments), a matmul's epilogue on the
// accumulator fragments (codegen/cuda_epilogue.h), and small text helpers.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/cuda_emitter.h"
#include "codegen/cuda_kernel_layout.h"
#include "frontend/program.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// One matmul of a kernel with its epilogue, as the statement printer sees it: the layout's
// accumulator tile renamed acc_<C>, so that two matmuls' tiles have names of their own.
struct MatmulHalf {
  const Program& program;
  const KernelPlan& plan;
  CudaKernelLayout layout;
  int fragments_n;  // accumulator fragments of a warp along the columns (two along the rows)
};

// The layout of `plan`'s kernel with `o`, its accumulator tile named acc_<C>.
CudaKernelLayout half_layout(const Program& program, const KernelPlan& plan, const GpuOptions& o);

// The pf::Check code ("0".."3") of tiles whose rows / columns may cross the tensor's end.
std::string check_code(bool rows, bool cols);

// "scale * step" for a k-step expression ("0" for step 0).
std::string scaled(int scale, const std::string& step);

// Refuses options a kernel built from m16n8k16 MMAs without split-K cannot honour: `split_k`
// above 1 or another `mma` shape. `kernel` says which ("the attention kernel"), `name` its name.
void refuse_split_k_and_other_mma(const GpuOptions& options, const std::string& kernel, const std::string& name);

// `base + stage * bytes` of shared memory.
std::string stage_at(int base, const std::string& stage, int bytes);

// `text` with each line indented by `indent` spaces more.
std::string indented(const std::string& text, int indent);

using StepText = std::function<std::string(const std::string& step, const std::string& stage)>;
using StageText = std::function<std::string(const std::string& stage)>;

// A k-loop of `steps` k-steps through a ring of `stages` shared stages: `copies` are a k-step's
// cp.async copies into a stage, `compute` the warps' MMAs on a stage.
std::string k_loop(int steps, int stages, const StepText& copies, const StageText& compute);
// The same with `steps` an expression (a variable of the kernel: at least 1).
std::string k_loop(const std::string& steps, int stages, const StepText& copies, const StageText& compute);

// The fragments of one operand a k-slice loads from a shared tile of `cols` columns: the A
// fragments of rows 32 * warp_y.. at k `k0`, or the B fragments of k 16 * k_slice at column `n0`.
struct FragmentLoad {
  int cols = 0;
  std::string fragments;  // the register array
  std::string tile;       // the shared tile's address
  std::string origin;     // k0 (A) or n0 (B)
};

// The MMAs of one k-step: k-slices of 16, the warp's two A fragments (an [m][k] tile) and its
// `fragments_n` B fragments (a [k][n] tile, or [n][k] when `b_column_major`) loaded from shared
// memory, one mma per accumulator fragment. `f32_mode` ("pf::F32Mma::tf32", ...) for f32
// operands (pf_mma_tf32.cuh's fragment loads and macro-MMA), else "" (16-bit `type`).
std::string mmas(const std::string& type, const std::string& acc, int k_step, const FragmentLoad& a,
                 const FragmentLoad& b, int fragments_n, bool b_column_major, const std::string& f32_mode = "");

// The epilogue statements of `half` on the warp's fragments; `col` the global column of the
// warp's first one, `code` the operand loads' check code.
std::string epilogue(const MatmulHalf& half, const GpuOptions& o, const std::string& col, const std::string& code);

// The register tiles of `half` other than its accumulators (fresh epilogue results).
std::string other_tiles(const MatmulHalf& half);

// "const __half* __restrict__ A, ..." of a kernel's parameters (a tensor map's: "const __grid_constant__
// pf::sm90::TensorMap K_map").
std::string signature(const std::vector<KernelParameter>& parameters);

}  // namespace polyfuse
