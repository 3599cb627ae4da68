// Thread-block clusters in the emulator's launch (launch.cc) and in the cluster hooks
// (cluster_hooks.cc, mbarrier_hooks.cc, tma_hooks.cc): the launch's rules, the block exit
// check, and shared::cluster addresses.
//
// A cluster's blocks run together (launch_state.h): their threads are one pool, their dynamic
// shared memories one window, block r's at r * block_stride. A shared::cluster address (mapa,
// pf_cluster.cuh) reaches a peer's shared memory; what a thread does there is a remote
// operation, recorded per target block with the phase of barrier.cluster it happened in (the
// phase the thread arrives on next). A block may exit only once every remote operation into it
// is ordered before its exit: a later phase of barrier.cluster completed (all the cluster's
// threads, the remote one's included, arrived after it), and no TMA load still writes it.
#pragma once

#include <cstdint>
#include <string>

#include "launch_state.h"

namespace polyfuse::emu {

// Refuses a cluster shape the hardware does not launch (a dimension 0, a grid dimension that is
// not a multiple of it, more than 8 blocks) or the emulator does not model (over 1024 threads).
void check_cluster(const std::string& kernel, dim3 grid, dim3 cluster, unsigned block_threads);

// Every thread of block `rank` of the running cluster exited (cluster launches only).
void cluster_block_exits(Launch& l, unsigned rank);

// The offset in the cluster's window of the `bytes` at shared::cluster (or shared::cta) address
// `address` used by the current thread for `what`: refuses a rank outside the cluster, bytes
// outside that block's shared memory, and a block that has exited; records a remote operation.
std::size_t cluster_window_offset(Launch& l, const ThreadState* t, unsigned address, unsigned bytes, const char* what,
                                  std::uint16_t site);
// Records a remote operation `what` of the current thread into block `rank` (the own: nothing);
// refuses a block that has exited.
void note_remote(Launch& l, const ThreadState* t, unsigned rank, const char* what, std::uint16_t site);

}  // namespace polyfuse::emu
