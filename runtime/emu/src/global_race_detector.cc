#include "global_race_detector.h"

namespace polyfuse::emu {

void GlobalRaceDetector::begin_launch() {
  buffers_.clear();
  pages_ = 0;
}

GlobalRaceDetector::ByteShadow* GlobalRaceDetector::shadow(std::uintptr_t buffer_begin, std::uintptr_t address) {
  std::vector<std::unique_ptr<Page>>& pages = buffers_[buffer_begin];
  const std::size_t page = (address - buffer_begin) / page_bytes;
  if (page >= pages.size()) pages.resize(page + 1);
  if (!pages[page]) {
    if (pages_ >= max_pages) return nullptr;
    pages[page] = std::make_unique<Page>();
    ++pages_;
  }
  return &pages[page]->bytes[(address - buffer_begin) % page_bytes];
}

std::optional<GlobalRace> GlobalRaceDetector::access(std::uintptr_t buffer_begin, std::uintptr_t address,
                                                     unsigned bytes, Op op, unsigned block) {
  const std::uint32_t me = block + 1;
  ByteShadow* s = nullptr;
  for (std::uintptr_t a = address; a < address + bytes; ++a, ++s) {
    if (!s || (a - buffer_begin) % page_bytes == 0) {
      s = shadow(buffer_begin, a);
      if (!s) return std::nullopt;
    }
    const std::uint32_t writer = s->writer & ~atomic_bit;
    const bool writer_atomic = (s->writer & atomic_bit) != 0;
    if (writer != 0 && writer != me && !(op == Op::atomic && writer_atomic))
      return GlobalRace{op == Op::load ? RaceKind::read_after_write : RaceKind::write_after_write, a, writer - 1,
                        writer_atomic, false};
    if (op == Op::load) {
      if (s->reader == 0) s->reader = me;
      else if (s->reader != me) s->reader = several_readers;
      continue;
    }
    if (s->reader != 0 && s->reader != me)
      return GlobalRace{RaceKind::write_after_read, a, s->reader == several_readers ? 0 : s->reader - 1, false,
                        s->reader == several_readers};
    s->writer = me | (op == Op::atomic ? atomic_bit : 0);
  }
  return std::nullopt;
}

}  // namespace polyfuse::emu
