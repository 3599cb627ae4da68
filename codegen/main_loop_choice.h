// Which main loop a GPU kernel gets (issue 17): on sm_90a, TMA + wgmma where the Hopper path
// handles the kernel and TMA can load its operands, the sm_80 mma.sync main loop otherwise.
// The choice is made at compile time from the bound sizes; the kernel's header comment names
// it and, for a fallback, the reason. An operand TMA cannot address (its rows not a multiple of
// 16 bytes apart) is copied into the same swizzled stages by the block's threads while the other
// one still comes by TMA; when neither can come by TMA the sm_80 main loop (cp.async) is taken.
//
//   MainLoopChoice choice = choose_main_loop(program, plan, options);
//   // M = 300, N = 257, K = 128: tma_wgmma, A by TMA, B by threads ("TMA cannot load B: ...")
//   // K = 129 and N = 257: mma_sync, "TMA can load neither A (...) nor B (...)"
#pragma once

#include <string>

#include "frontend/program.h"
#include "runtime/tma/tensor_map_rules.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

enum class MainLoop {
  mma_sync,   // cp.async into shared memory, ldmatrix, mma.sync (sm_80 and newer)
  tma_wgmma,  // TMA into an S-stage ring on mbarriers, wgmma from shared memory (sm_90a)
};

// The tensor operand 'A' or 'B' of `mm` is read from: its prologue's source, or itself.
const std::string& operand_source(const MatmulStage& mm, char operand);

// The TMA element type of an operand of the Hopper main loop: f16, bf16, or bytes for FP8.
tma::DataType tma_data_type(ElementType type);

// The batches of matrices `tensor` holds (the product of its extents before the last two; bound
// sizes), or 0 for a plain matrix: a batched operand's tensor map is 3-d, dimension 2 the
// linearised batch (runtime/api/tensor_map_arguments.h).
std::int64_t operand_batches(const Program& program, const std::string& tensor);

// "mma.sync" / "TMA + wgmma".
const char* to_string(MainLoop loop);

// How the TMA + wgmma main loop fills an operand's part of a stage.
enum class OperandCopy {
  tma,      // TMA boxes completing on the stage's "full" mbarrier (transaction bytes)
  threads,  // every thread: ordinary loads and stores (pf_thread_tile_sm90.cuh), fence.proxy.async,
            // then an arrive on the stage's "full" mbarrier
  tma_prologue,  // the prologue's source by TMA, completing on the stage's "loaded" mbarrier; the
                 // producer's other warps apply the prologue to the tile where it landed
                 // (pf::sm90::transform_tile), fence.proxy.async, then arrive on "full"
};

struct MainLoopChoice {
  MainLoop loop = MainLoop::mma_sync;
  // Why the Hopper main loop was not taken on sm_90a ("" when it was, or for other targets).
  std::string fallback_reason;
  // TMA + wgmma: how A's and B's tiles reach the stages, and why one comes by threads ("" if not).
  OperandCopy a_copy = OperandCopy::tma, b_copy = OperandCopy::tma;
  std::string thread_copy_reason;
  // TMA + wgmma: the plan's two matmuls are added (codegen/added_matmuls.h) and run as one k-loop
  // into one accumulator: the first one's k-blocks, then the second's (their K may differ).
  bool chained = false;
  bool any_thread_copy() const { return a_copy == OperandCopy::threads || b_copy == OperandCopy::threads; }
  // An operand whose prologue the producer's threads apply in shared memory after TMA loaded it.
  bool any_prologue_in_place() const {
    return a_copy == OperandCopy::tma_prologue || b_copy == OperandCopy::tma_prologue;
  }
  // The producer's threads work on tiles (copy or transform): the register split gives them more.
  bool producer_threads_work() const { return any_thread_copy() || any_prologue_in_place(); }
};

// Why TMA cannot load the row-major `rows` x `cols` tensor `name` (`batches` of them, one after
// the other: a 3-d map whose dimension 2 is the linearised batch; 0: a plain matrix) in boxes
// of 128 bytes by 64 rows with 128-byte swizzle (the runtime's maps: runtime/api/tensor_map_arguments.h), or "".
std::string tma_refusal(const std::string& name, ElementType type, std::int64_t rows, std::int64_t cols,
                        std::int64_t batches);

// The main loop of the kernel of `plan`. TMA + wgmma needs: an arch with wgmma; one plain
// matmul, or two whose results the epilogue adds (codegen/added_matmuls.h: one accumulator, the
// k-blocks of one then of the other, any K; unbatched, the two A and the two B in one layout
// each), or two over the same output tiles and K without prologues whose four (or, sharing A,
// three) operands TMA loads, in one k-loop (`+=!`, batched or not: each operand indexed by all
// of C's batch indices first or by none; pointwise epilogues on its (b.., m, n) elements; a prologue on one
// operand: where TMA can load its source and the other operand, the producer's threads apply it
// to the tile TMA loaded (tma_prologue), else the threads that copy it apply it on the way); f16 or bf16 operands (A(m, k) or A(k, m),
// B(k, n) or B(n, k)), or FP8 ones (e4m3/e5m2, A(m, k) and B(n, k), both loaded by TMA); the default tile options (--block, --warp, --mma, --split-k and
// --stages are the mma.sync loop's); bound sizes; and a tensor map of A or of B that
// cuTensorMapEncodeTiled accepts
// (runtime/tma/tensor_map_rules.h: 16-byte row strides, boxes of 64 x 64 with 128-byte swizzle);
// the operand whose map it refuses is copied by threads.
MainLoopChoice choose_main_loop(const Program& program, const KernelPlan& plan, const GpuOptions& options);

// The header comment line of a kernel for `arch`: "" for targets without wgmma, else
// "// Main loop: mma.sync, the sm_80 path (<reason>).\n" or the TMA + wgmma line (naming an
// operand copied by threads, and why).
std::string main_loop_comment(const MainLoopChoice& choice, Arch arch);

}  // namespace polyfuse
