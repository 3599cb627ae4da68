#include "bench/gpu/sizes.h"

#include <charconv>
#include <random>

namespace polyfuse::bench {

std::vector<ProblemSize> random_sizes(int count, std::uint64_t seed, std::int64_t batch) {
  // The raw engine output is fully specified by the standard (unlike the distributions),
  // and 2^64 is a multiple of 32, so `% 32` is unbiased.
  std::mt19937_64 engine(seed);
  const std::uint64_t steps = static_cast<std::uint64_t>(max_dimension / size_step);
  auto draw = [&] { return size_step * static_cast<std::int64_t>(engine() % steps + 1); };
  std::vector<ProblemSize> sizes;
  sizes.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    ProblemSize size;
    size.m = draw();
    size.n = draw();
    size.k = draw();
    size.batch = batch;
    sizes.push_back(size);
  }
  return sizes;
}

std::vector<ProblemSize> quick_sizes(std::uint64_t seed, std::int64_t batch) {
  return random_sizes(quick_size_count, seed, batch);
}

std::optional<ProblemSize> parse_size(const std::string& text, std::int64_t batch) {
  ProblemSize size;
  size.batch = batch;
  std::int64_t* fields[3] = {&size.m, &size.n, &size.k};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, error] = std::from_chars(p, end, *fields[i]);
    if (error != std::errc() || *fields[i] < 1) return std::nullopt;
    p = next;
    if (i < 2) {
      if (p == end || *p != 'x') return std::nullopt;
      ++p;
    }
  }
  if (p != end) return std::nullopt;
  return size;
}

std::string to_string(const ProblemSize& size) {
  return std::to_string(size.m) + "x" + std::to_string(size.n) + "x" + std::to_string(size.k);
}

double matmul_flops(const ProblemSize& size) {
  return 2.0 * static_cast<double>(size.m) * static_cast<double>(size.n) * static_cast<double>(size.k) *
         static_cast<double>(size.batch);
}

}  // namespace polyfuse::bench
