#include "schedule_policy.h"

#include <charconv>
#include <string>

namespace polyfuse::emu {

void Scheduler::begin_block(const Schedule& schedule, unsigned block_linear, unsigned threads) {
  schedule_ = schedule;
  threads_ = threads;
  cursor_ = 0;
  state_ = schedule.seed * 0x9e3779b97f4a7c15ull ^ (static_cast<std::uint64_t>(block_linear) << 32 | block_linear);
  leader_ = 0;
  barrier_completed();
}

void Scheduler::barrier_completed() {
  cursor_ = 0;
  if (schedule_.kind == ScheduleKind::warp_ahead) leader_ = static_cast<unsigned>(uniform((threads_ + 31) / 32));
}

std::uint64_t Scheduler::draw() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Schedule parse_schedule(std::string_view text) {
  const std::string_view name = text.substr(0, text.find(':'));
  Schedule s;
  if (name == "round_robin") s.kind = ScheduleKind::round_robin;
  else if (name == "random") s.kind = ScheduleKind::random;
  else if (name == "warp_ahead") s.kind = ScheduleKind::warp_ahead;
  else
    throw EmulationError("polyfuse emu: unknown schedule '" + std::string(text) +
                         "' (expected round_robin, random[:SEED] or warp_ahead[:SEED])");
  if (name.size() < text.size()) {
    const std::string_view seed = text.substr(name.size() + 1);
    const auto [end, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), s.seed);
    if (ec != std::errc() || end != seed.data() + seed.size() || s.kind == ScheduleKind::round_robin)
      throw EmulationError("polyfuse emu: bad schedule seed in '" + std::string(text) +
                           "' (random:SEED or warp_ahead:SEED with a decimal SEED)");
  }
  return s;
}

std::string to_string(const Schedule& schedule) {
  switch (schedule.kind) {
    case ScheduleKind::round_robin: return "round_robin";
    case ScheduleKind::random: return "random:" + std::to_string(schedule.seed);
    case ScheduleKind::warp_ahead: return "warp_ahead:" + std::to_string(schedule.seed);
  }
  return "?";
}

}  // namespace polyfuse::emu
