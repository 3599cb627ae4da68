#include "wgmma_state.h"

#include <algorithm>

namespace polyfuse::emu {

WgmmaInFlight* WgmmaThread::on_accumulators(const void* d) {
  for (WgmmaInFlight& w : in_flight)
    if (w.d == d) return &w;
  return nullptr;
}

WgmmaInFlight* WgmmaThread::on_a_fragment(const void* a) {
  for (WgmmaInFlight& w : in_flight)
    if (w.a_fragment && w.a_fragment == a) return &w;
  return nullptr;
}

bool WgmmaThread::was_touched(const void* registers) const {
  return std::find(touched.begin(), touched.end(), registers) != touched.end();
}

void WgmmaState::begin_launch(unsigned threads) {
  threads_.assign(threads, WgmmaThread{});
  arrivals_.assign((threads + 127) / 128, WarpgroupArrival{});
}

void WgmmaState::begin_block() {
  for (WgmmaThread& t : threads_) t = WgmmaThread{};
  for (WarpgroupArrival& a : arrivals_) a.arrived = 0;
}

}  // namespace polyfuse::emu
