// polyfuse device helper library: the umbrella header. Generated kernels include (or
// embed, in this order, without the local #include lines) the headers below.
//   instruction layer: pf_memory (ld/st/cp.async), pf_mma_m16n8k16, pf_ldmatrix, pf_mma_m8n8k4
//   warp layer:        warp tiles and fragment loads (same headers), pf_warp (shuffles)
//   block layer:       pf_block_copy, pf_accumulator_store, pf_pointwise
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
#include "pf_accumulator_store.cuh"
#include "pf_pointwise.cuh"
