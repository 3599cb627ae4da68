// A convolution's border taps on the CPU target (schedule/cpu_conv_border.h): which taps of
// which blocks read only the zero border (the counts and the taps always kept, for padding,
// stride, dilation and a 5x5 filter), that skipping them gives the bits of every tap computed
// (1 and 3 threads, an epilogue, f16 and bf16 inputs, against the reference), and that an infinity or a NaN in the
// filter where a block would skip makes that block compute every tap: 0 * inf is NaN, as the
// program says (also for a constant filter, after forget_constants).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "codegen/cpu_emit.h"
#include "runtime/cpu/cpu_module.h"
#include "schedule/cpu_conv_border.h"
#include "schedule/cpu_plan.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

// A convolution reading I(n, `row`, w + s - 1, c) with R x R taps of F; H x W input, P x W output;
// I and F of type `in`.
std::string conv_text(const std::string& row, bool bias_relu = false, const std::string& in = "f32") {
  return "def conv(" + in + "(N, H, W, C) I, " + in + "(K, R, R, C) F" + std::string(bias_relu ? ", f32(K) bias" : "") +
         ") -> (f32(N, P, W, K) O) {\n"
         "  " + (bias_relu ? "Y" : "O") + "(n, h, w, k) +=! I(n, " + row +
         ", w + s - 1, c) * F(k, r, s, c) where h in 0:P, w in 0:W, I = 0 outside\n" +
         (bias_relu ? "  O(n, h, w, k) = relu(Y(n, h, w, k) + bias(k))\n" : "") + "}\n";
}

SizeBindings sizes(std::int64_t h, std::int64_t p, std::int64_t r) {
  return {{"N", 2}, {"H", h}, {"W", 6}, {"C", 19}, {"K", 37}, {"R", r}, {"P", p}};
}

CpuScheduleOptions options(int threads, bool skip) {
  CpuScheduleOptions options;
  options.target = default_cpu_target();
  options.threads = threads;
  options.min_parallel_flops = 0;
  options.skip_border_taps = skip;
  return options;
}

// The outer batch tap of the program's convolution (its plan with `skip`).
std::optional<CpuConvTap> outer_tap(const Program& program, bool skip = true) {
  const CpuPlan plan = plan_cpu(program, options(1, skip));
  for (const CpuStage& stage : plan.stages)
    for (const CpuMatmul& matmul : stage.matmuls)
      if (matmul.conv && matmul.conv->taps.size() == 2) return matmul.conv->taps.front();
  return std::nullopt;
}

struct BorderCase {
  std::string name, row;
  SizeBindings sizes;
  std::vector<std::int64_t> counts;        // empty: no border
  std::int64_t inner_first = 0, inner_last = 0;
};

std::vector<BorderCase> border_cases() {
  return {
      {"3x3, padding 1", "h + r - 1", sizes(7, 7, 3), {2}, 1, 2},
      {"3x3, stride 2, padding 1", "2*h + r - 1", sizes(9, 5, 3), {2}, 1, 2},
      {"5x5, padding 2", "h + r - 2", sizes(7, 7, 5), {3, 4}, 2, 3},
      {"3x3, dilation 2, padding 2", "h + 2*r - 2", sizes(7, 7, 3), {2}, 1, 2},
      {"3x3, padding 1 above only", "h + r - 1", sizes(7, 6, 3), {2}, 1, 3},
      {"3x3, no padding of the rows", "h + r", sizes(7, 5, 3), {}},
  };
}

TEST(BorderTaps, CountsAndTheTapsAlwaysKept) {
  for (const BorderCase& c : border_cases()) {
    SCOPED_TRACE(c.name);
    const Program program = compile_text(conv_text(c.row), c.sizes);
    const std::optional<CpuConvTap> tap = outer_tap(program);
    ASSERT_TRUE(tap.has_value());
    EXPECT_EQ(tap->index, "r");
    if (c.counts.empty()) {
      EXPECT_FALSE(tap->border.has_value());
      continue;
    }
    ASSERT_TRUE(tap->border.has_value());
    EXPECT_EQ(tap->border->counts, c.counts);
    EXPECT_EQ(tap->border->inner_first, c.inner_first);
    EXPECT_EQ(tap->border->inner_last, c.inner_last);
    EXPECT_FALSE(outer_tap(program, /*skip=*/false)->border.has_value()) << "skip_border_taps = false";
  }
  // taps_inside at each output row of the 5x5: rows 0 and 6 keep 3 taps, 1 and 5 keep 4.
  const Program five = compile_text(conv_text("h + r - 2"), sizes(7, 7, 5));
  const CpuTapBorder border = *outer_tap(five)->border;
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {{2, 5}, {1, 5}, {0, 5}, {0, 5},
                                                                       {0, 5}, {0, 4}, {0, 3}};
  for (std::int64_t h = 0; h < 7; ++h) EXPECT_EQ(taps_inside(border, 5, h), expected[std::size_t(h)]) << h;
}

TEST(BorderTaps, TheScheduleAndTheCodeSayIt) {
  const Program program = compile_text(conv_text("h + r - 1"), sizes(7, 7, 3));
  const std::string schedule = to_string(plan_cpu(program, options(1, true)));
  EXPECT_NE(schedule.find("outer batch = 3 taps of r (2 where the others read only the zero border and the filter is "
                          "finite there)"),
            std::string::npos)
      << schedule;
  const std::string code = emit_cpu(program, options(1, true));
  EXPECT_NE(code.find("while (r_first < r_last && h + r_first - 1 < 0) ++r_first;"), std::string::npos) << code;
  EXPECT_NE(code.find("const Brgemm& S0_kernel = r_last - r_first == 2 ? S0_taps_2 : S0_main;"), std::string::npos)
      << code;
  EXPECT_NE(code.find("all_finite(F_panel.data + r * "), std::string::npos) << code;
  EXPECT_EQ(emit_cpu(program, options(1, false)).find("finite_outside"), std::string::npos);
}

// Skipping gives the bits of every tap computed, on 1 and 3 threads, with and without an epilogue.
TEST(BorderTaps, TheBitsOfEveryTap) {
  for (const BorderCase& c : border_cases())
    for (const bool bias_relu : {false, true}) {
      SCOPED_TRACE(c.name + (bias_relu ? ", bias + relu" : ""));
      const Program program = compile_text(conv_text(c.row, bias_relu), c.sizes);
      RunRequest every = cpu_run_request(7);
      every.cpu_schedule = options(1, false);
      const RunReport all = run_program(program, every);
      ASSERT_TRUE(all.check.ok) << all.check.to_string();
      for (const int threads : {1, 3}) {
        RunRequest skipping = cpu_run_request(7);
        skipping.cpu_schedule = options(threads, true);
        const RunReport skipped = run_program(program, skipping);
        EXPECT_TRUE(skipped.check.ok) << threads << " threads: " << skipped.check.to_string();
        EXPECT_TRUE(skipped.outputs == all.outputs) << threads << " threads: not the bits of every tap";
      }
    }
}

// f16 and bf16 inputs: the tap is a loop of calls (the first overwrites, the last with bias + ReLU
// is a kernel of its own), run over the taps inside; one output row reading a single tap (P = 1)
// keeps every tap there, the first call not being the last.
TEST(BorderTaps, NarrowInputsLoopOverTheTapsInside) {
  struct Case {
    std::string in, row;
    SizeBindings bound;
    bool bias_relu;
  };
  const std::vector<Case> cases = {{"f16", "h + r - 1", sizes(7, 7, 3), true},
                                   {"bf16", "h + r - 2", sizes(7, 7, 5), false},
                                   {"f16", "h + r - 1", sizes(1, 1, 3), true},
                                   {"bf16", "h + r - 1", sizes(1, 1, 3), false}};
  for (const auto& [in, row, bound, bias_relu] : cases) {
        SCOPED_TRACE(in + " " + row + " P = " + std::to_string(bound.at("P")) + (bias_relu ? ", bias + relu" : ""));
        const Program program = compile_text(conv_text(row, bias_relu, in), bound);
        const std::optional<CpuConvTap> tap = outer_tap(program);
        ASSERT_TRUE(tap && tap->border) << to_string(plan_cpu(program, options(1, true)));
        const std::string code = emit_cpu(program, options(1, true));
        EXPECT_NE(code.find("for (int64_t r = r_first; r < r_last; ++r)"), std::string::npos) << code;
        EXPECT_NE(code.find(bias_relu ? "if (r_last - r_first < 2 ||" : "if (r_first == r_last ||"), std::string::npos)
            << code;
        RunRequest every = cpu_run_request(9);
        every.cpu_schedule = options(1, false);
        const RunReport all = run_program(program, every);
        ASSERT_TRUE(all.check.ok) << all.check.to_string();
        RunRequest skipping = cpu_run_request(9);
        skipping.cpu_schedule = options(2, true);
        const RunReport skipped = run_program(program, skipping);
        EXPECT_TRUE(skipped.check.ok) << skipped.check.to_string();
        EXPECT_TRUE(skipped.outputs == all.outputs) << "not the bits of every tap";
      }
}

// The output of `module` on I, F (and a zero bias when the def has one).
std::vector<float> run(const cpu_runtime::CpuModule& module, std::vector<float>& input, std::vector<float>& filter,
                       std::size_t outputs) {
  std::vector<float> out(outputs, -1.0f);
  void* pointers[] = {input.data(), filter.data(), out.data()};
  module(pointers);
  return out;
}

// The same values, NaN where the other has NaN (whatever its bits).
void expect_same(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::isnan(got[i]) != std::isnan(want[i]) || (!std::isnan(got[i]) && got[i] != want[i])) ++differ;
  EXPECT_EQ(differ, 0u) << what;
}

// An infinity at tap r = 0 of one output channel and a NaN at r = 2 of another: the output rows
// that would skip those taps read 0 * inf and 0 * NaN there, NaN, as every tap computed says.
TEST(BorderTaps, AnInfinityOrANaNWhereABlockWouldSkipIsComputed) {
  const SizeBindings bound = {{"N", 1}, {"H", 5}, {"W", 6}, {"C", 19}, {"K", 70}, {"R", 3}, {"P", 5}};
  const Program program = compile_text(conv_text("h + r - 1"), bound);
  const std::int64_t H = 5, W = 6, C = 19, K = 70;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  std::vector<float> input(std::size_t(H * W * C)), filter(std::size_t(K * 9 * C));
  for (float& x : input) x = value(rng);
  for (float& x : filter) x = value(rng);
  const std::size_t outputs = std::size_t(H * W * K);
  const auto load = [&](bool skip, bool constant) {
    CpuScheduleOptions o = options(1, skip);
    if (constant) o.constant_inputs = {"F"};
    return cpu_runtime::CpuModule::load(emit_cpu(program, o), cpu_entry_name(program.name));
  };
  const auto every = load(false, false), skipping = load(true, false), constant = load(true, true);
  constant.forget_constants();
  expect_same(run(skipping, input, filter, outputs), run(every, input, filter, outputs), "finite");
  expect_same(run(constant, input, filter, outputs), run(every, input, filter, outputs), "finite, constant");
  const auto at = [&](std::int64_t k, std::int64_t r, std::int64_t s, std::int64_t c) {
    return std::size_t(((k * 3 + r) * 3 + s) * C + c);
  };
  filter[at(3, 0, 1, 7)] = std::numeric_limits<float>::infinity();
  filter[at(40, 2, 2, 0)] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> want = run(every, input, filter, outputs);
  for (std::int64_t w = 0; w < W; ++w) {  // output rows 0 and 4 read the border at those taps
    EXPECT_TRUE(std::isnan(want[std::size_t((0 * W + w) * K + 3)])) << w;
    EXPECT_TRUE(std::isnan(want[std::size_t((4 * W + w) * K + 40)])) << w;
  }
  expect_same(run(skipping, input, filter, outputs), want, "an infinity and a NaN");
  constant.forget_constants();
  expect_same(run(constant, input, filter, outputs), want, "an infinity and a NaN, constant");
}

}  // namespace
}  // namespace polyfuse::testing
