// The asynchronous agents of a block, as the race detector and the sync clocks name them
// (ids >= kAgentIdBase, race_detector.h): whose accesses no barrier or warp collective orders.
//   TMA loads completing on the mbarrier of slot b          tma_agent(b)
//   the operand reads of warpgroup g's wgmma                wgmma_agent(g)
//   the source reads of the TMA stores issued by warp w     bulk_agent(w)
// and one id per warp that no access is recorded under: the sync clocks' column of warp w's
// wgmma retirements, wgmma_retirement(w) (sync_clocks.h: a warpgroup's wgmma reads are ordered
// before a thread once it has observed the retirement of all four warps' shares).
#pragma once

#include "race_detector.h"

namespace polyfuse::emu {

constexpr unsigned kMaxMbarriers = 64;   // mbarriers initialised per block
constexpr unsigned kMaxWarpgroups = 8;   // 1024 threads
constexpr unsigned kMaxWarps = 32;
constexpr unsigned kAgents = kMaxMbarriers + kMaxWarpgroups + 2 * kMaxWarps;

inline unsigned tma_agent(unsigned barrier_slot) { return kAgentIdBase + barrier_slot; }
inline unsigned wgmma_agent(unsigned warpgroup) { return kAgentIdBase + kMaxMbarriers + warpgroup; }
inline unsigned bulk_agent(unsigned warp) { return kAgentIdBase + kMaxMbarriers + kMaxWarpgroups + warp; }
inline unsigned wgmma_retirement(unsigned warp) { return kAgentIdBase + kMaxMbarriers + kMaxWarpgroups + kMaxWarps + warp; }

enum class AgentKind { thread, tma_load, wgmma, tma_store, wgmma_retirement };
inline AgentKind agent_kind(unsigned id) {
  if (id < kAgentIdBase) return AgentKind::thread;
  if (id < kAgentIdBase + kMaxMbarriers) return AgentKind::tma_load;
  if (id < kAgentIdBase + kMaxMbarriers + kMaxWarpgroups) return AgentKind::wgmma;
  if (id < kAgentIdBase + kMaxMbarriers + kMaxWarpgroups + kMaxWarps) return AgentKind::tma_store;
  return AgentKind::wgmma_retirement;
}
// The slot, warpgroup or warp of an agent id.
inline unsigned agent_index(unsigned id) {
  switch (agent_kind(id)) {
    case AgentKind::tma_load: return id - kAgentIdBase;
    case AgentKind::wgmma: return id - kAgentIdBase - kMaxMbarriers;
    case AgentKind::tma_store: return id - kAgentIdBase - kMaxMbarriers - kMaxWarpgroups;
    case AgentKind::wgmma_retirement: return id - kAgentIdBase - kMaxMbarriers - kMaxWarpgroups - kMaxWarps;
    default: return id;
  }
}

}  // namespace polyfuse::emu
