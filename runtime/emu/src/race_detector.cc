#include "race_detector.h"

#include <algorithm>

namespace polyfuse::emu {

void SharedRaceDetector::begin_launch(std::size_t bytes, unsigned warps) {
  shadow_.assign(bytes, ByteShadow{});
  warp_sync_.assign(warps, 0);
  block_sync_ = block_start_ = serial_ = 0;
}

std::uint32_t SharedRaceDetector::tick() {
  if (serial_ == 0xfffffff0u) {  // wrap-around: forget everything (all of it is ordered before)
    std::fill(shadow_.begin(), shadow_.end(), ByteShadow{});
    serial_ = block_start_ = 0;
  }
  return ++serial_;
}

void SharedRaceDetector::block_barrier() {
  block_sync_ = tick();
  std::fill(warp_sync_.begin(), warp_sync_.end(), block_sync_);
}

void SharedRaceDetector::warp_sync(unsigned warp) { warp_sync_[warp] = tick(); }

bool SharedRaceDetector::unordered(const AccessRecord& x, unsigned thread) const {
  if (x.serial < block_start_ || x.thread == thread) return false;
  if (x.thread >= kAgentIdBase) return !(extra_ && extra_->ordered(x.serial, x.thread, thread));
  if (x.serial < block_sync_) return false;
  const unsigned warp = thread / 32;
  if (x.thread < kAgentIdBase && x.thread / 32u == warp && x.serial < warp_sync_[warp]) return false;
  return !(extra_ && extra_->ordered(x.serial, x.thread, thread));
}

std::optional<SharedRace> SharedRaceDetector::check_read(std::size_t offset, unsigned bytes, unsigned thread) const {
  for (std::size_t i = offset; i < offset + bytes; ++i)
    if (unordered(shadow_[i].write, thread)) return SharedRace{RaceKind::read_after_write, i, shadow_[i].write};
  return std::nullopt;
}

void SharedRaceDetector::record_agent_read(std::size_t offset, unsigned bytes, unsigned id, std::uint16_t site) {
  const AccessRecord r{serial_, static_cast<std::uint16_t>(id), site};
  for (std::size_t i = offset; i < offset + bytes; ++i) {
    ByteShadow& s = shadow_[i];
    if (s.read_a.serial >= block_sync_ && s.read_a.thread != id) s.read_b = s.read_a;
    s.read_a = r;
  }
}

std::optional<SharedRace> SharedRaceDetector::read(std::size_t offset, unsigned bytes, unsigned thread,
                                                   std::uint16_t site) {
  const AccessRecord r{serial_, static_cast<std::uint16_t>(thread), site};
  const unsigned warp = thread / 32;
  for (std::size_t i = offset; i < offset + bytes; ++i) {
    ByteShadow& s = shadow_[i];
    if (unordered(s.write, thread)) return SharedRace{RaceKind::read_after_write, i, s.write};
    if (s.read_a.serial < block_sync_) {
      s.read_a = r;
      s.read_b = s.read_c = AccessRecord{};
    } else if (s.read_a.thread / 32u == warp) {
      if (s.read_a.serial < warp_sync_[warp]) s.read_c = AccessRecord{};
      else if (s.read_a.thread != thread) s.read_c = s.read_a;
      s.read_a = r;
    } else {
      s.read_b = s.read_a;
      s.read_c = AccessRecord{};
      s.read_a = r;
    }
  }
  return std::nullopt;
}

std::optional<SharedRace> SharedRaceDetector::check_write(std::size_t offset, unsigned bytes, unsigned thread) const {
  for (std::size_t i = offset; i < offset + bytes; ++i) {
    const ByteShadow& s = shadow_[i];
    if (unordered(s.write, thread)) return SharedRace{RaceKind::write_after_write, i, s.write};
    for (const AccessRecord* r : {&s.read_a, &s.read_b, &s.read_c})
      if (unordered(*r, thread)) return SharedRace{RaceKind::write_after_read, i, *r};
  }
  return std::nullopt;
}

void SharedRaceDetector::record_write(std::size_t offset, unsigned bytes, unsigned thread, std::uint16_t site) {
  const AccessRecord w{serial_, static_cast<std::uint16_t>(thread), site};
  for (std::size_t i = offset; i < offset + bytes; ++i) shadow_[i] = ByteShadow{w, {}, {}, {}};
}

std::optional<SharedRace> SharedRaceDetector::write(std::size_t offset, unsigned bytes, unsigned thread,
                                                    std::uint16_t site) {
  if (auto race = check_write(offset, bytes, thread)) return race;
  record_write(offset, bytes, thread, site);
  return std::nullopt;
}

}  // namespace polyfuse::emu
