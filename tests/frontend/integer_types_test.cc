// Integer tensors and gathers in the front end (frontend/element_type.h, value_type.h,
// sema_gathers.cc): TC's int32/int64/uint8, the type of an output declared by name alone, a
// gather's access relation (the whole gathered dimension), and the located errors.
#include <gtest/gtest.h>

#include <sstream>

#include "frontend/ir_printer.h"
#include "test_util.h"

namespace polyfuse::testing {
namespace {

TEST(IntegerTypes, DeclaredAndInferred) {
  const Program program = compile_one(R"(def f(int32(K) S, int64(K) L, uint8(K) U, float(K) X) -> (Idx, O, W) {
  Idx(k) +=! (r_k < k) ? S(r_k) : 0 where k in 0:K
  O(k) = L(k) * 2 + U(k)
  W(k) = U(k) == 1 ? X(k) : 0.0
})", {{"K", 5}});
  EXPECT_EQ(program.find_tensor("S")->type, ElementType::i32);
  EXPECT_EQ(size_in_bytes(program.find_tensor("L")->type), 8);
  EXPECT_EQ(size_in_bytes(program.find_tensor("U")->type), 1);
  // TC's typing: integers stay integers (the wider type), a float makes f32.
  EXPECT_EQ(program.find_tensor("Idx")->type, ElementType::i32);
  EXPECT_EQ(program.find_tensor("O")->type, ElementType::i64);
  EXPECT_EQ(program.find_tensor("W")->type, ElementType::f32);
  // Every expression computes in f32.
  EXPECT_EQ(program.statements[1].accumulate_type, ElementType::f32);
}

TEST(IntegerTypes, GatherReadsTheWholeDimension) {
  const Program program = compile_one(R"(def lut(float(E, D) LUT, int32(B, L) I) -> (O) {
  O(i, j) +=! LUT(I(i, k), j)
})", {{"E", 5}, {"D", 3}, {"B", 4}, {"L", 2}});
  const Statement& s = program.statements[0];
  ASSERT_EQ(s.reads.size(), 2u);
  EXPECT_TRUE(s.reads[0].is_index);
  EXPECT_EQ(s.reads[0].tensor, "I");
  EXPECT_FALSE(s.reads[1].is_index);
  EXPECT_EQ(s.reads[1].subscripts[0].gather, 0);
  EXPECT_EQ(s.reads[1].subscripts[0].to_string(), "I(i, k)");
  EXPECT_EQ(s.reduction_indices(), std::vector<std::string>{"k"});
  std::ostringstream relation;
  relation << s.reads[1].relation;
  EXPECT_EQ(relation.str(), "{ S0[i, j, k] -> LUT[o0, j] : 0 <= i <= 3 and 0 <= j <= 2 and 0 <= k <= 1 "
                                          "and 0 <= o0 <= 4 }");
  EXPECT_EQ(program.find_tensor("O")->type, ElementType::f32);
  // An affine part beside the index tensor's value.
  const Program shifted = compile_one(R"(def f(float(N, C) X, int32(K) Idx) -> (O) {
  O(k, l) = X(Idx(k) + l, 0) where l in 0:2
})", {{"N", 6}, {"C", 2}, {"K", 3}});
  EXPECT_EQ(shifted.statements[0].reads[1].subscripts[0].to_string(), "Idx(k) + l");
}

TEST(IntegerTypes, LocatedErrors) {
  EXPECT_EQ(first_error("def f(float(N) X, float(N) J) -> (O) {\n  O(i) = X(J(i))\n}\n", {{"N", 4}}),
            "2:12: error: tensor 'J' is read inside a subscript, but its elements are f32: an index tensor (a "
            "gather) holds integers (declare it int32, int64 or uint8)");
  EXPECT_EQ(first_error("def f(float(N) X, int32(N) J) -> (O) {\n  O(i) = X(J(J(i)))\n}\n", {{"N", 4}}),
            "2:14: error: index tensor 'J' is read inside another index tensor's subscript; gathers do not nest");
  EXPECT_EQ(first_error("def f(float(N) X, int32(N) J) -> (O) {\n  O(i) = X(2 * J(i))\n}\n", {{"N", 4}}),
            "2:14: error: index expression '2 * J(i)' multiplies an index tensor's value; a gather adds one index "
            "tensor's value to an affine index ('I(b)', 'I(b) + i', 'I(b) - 1')");
  EXPECT_EQ(first_error("def f(int32(N) J) -> (O) {\n  O(i) = J(i) / 2\n}\n", {{"N", 4}}),
            "2:15: error: this divides two integers: Tensor Comprehensions truncates such a quotient, polyfuse "
            "computes in f32 and does not; convert an operand with float(..) (or write a float literal, '2.0')");
  EXPECT_EQ(first_error("def f(float(N) X) -> (O) {\n  O(i) = int32(X(i))\n}\n", {{"N", 4}}),
            "2:10: error: the cast int32(..) is not supported: conversions to integer types are not supported; the "
            "conversions are f16(x), bf16(x) and f32(x)");
  EXPECT_EQ(first_error("def f(int8(N) X) -> (O) {\n  O(i) = X(i)\n}\n", {{"N", 4}}),
            "1:7: error: type 'int8': the integer types are int32, int64 and uint8");
  // A float division of integers is fine.
  const Program program = compile_one("def f(int32(N) J) -> (O) {\n  O(i) = float(J(i)) / 2\n}\n", {{"N", 4}});
  EXPECT_EQ(program.find_tensor("O")->type, ElementType::f32);
}

}  // namespace
}  // namespace polyfuse::testing
