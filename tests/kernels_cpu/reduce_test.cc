// reduce_row against the order reduce.h documents, written out element by element here: equal
// bits for every length around the partials' multiples, NaN and infinite operands, f16 and
// bf16 rows; a sum within the bound of a sequential one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "polyfuse/cpu/reduce.h"

namespace polyfuse::cpu::testing {
namespace {

float combine(RowReduction op, float acc, float x) {
  switch (op) {
    case RowReduction::sum: return acc + x;
    case RowReduction::max: return x > acc ? x : acc;
    case RowReduction::min: return x < acc ? x : acc;
  }
  return acc;
}

// reduce.h's order, one element at a time.
float documented_order(RowReduction op, const std::vector<float>& x) {
  const float identity = op == RowReduction::sum   ? 0.0f
                         : op == RowReduction::max ? -std::numeric_limits<float>::infinity()
                                                   : std::numeric_limits<float>::infinity();
  std::vector<float> p(kRowPartials, identity);
  for (std::size_t i = 0; i < x.size(); ++i) p[i % kRowPartials] = combine(op, p[i % kRowPartials], x[i]);
  for (int64_t width = kRowPartials / 2; width >= 1; width /= 2)
    for (int64_t j = 0; j < width; ++j) p[j] = combine(op, p[j], p[j + width]);
  return p[0];
}

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

const RowReduction kOps[] = {RowReduction::sum, RowReduction::max, RowReduction::min};

TEST(ReduceRow, F32FollowsTheDocumentedOrderBitForBit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-100.f, 100.f);
  for (int64_t n : {0, 1, 2, 7, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000, 4099}) {
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x) v = value(rng);
    for (RowReduction op : kOps)
      EXPECT_EQ(bits(reduce_row(op, x.data(), n)), bits(documented_order(op, x))) << "n " << n << " op " << int(op);
  }
}

// reduce_terms of a row's elements: reduce_row's bits at every length around the partials'
// multiples, with NaN and infinite terms among them; the terms computed once each, in order.
TEST(ReduceRow, TermsReducedWhereComputedAreTheRow) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-10.f, 10.f);
  std::vector<float> x(1000);
  for (float& v : x) v = value(rng);
  x[100] = std::numeric_limits<float>::quiet_NaN(), x[500] = std::numeric_limits<float>::infinity(), x[900] = -x[500];
  for (int64_t n : {0, 1, 31, 32, 33, 64, 95, 101, 256, 501, 1000}) {
    for (RowReduction op : kOps) {
      std::vector<int64_t> asked;
      const auto term = [&](int64_t i) {
        asked.push_back(i);
        return x[static_cast<std::size_t>(i)] * 0.5f;
      };
      float terms = 0.f;
      switch (op) {
        case RowReduction::sum: terms = reduce_terms<RowReduction::sum>(n, term); break;
        case RowReduction::max: terms = reduce_terms<RowReduction::max>(n, term); break;
        case RowReduction::min: terms = reduce_terms<RowReduction::min>(n, term); break;
      }
      std::vector<float> halves(x.begin(), x.begin() + n);
      for (float& h : halves) h *= 0.5f;
      EXPECT_EQ(bits(terms), bits(reduce_row(op, halves.data(), n))) << "n " << n << " op " << int(op);
      EXPECT_EQ(bits(terms), bits(documented_order(op, halves))) << "n " << n << " op " << int(op);
      ASSERT_EQ(asked.size(), static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < asked.size(); ++i) EXPECT_EQ(asked[i], static_cast<int64_t>(i));
    }
  }
}

TEST(ReduceRow, MaxAndMinIgnoreNaNAndKeepInfinities) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(100, 1.f);
  x[3] = nan, x[40] = 5.f, x[77] = -2.f, x[99] = nan;
  EXPECT_EQ(reduce_row(RowReduction::max, x.data(), 100), 5.f);
  EXPECT_EQ(reduce_row(RowReduction::min, x.data(), 100), -2.f);
  EXPECT_TRUE(std::isnan(reduce_row(RowReduction::sum, x.data(), 100)));
  std::vector<float> all_nan(40, nan);
  EXPECT_EQ(reduce_row(RowReduction::max, all_nan.data(), 40), -inf);  // as std::max(-inf, NaN), the reference
  std::vector<float> y = {-inf, -inf, -inf};
  EXPECT_EQ(reduce_row(RowReduction::max, y.data(), 3), -inf);
  y[1] = inf;
  EXPECT_EQ(reduce_row(RowReduction::min, y.data(), 3), -inf);
  EXPECT_EQ(reduce_row(RowReduction::max, y.data(), 3), inf);
  EXPECT_EQ(reduce_row(RowReduction::sum, y.data(), 0), 0.f);
}

TEST(ReduceRow, SumIsWithinTheBoundOfASequentialSum) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(0.f, 1.f);
  std::vector<float> x(100000);
  double exact = 0;
  for (float& v : x) exact += (v = value(rng));
  const double got = reduce_row(RowReduction::sum, x.data(), int64_t(x.size()));
  EXPECT_LE(std::fabs(got - exact), 1e-5 * exact);
}

TEST(ReduceRow, NarrowRowsAreTheirWidenedValuesReduced) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> pattern(0, 0xffff);
  for (DType dtype : {DType::f16, DType::bf16})
    for (int64_t n : {0, 5, 32, 255, 256, 257, 600}) {
      std::vector<uint16_t> x(static_cast<std::size_t>(n));
      std::vector<float> wide(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<uint16_t>(pattern(rng));
        wide[i] = dtype == DType::f16 ? f16_to_f32(x[i]) : bf16_to_f32(x[i]);
      }
      for (RowReduction op : kOps) {
        const float got = reduce_row(op, x.data(), dtype, n), want = documented_order(op, wide);
        EXPECT_TRUE(bits(got) == bits(want) || (std::isnan(got) && std::isnan(want)))
            << to_string(dtype) << " n " << n << " op " << int(op) << ": " << got << " vs " << want;
      }
    }
  std::vector<uint16_t> x(4);
  EXPECT_THROW(reduce_row(RowReduction::sum, x.data(), DType::e4m3, 4), ConfigError);
}

TEST(AllFinite, HalfAndBfloatPatterns) {
  // f16: largest finite 0x7bff, infinity 0x7c00, NaN 0x7e01; bf16: 0x7f7f, 0x7f80, 0xffc1.
  std::vector<uint16_t> f16(300, 0x3c00), bf16(300, 0x3f80);
  f16[7] = 0x7bff, f16[8] = 0xfbff, f16[9] = 0x0001, f16[10] = 0x8000;
  bf16[7] = 0x7f7f, bf16[8] = 0xff7f, bf16[9] = 0x0001;
  EXPECT_TRUE(all_finite(f16.data(), DType::f16, 300));
  EXPECT_TRUE(all_finite(bf16.data(), DType::bf16, 300));
  EXPECT_FALSE(all_finite(f16.data(), DType::e4m3, 300)) << "another dtype: not known finite";
  for (const uint16_t bad : {uint16_t{0x7c00}, uint16_t{0xfc00}, uint16_t{0x7e01}}) {
    std::vector<uint16_t> x = f16;
    x[299] = bad;
    EXPECT_FALSE(all_finite(x.data(), DType::f16, 300)) << bad;
    EXPECT_TRUE(all_finite(x.data(), DType::f16, 299));
  }
  for (const uint16_t bad : {uint16_t{0x7f80}, uint16_t{0xff80}, uint16_t{0xffc1}}) {
    std::vector<uint16_t> x = bf16;
    x[150] = bad;
    EXPECT_FALSE(all_finite(x.data(), DType::bf16, 300)) << bad;
  }
}

TEST(AllFinite, FindsOneInfinityOrNaNAnywhereAndNothingElse) {
  std::vector<float> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i) - 500.0f;
  x[3] = std::numeric_limits<float>::max();
  x[4] = -std::numeric_limits<float>::max();
  x[5] = std::numeric_limits<float>::denorm_min();
  x[6] = -0.0f;
  EXPECT_TRUE(all_finite(x.data(), int64_t(x.size())));
  EXPECT_TRUE(all_finite(x.data(), 0));
  const float bad[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::signaling_NaN()};
  for (const float value : bad)
    for (const std::size_t at : {std::size_t{0}, std::size_t{17}, std::size_t{998}, std::size_t{999}}) {
      std::vector<float> y = x;
      y[at] = value;
      EXPECT_FALSE(all_finite(y.data(), int64_t(y.size()))) << value << " at " << at;
      EXPECT_EQ(all_finite(y.data(), int64_t(at)), true) << "only the first n count";
    }
}

}  // namespace
}  // namespace polyfuse::cpu::testing
