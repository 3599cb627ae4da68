// The FP8 element types in the front end (frontend/element_type.h): e4m3 and e5m2 inputs are
// parsed, sized (one byte) and printed in the IR; what is computed from them is f32 (an output
// declared by name alone, a temporary copied from one); the located errors are in errors/fp8_*.tc.
#include <gtest/gtest.h>

#include "frontend/ir_printer.h"
#include "test_util.h"

namespace polyfuse::testing {
namespace {

TEST(Fp8Types, DeclaredPrintedAndInferred) {
  const Program program = compile_one(R"(def f(e4m3(M, K) A, e5m2(N, K) B) -> (C, T) {
  C(m, n) +=! A(m, k) * B(n, k)
  T(m, k) = A(m, k)
})", {{"M", 4}, {"N", 3}, {"K", 2}});
  EXPECT_EQ(program.find_tensor("A")->type, ElementType::e4m3);
  EXPECT_EQ(program.find_tensor("B")->type, ElementType::e5m2);
  EXPECT_EQ(size_in_bytes(ElementType::e4m3), 1);
  EXPECT_EQ(size_in_bytes(ElementType::e5m2), 1);
  EXPECT_EQ(program.find_tensor("C")->type, ElementType::f32);  // a reduction: f32
  EXPECT_EQ(program.find_tensor("T")->type, ElementType::f32);  // a copy of FP8 values: f32, never FP8
  const std::string ir = print_program(program);
  EXPECT_NE(ir.find("input     e4m3 A(M=4, K=2)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("input     e5m2 B(N=3, K=2)"), std::string::npos) << ir;
}

}  // namespace
}  // namespace polyfuse::testing
