// Integer tensors and gathers on the CPU target (issue 23 item 3): a def with an integer
// tensor runs as loop nests (codegen/cpu_loop_nest.h), matmuls included, checked against the
// exact reference at an even and an odd size set; an index one past its dimension throws
// (polyfuse/cpu/integers.h) instead of reading outside the tensor.
#include <gtest/gtest.h>

#include "runtime/api/run_program.h"
#include "test_programs.h"

namespace polyfuse::testing {
namespace {

RunReport run_cpu(const std::string& text, const SizeBindings& sizes) { return run_text_on_cpu(text, sizes, "integers.tc"); }

TEST(IntegersCpu, LookupTablesMatmulAndIntegerOutputs) {
  const std::string source = R"(def f(float(B, M) X, float(N, M) W, float(E, D) LUT, int32(B, L) I, uint8(B, D) Mask,
         int64(N) S) -> (O1, O2, Count) {
  O1(b, n) +=! X(b, m) * W(n, m)
  O2(i, j) +=! Mask(i, j) == 1 ? LUT(I(i, k), j) : 0.0
  Count(n) +=! (r < n) ? S(r) : 0 where n in 0:N
})";
  for (const SizeBindings& sizes :
       {SizeBindings{{"B", 4}, {"M", 4}, {"N", 4}, {"E", 6}, {"D", 4}, {"L", 2}},
        SizeBindings{{"B", 5}, {"M", 3}, {"N", 7}, {"E", 5}, {"D", 3}, {"L", 3}}}) {
    const RunReport report = run_cpu(source, sizes);
    EXPECT_TRUE(report.check.ok) << report.check.to_string();
  }
}

TEST(IntegersCpu, OutOfRangeIndexThrows) {
  // I's values are drawn in 0..E-1, so I(b) + 1 reaches E = 3 for some b of 8 (seed 1).
  try {
    run_cpu(R"(def shifted(float(E, D) W, int32(B) I) -> (O) {
  O(b, d) = W(I(b) + 1, d)
})", {{"E", 3}, {"D", 2}, {"B", 8}});
    FAIL() << "an out-of-range gather ran";
  } catch (const std::out_of_range& e) {
    EXPECT_EQ(std::string(e.what()), "gather out of range: position 3 of dimension 1 of W, which holds 0..2");
  }
}

}  // namespace
}  // namespace polyfuse::testing
