// Pointwise operations on accumulator fragments and broadcast operand loads on the emulator.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {

const char* const kOps[] = {"add", "sub", "mul", "div", "max", "min", "relu", "sigmoid", "tanh", "gelu", "exp", "add_scalar"};

float reference(int op, float x, float y) {
  switch (op) {
    case 0: return x + y;
    case 1: return x - y;
    case 2: return x * y;
    case 3: return x / y;
    case 4: return std::fmax(x, y);
    case 5: return std::fmin(x, y);
    case 6: return x > 0 ? x : 0;
    case 7: return 1.f / (1.f + std::exp(-x));
    case 8: return std::tanh(x);
    case 9: return 0.5f * x * (1.f + std::erf(x / std::sqrt(2.f)));
    case 10: return std::exp(x);
    default: return x + 0.5f;
  }
}

struct PwCase {
  int op, mode;
};

class PointwiseEmu : public ::testing::TestWithParam<PwCase> {};

TEST_P(PointwiseEmu, MatchesReference) {
  const auto [op, mode] = GetParam();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  std::vector<float> x(32 * 32), y(32 * 32), out(32 * 32, 0.f);
  std::vector<__half> rows(32);
  std::vector<__nv_bfloat16> cols(32);
  for (auto& v : x) v = dist(rng);
  for (auto& v : y) v = dist(rng) + (dist(rng) > 0 ? 4.f : -4.f);  // away from 0 for div
  for (auto& v : rows) v = __half(dist(rng) + 4.f);
  for (auto& v : cols) v = __nv_bfloat16(dist(rng) - 4.f);
  polyfuse::emu::ScopedBuffer bx(x.data(), x.size() * 4, "x"), by(y.data(), y.size() * 4, "y"),
      br(rows.data(), rows.size() * 2, "rows"), bc(cols.data(), cols.size() * 2, "cols"), bo(out.data(), out.size() * 4, "out");
  const auto stats = polyfuse::emu::launch(pointwise_16816, dim3(1), dim3(32), 1024, x.data(), y.data(), rows.data(),
                                           cols.data(), out.data(), op, mode);
  // Pair loads: the same bytes in half as many warp requests for that operand (16 pairs per
  // lane instead of 32 elements) as the element loads of modes 0 and 2.
  if (mode >= 3) {
    const auto element_stats = polyfuse::emu::launch(pointwise_16816, dim3(1), dim3(32), 1024, x.data(), y.data(),
                                                     rows.data(), cols.data(), out.data(), op, mode == 3 ? 0 : 2);
    EXPECT_EQ(stats.global_bytes_loaded, element_stats.global_bytes_loaded);
    EXPECT_EQ(stats.global_requests + 16, element_stats.global_requests);
  }
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) {
      const float yv = mode == 0 || mode == 3 ? y[r * 32 + c] : mode == 1 ? float(rows[r]) : float(cols[c]);
      const float ref = reference(op, x[r * 32 + c], yv);
      EXPECT_NEAR(out[r * 32 + c], ref, 1e-5f * (1.f + std::fabs(ref))) << kOps[op] << " at (" << r << ", " << c << ")";
    }
}

std::vector<PwCase> all_cases() {
  std::vector<PwCase> cases;
  for (int op = 0; op < 12; ++op) cases.push_back({op, 0});
  for (int op : {0, 2, 4}) {
    cases.push_back({op, 1});
    cases.push_back({op, 2});
    cases.push_back({op, 3});
    cases.push_back({op, 4});
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<PwCase>& info) {
  static const char* const modes[] = {"matrix", "rows", "cols", "matrix_pairs", "cols_pairs"};
  return std::string(kOps[info.param.op]) + "_" + modes[info.param.mode];
}
INSTANTIATE_TEST_SUITE_P(Ops, PointwiseEmu, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
