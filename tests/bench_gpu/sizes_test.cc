// The size generator of polyfuse-bench: deterministic, the protocol's count and range,
// --quick a prefix of the full list, and MxNxK parsing.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "bench/gpu/sizes.h"

namespace polyfuse::bench {
namespace {

TEST(BenchSizes, ProtocolHasOneHundredMultiplesOf128UpTo4096) {
  const std::vector<ProblemSize> sizes = random_sizes(full_size_count, default_size_seed, 1);
  ASSERT_EQ(sizes.size(), 100u);
  for (const ProblemSize& size : sizes) {
    for (std::int64_t extent : {size.m, size.n, size.k}) {
      EXPECT_EQ(extent % 128, 0) << to_string(size);
      EXPECT_GE(extent, 128) << to_string(size);
      EXPECT_LE(extent, 4096) << to_string(size);
    }
    EXPECT_EQ(size.batch, 1);
  }
}

TEST(BenchSizes, SameSeedSameSizesOtherSeedOtherSizes) {
  EXPECT_EQ(random_sizes(100, 2019, 8), random_sizes(100, 2019, 8));
  EXPECT_NE(random_sizes(100, 2019, 8), random_sizes(100, 2020, 8));
}

// mt19937_64's output is fixed by the C++ standard, so these are the same everywhere;
// a change here changes every recorded result's problems.
TEST(BenchSizes, FirstSizesOfTheDefaultSeedAreStable) {
  const std::vector<ProblemSize> sizes = random_sizes(3, default_size_seed, 1);
  EXPECT_EQ(to_string(sizes[0]), "1792x640x3328");
  EXPECT_EQ(to_string(sizes[1]), "3968x2816x512");
  EXPECT_EQ(to_string(sizes[2]), "512x3712x3072");
}

TEST(BenchSizes, SizesVaryInEveryDimension) {
  std::set<std::int64_t> ms, ns, ks;
  for (const ProblemSize& size : random_sizes(100, default_size_seed, 1)) {
    ms.insert(size.m);
    ns.insert(size.n);
    ks.insert(size.k);
  }
  EXPECT_GT(ms.size(), 20u);
  EXPECT_GT(ns.size(), 20u);
  EXPECT_GT(ks.size(), 20u);
}

TEST(BenchSizes, QuickIsTheFirstTwentyOfTheProtocol) {
  const std::vector<ProblemSize> quick = quick_sizes(default_size_seed, 4);
  const std::vector<ProblemSize> full = random_sizes(100, default_size_seed, 4);
  ASSERT_EQ(quick.size(), 20u);
  EXPECT_TRUE(std::equal(quick.begin(), quick.end(), full.begin()));
}

TEST(BenchSizes, ParsesMxNxK) {
  const std::optional<ProblemSize> size = parse_size("1024x512x256", 3);
  ASSERT_TRUE(size);
  EXPECT_EQ(std::tie(size->m, size->n, size->k, size->batch), std::make_tuple(1024, 512, 256, 3));
  for (const char* bad : {"", "1024", "1024x512", "1024x512x", "0x1x1", "1x-2x3", "1x2x3x4", "ax2x3", "1x2x3 "})
    EXPECT_FALSE(parse_size(bad, 1)) << bad;
}

TEST(BenchSizes, MatmulFlopsCountTheBatch) {
  EXPECT_DOUBLE_EQ(matmul_flops({128, 256, 512, 1}), 2.0 * 128 * 256 * 512);
  EXPECT_DOUBLE_EQ(matmul_flops({128, 256, 512, 8}), 8 * 2.0 * 128 * 256 * 512);
}

}  // namespace
}  // namespace polyfuse::bench
