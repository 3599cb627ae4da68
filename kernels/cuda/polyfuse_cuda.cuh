// polyfuse device helper library: the umbrella header. Generated kernels include (or
// embed, in this order, without the local #include lines) the headers below.
//   instruction layer: pf_memory (ld/st/cp.async), pf_mma_m16n8k16, pf_ldmatrix, pf_mma_m8n8k4
//   warp layer:        warp tiles and fragment loads (same headers), pf_warp (shuffles)
//   f32 operands:      pf_mma_tf32 (cvt.rna.tf32, mma m16n8k8 tf32, 3xTF32, fragment loads)
//   block layer:       pf_block_copy, pf_gather_copy (implicit GEMM A tiles), pf_accumulator_store, pf_pointwise,
//                      pf_pointwise_x2 (f16x2/bf16x2 prologues), pf_tile_order (grid order)
//   Hopper (sm_90/sm_90a, pf::sm90): pf_sm90 (guards, warpgroups), pf_swizzle_sm90 (TMA/wgmma
//                      swizzles, canonical tiles), pf_wgmma_desc, pf_wgmma_operands, pf_wgmma,
//                      pf_mbarrier, pf_tma (instruction layer), pf_wgmma_tile (warpgroup tiles),
//                      pf_epilogue_chunk (the epilogue's 128-bit chunks of a row),
//                      pf_thread_tile_sm90 (TMA's tiles written by threads, where TMA cannot),
//                      pf_attention_sm90 (the attention kernel's softmax on wgmma accumulators).
//                      Every wrapper guards its PTX by target (PF_SM90_PATH / PF_SM90A_PATH), so
//                      sm_80 and sm_90 builds of kernels that do not call them are unaffected.
#pragma once

#include "host_hooks.h"
#include "pf_base.cuh"
#include "pf_memory.cuh"
#include "pf_swizzle.cuh"
#include "pf_warp.cuh"
#include "pf_mma_m16n8k16.cuh"
#include "pf_ldmatrix.cuh"
#include "pf_mma_m8n8k4.cuh"
#include "pf_block_copy.cuh"
#include "pf_gather_copy.cuh"
#include "pf_mma_tf32.cuh"
#include "pf_accumulator_store.cuh"
#include "pf_resident_tile.cuh"
#include "pf_pointwise.cuh"
#include "pf_pointwise_x2.cuh"
#include "pf_attention.cuh"
#include "pf_row.cuh"
#include "pf_epilogue_vector.cuh"
#include "pf_epilogue_chunk.cuh"
#include "pf_tile_order.cuh"
#include "pf_sm90.cuh"
#include "pf_swizzle_sm90.cuh"
#include "pf_wgmma_desc.cuh"
#include "pf_wgmma_operands.cuh"
#include "pf_wgmma.cuh"
#include "pf_mbarrier.cuh"
#include "pf_cluster.cuh"
#include "pf_setmaxnreg.cuh"
#include "pf_warpgroup_barrier.cuh"
#include "pf_tma.cuh"
#include "pf_thread_tile_sm90.cuh"
#include "pf_wgmma_tile.cuh"
#include "pf_attention_sm90.cuh"
