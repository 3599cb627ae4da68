#include "async_proxy.h"

namespace polyfuse::emu {

void AsyncProxy::begin_launch(std::size_t bytes, unsigned threads) {
  bytes_.assign(bytes, Write{});
  fence_.assign(threads, 0);
  stamp_ = 0;
  block_start_ = 1;
}

void AsyncProxy::begin_block() {
  block_start_ = ++stamp_;
  for (std::uint64_t& f : fence_) f = 0;
}

void AsyncProxy::generic_write(std::size_t offset, unsigned bytes, unsigned thread, std::uint16_t site) {
  const Write w{++stamp_, static_cast<std::uint16_t>(thread), site};
  for (std::size_t i = offset; i < offset + bytes && i < bytes_.size(); ++i) bytes_[i] = w;
}

void AsyncProxy::async_write(std::size_t offset, unsigned bytes) {
  for (std::size_t i = offset; i < offset + bytes && i < bytes_.size(); ++i) bytes_[i].stamp = 0;
}

std::optional<AsyncProxy::Unfenced> AsyncProxy::unfenced(std::size_t offset, unsigned bytes) const {
  for (std::size_t i = offset; i < offset + bytes && i < bytes_.size(); ++i) {
    const Write& w = bytes_[i];
    if (w.stamp >= block_start_ && fence_[w.thread] < w.stamp) return Unfenced{i, w.thread, w.site};
  }
  return std::nullopt;
}

}  // namespace polyfuse::emu
