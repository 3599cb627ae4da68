// Problem sizes of the GPU benchmark: the paper's protocol (random M, N, K, each a
// multiple of 128 up to 4096, from a fixed seed) and the quick subset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace polyfuse::bench {

// One problem size. `batch` matters only for batched idioms (1 for the others).
struct ProblemSize {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;

  bool operator==(const ProblemSize&) const = default;
};

// The seed of the paper protocol's sizes (issue 7: fixed, so every run measures the
// same problems).
inline constexpr std::uint64_t default_size_seed = 2019;
// Sizes of the full protocol and of --quick.
inline constexpr int full_size_count = 100;
inline constexpr int quick_size_count = 20;
// Every dimension is a multiple of `size_step` in [size_step, max_dimension].
inline constexpr std::int64_t size_step = 128;
inline constexpr std::int64_t max_dimension = 4096;

// `count` sizes (M, N, K), each a multiple of 128 in [128, 4096], drawn from
// std::mt19937_64 seeded with `seed` (three draws per size, M then N then K, each
// 128 * (draw % 32 + 1)): the same list on every platform. `batch` is copied into each.
std::vector<ProblemSize> random_sizes(int count, std::uint64_t seed, std::int64_t batch);

// The first `quick_size_count` sizes of the same sequence, so a quick run measures a
// subset of the full protocol's problems.
std::vector<ProblemSize> quick_sizes(std::uint64_t seed, std::int64_t batch);

// Parses "MxNxK" (each an integer >= 1); nullopt when malformed.
std::optional<ProblemSize> parse_size(const std::string& text, std::int64_t batch);

// "MxNxK".
std::string to_string(const ProblemSize& size);

// 2 * M * N * K * batch: the multiply-adds of one matmul, counted as two flops.
double matmul_flops(const ProblemSize& size);

}  // namespace polyfuse::bench
