// polyfuse device helpers, Hopper: the tensor memory accelerator (PTX ISA 9.7.9.27
// "cp.async.bulk.tensor", 9.7.9.24 "cp.async.bulk.commit_group/wait_group"; sm_90).
//
// Instruction layer:
//   tma_load_2d / tma_load_3d(dst, map, c0, c1[, c2], bar)
//       cp.async.bulk.tensor.{2,3}d.shared::cluster.global.mbarrier::complete_tx::bytes: the box
//       of `map` at element coordinates (c0 innermost, signed) to shared `dst` (128-byte aligned;
//       a swizzled box at a multiple of its pattern, 1024 bytes for 128B); parts of the box
//       outside the tensor are zero-filled; it completes on mbarrier `bar` with the box's byte
//       count as transactions (pf_mbarrier.cuh: arrive_expect_tx those bytes on `bar`).
//   tma_store_2d / tma_store_3d(map, c0, c1[, c2], src)
//       cp.async.bulk.tensor.{2,3}d.global.shared::cta.bulk_group: the box in shared `src` to the
//       tensor (elements outside it are not written). The source must not change before
//       bulk_wait_read<N>() retired the copy; ordinary stores to it need fence_proxy_async first.
//   bulk_commit(), bulk_wait<N>(), bulk_wait_read<N>()
//       cp.async.bulk.commit_group / wait_group N / wait_group.read N of the calling thread.
// Block-copy layer:
//   tma_load_tile(tile, map, inner0, outer0, rows, s, bar)
//       the canonical tile of pf_swizzle_sm90.cuh (one box of W/2 x rows per atom column; the
//       map's box is {W/2, rows} with swizzle s) — returns the transaction bytes it issued.
//   tma_load_batched_tile(tile, map, inner0, outer0, batch, rows, atoms, s, bar)
//       the same from matrix `batch` of a 3-d map (dimension 2 the batch, box {W/2, rows, 1}).
//   tma_load_2d_multicast(dst, map, c0, c1, bar, mask), tma_load_tile_multicast(..., bar, mask)
//       .multicast::cluster (sm_90a): the box lands at the same offset in every block of the
//       cluster in `mask` (bit r: rank r) and completes its bytes on each one's mbarrier at
//       bar's offset (pf_cluster.cuh: each of them expects those bytes).
//
// The map (a CUtensorMap, 128 opaque bytes) is a kernel parameter passed by value:
//     (kernel parameter)  const __grid_constant__ pf::sm90::TensorMap map_a
// built on the host by runtime/tma (cuTensorMapEncodeTiled on a GPU, the emulator's encoder
// otherwise; both check the driver's rules first).
#pragma once

#include "pf_base.cuh"
#include "pf_sm90.cuh"
#include "pf_swizzle_sm90.cuh"

namespace pf {
namespace sm90 {

// CUtensorMap's size and alignment (cuda.h: 128 bytes, 64-byte aligned).
struct __align__(64) TensorMap {
  unsigned long long opaque[16];
};

PF_DEVICE void tma_load_2d(void* dst, const TensorMap& map, int c0, int c1, unsigned long long* bar) {
#if PF_SM90_PATH
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          shared_window_address(dst)),
      "l"(&map), "r"(c0), "r"(c1), "r"(shared_window_address(bar))
      : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");  // TMA needs sm_90
#elif PF_HOST_PATH
  const int coords[2] = {c0, c1};
  ::pf_host::tma_load(dst, &map, coords, 2, bar);
#endif
}

PF_DEVICE void tma_load_3d(void* dst, const TensorMap& map, int c0, int c1, int c2, unsigned long long* bar) {
#if PF_SM90_PATH
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::
          "r"(shared_window_address(dst)),
      "l"(&map), "r"(c0), "r"(c1), "r"(c2), "r"(shared_window_address(bar))
      : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  const int coords[3] = {c0, c1, c2};
  ::pf_host::tma_load(dst, &map, coords, 3, bar);
#endif
}

// tma_load_2d into every block of the cluster named by `mask` (bit r: rank r), at dst's offset
// in each, completing on the mbarrier at bar's offset in each (.multicast::cluster, sm_90a).
PF_DEVICE void tma_load_2d_multicast(void* dst, const TensorMap& map, int c0, int c1, unsigned long long* bar,
                                     unsigned short mask) {
#if PF_SM90A_PATH
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3}], [%4], %5;" ::"r"(shared_window_address(dst)),
      "l"(&map), "r"(c0), "r"(c1), "r"(shared_window_address(bar)), "h"(mask)
      : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");  // TMA multicast needs sm_90a
#elif PF_HOST_PATH
  const int coords[2] = {c0, c1};
  ::pf_host::tma_load_multicast(dst, &map, coords, 2, bar, mask);
#endif
}

PF_DEVICE void tma_store_2d(const TensorMap& map, int c0, int c1, const void* src) {
#if PF_SM90_PATH
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&map), "r"(c0),
               "r"(c1), "r"(shared_window_address(src))
               : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  const int coords[2] = {c0, c1};
  ::pf_host::tma_store(&map, coords, 2, src);
#endif
}

PF_DEVICE void tma_store_3d(const TensorMap& map, int c0, int c1, int c2, const void* src) {
#if PF_SM90_PATH
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(&map),
               "r"(c0), "r"(c1), "r"(c2), "r"(shared_window_address(src))
               : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  const int coords[3] = {c0, c1, c2};
  ::pf_host::tma_store(&map, coords, 3, src);
#endif
}

PF_DEVICE void bulk_commit() {
#if PF_SM90_PATH
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::bulk_commit();
#endif
}

// Waits until at most N bulk groups of the thread are pending (their writes done).
template <int N> PF_DEVICE void bulk_wait() {
#if PF_SM90_PATH
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::bulk_wait(N, false);
#endif
}

// Waits until at most N bulk groups of the thread still read their shared-memory sources.
template <int N> PF_DEVICE void bulk_wait_read() {
#if PF_SM90_PATH
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::bulk_wait(N, true);
#endif
}

// Loads the canonical tile (pf_swizzle_sm90.cuh) whose contiguous dimension starts at
// element `inner0` and whose rows start at `outer0`: `atoms` boxes of {W/2, rows}, box j at
// inner0 + j W/2 into atom column j. Returns the bytes the boxes move (for expect_tx).
PF_DEVICE unsigned tma_load_tile(void* tile, const TensorMap& map, int inner0, int outer0, int rows, int atoms,
                                 Swizzle s, unsigned long long* bar) {
PF_UNROLL
  for (int j = 0; j < atoms; ++j)
    tma_load_2d(static_cast<unsigned char*>(tile) + atom_column_offset(s, rows, j), map, inner0 + j * box_inner(s), outer0,
                bar);
  return static_cast<unsigned>(atoms * rows * row_bytes(s));
}

// tma_load_tile multicast to the blocks of `mask` (tma_load_2d_multicast).
PF_DEVICE unsigned tma_load_tile_multicast(void* tile, const TensorMap& map, int inner0, int outer0, int rows, int atoms,
                                           Swizzle s, unsigned long long* bar, unsigned short mask) {
PF_UNROLL
  for (int j = 0; j < atoms; ++j)
    tma_load_2d_multicast(static_cast<unsigned char*>(tile) + atom_column_offset(s, rows, j), map, inner0 + j * box_inner(s),
                          outer0, bar, mask);
  return static_cast<unsigned>(atoms * rows * row_bytes(s));
}

// tma_load_tile from matrix `batch` of a 3-d map whose dimension 2 is the batch.
PF_DEVICE unsigned tma_load_batched_tile(void* tile, const TensorMap& map, int inner0, int outer0, int batch, int rows,
                                         int atoms, Swizzle s, unsigned long long* bar) {
PF_UNROLL
  for (int j = 0; j < atoms; ++j)
    tma_load_3d(static_cast<unsigned char*>(tile) + atom_column_offset(s, rows, j), map, inner0 + j * box_inner(s), outer0,
                batch, bar);
  return static_cast<unsigned>(atoms * rows * row_bytes(s));
}

}  // namespace sm90
}  // namespace pf
