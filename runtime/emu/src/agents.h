// The asynchronous agents of a block, as the race detector and the sync clocks name them
// (ids >= kAgentIdBase, race_detector.h): whose accesses no barrier or warp collective orders.
//   TMA loads completing on the mbarrier of slot b          tma_agent(b)
//   the operand reads of warpgroup g's wgmma                wgmma_agent(g)
//   the source reads of the TMA stores issued by warp w     bulk_agent(w)
#pragma once

#include "race_detector.h"

namespace polyfuse::emu {

constexpr unsigned kMaxMbarriers = 64;   // mbarriers initialised per block
constexpr unsigned kMaxWarpgroups = 8;   // 1024 threads
constexpr unsigned kMaxWarps = 32;
constexpr unsigned kAgents = kMaxMbarriers + kMaxWarpgroups + kMaxWarps;

inline unsigned tma_agent(unsigned barrier_slot) { return kAgentIdBase + barrier_slot; }
inline unsigned wgmma_agent(unsigned warpgroup) { return kAgentIdBase + kMaxMbarriers + warpgroup; }
inline unsigned bulk_agent(unsigned warp) { return kAgentIdBase + kMaxMbarriers + kMaxWarpgroups + warp; }

enum class AgentKind { thread, tma_load, wgmma, tma_store };
inline AgentKind agent_kind(unsigned id) {
  if (id < kAgentIdBase) return AgentKind::thread;
  if (id < kAgentIdBase + kMaxMbarriers) return AgentKind::tma_load;
  if (id < kAgentIdBase + kMaxMbarriers + kMaxWarpgroups) return AgentKind::wgmma;
  return AgentKind::tma_store;
}
// The slot, warpgroup or warp of an agent id.
inline unsigned agent_index(unsigned id) {
  switch (agent_kind(id)) {
    case AgentKind::tma_load: return id - kAgentIdBase;
    case AgentKind::wgmma: return id - kAgentIdBase - kMaxMbarriers;
    case AgentKind::tma_store: return id - kAgentIdBase - kMaxMbarriers - kMaxWarpgroups;
    default: return id;
  }
}

}  // namespace polyfuse::emu
