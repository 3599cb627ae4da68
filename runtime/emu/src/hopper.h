// The Hopper operations' part of the emulator's launch (launch.cc) and of the ordinary memory
// hooks (host_hooks.cc); their own hooks are in mbarrier_hooks.cc, wgmma_hooks.cc, tma_hooks.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "launch_state.h"

namespace polyfuse::emu {

// A new launch / block (after the race detector and the asynchronous copies were reset).
void hopper_begin_launch(Launch& l);
void hopper_begin_block(Launch& l);
// Every thread of the block exited: the checks of the block as a whole (setmaxnreg).
void hopper_end_block(Launch& l);
// No thread can run: lets the copy engine finish every TMA load in flight; true when that
// made a thread runnable.
bool hopper_unstick(Launch& l);
// The deadlock of threads waiting on mbarriers or at a warpgroup's wgmma, as a message (""
// when no thread waits on either).
std::string hopper_deadlock(const Launch& l);
// An ordinary shared-memory access by the current thread: refuses the bytes of an mbarrier and
// the source of a TMA store in flight, and records stores for the proxy fence.
void hopper_shared_access(Launch& l, const ThreadState* t, std::size_t offset, unsigned bytes, bool store,
                          std::uint16_t site);
// The random schedule's chance for the copy engine to finish one TMA chunk early.
void hopper_schedule_point(Launch& l);
// "thread (x,y,z)" or the asynchronous agent of a race detector id (agents.h).
std::string agent_text(const Launch& l, unsigned id);
// The explanation of a TMA load chunk in flight (for "touches the destination of ...").
std::string pending_tma_text(const Launch& l, const AsyncCopy& c);

}  // namespace polyfuse::emu
