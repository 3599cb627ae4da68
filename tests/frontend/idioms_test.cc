// Idiom recognition: matmuls in all four operand layouts, operand order, batch and
// batch-reduce matmuls, inline and separate prologues, epilogues, and non-matmul
// reductions.
#include <gtest/gtest.h>

#include "frontend/idioms.h"
#include "test_util.h"

namespace polyfuse {
namespace {

using testing::compile_one;

Idioms idioms_of(std::string_view source) { return recognize_idioms(compile_one(source)); }

struct LayoutCase {
  std::string a_decl, b_decl, a_ref, b_ref;
  MatrixLayout a, b;
};

class MatmulLayouts : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(MatmulLayouts, AreReadFromTheAccessRelations) {
  const LayoutCase& c = GetParam();
  Idioms idioms = idioms_of("def g(f16" + c.a_decl + " A, f16" + c.b_decl + " B) -> (f16(M, N) C) {\n"
                            "  C(i, j) +=! " + c.a_ref + " * " + c.b_ref + "\n}\n");
  const StatementIdiom& s0 = idioms.statements.at(0);
  ASSERT_EQ(s0.kind, IdiomKind::matmul) << s0.reason;
  EXPECT_EQ(s0.matmul.m, "i");
  EXPECT_EQ(s0.matmul.n, "j");
  EXPECT_EQ(s0.matmul.k, "l");
  EXPECT_TRUE(s0.matmul.batch.empty());
  EXPECT_EQ(s0.matmul.a.tensor, "A");
  EXPECT_EQ(s0.matmul.b.tensor, "B");
  EXPECT_EQ(s0.matmul.a.layout, c.a);
  EXPECT_EQ(s0.matmul.b.layout, c.b);
  EXPECT_TRUE(s0.matmul.zero_init);
}

INSTANTIATE_TEST_SUITE_P(
    AllFour, MatmulLayouts,
    ::testing::Values(
        LayoutCase{"(M, K)", "(K, N)", "A(i, l)", "B(l, j)", MatrixLayout::row_major, MatrixLayout::row_major},
        LayoutCase{"(K, M)", "(K, N)", "A(l, i)", "B(l, j)", MatrixLayout::column_major, MatrixLayout::row_major},
        LayoutCase{"(M, K)", "(N, K)", "A(i, l)", "B(j, l)", MatrixLayout::row_major, MatrixLayout::column_major},
        LayoutCase{"(K, M)", "(N, K)", "A(l, i)", "B(j, l)", MatrixLayout::column_major, MatrixLayout::column_major}),
    [](const ::testing::TestParamInfo<LayoutCase>& info) {
      return std::string(info.param.a == MatrixLayout::row_major ? "A_row" : "A_col") +
             (info.param.b == MatrixLayout::row_major ? "_B_row" : "_B_col");
    });

TEST(Idioms, OperandsInEitherOrder) {
  Idioms idioms = idioms_of("def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) { C(m, n) += B(k, n) * A(m, k) }");
  const StatementIdiom& s0 = idioms.statements.at(0);
  ASSERT_EQ(s0.kind, IdiomKind::matmul);
  EXPECT_EQ(s0.matmul.a.tensor, "A");
  EXPECT_EQ(s0.matmul.a.read, 1);
  EXPECT_FALSE(s0.matmul.a_is_left);
  EXPECT_FALSE(s0.matmul.zero_init);
}

TEST(Idioms, BatchedMatmulWithTransposedB) {
  Idioms idioms = idioms_of(
      "def g(f16(H, B, M, K) A, f16(H, B, N, K) W) -> (f16(H, B, M, N) C) {\n"
      "  C(h, b, m, n) +=! A(h, b, m, k) * W(h, b, n, k)\n}\n");
  const StatementIdiom& s0 = idioms.statements.at(0);
  ASSERT_EQ(s0.kind, IdiomKind::matmul) << s0.reason;
  EXPECT_EQ(s0.matmul.batch, (std::vector<std::string>{"h", "b"}));
  EXPECT_EQ(s0.matmul.b.layout, MatrixLayout::column_major);
}

// (An operand without batch indices is shared by the batch: OperandSharedByTheBatch.)
TEST(Idioms, BatchMismatchIsNotAMatmul) {
  Idioms idioms = idioms_of(
      "def g(f16(B, H, M, K) A, f16(H, K, N) W) -> (f16(B, H, M, N) C) { C(b, h, m, n) +=! A(b, h, m, k) * W(h, k, n) }");
  EXPECT_EQ(idioms.statements.at(0).kind, IdiomKind::other);
  EXPECT_EQ(idioms.statements.at(0).reason, "A and B have different batch indices");
}

TEST(Idioms, BatchReduce) {
  Idioms idioms = idioms_of(
      "def g(f32(R, M, K) A, f32(R, K, N) B) -> (f32(M, N) C) { C(m, n) +=! A(r, m, k) * B(r, k, n) }");
  const StatementIdiom& s0 = idioms.statements.at(0);
  ASSERT_EQ(s0.kind, IdiomKind::batch_reduce_matmul) << s0.reason;
  EXPECT_EQ(s0.matmul.reduce_batch, "r");
  EXPECT_EQ(s0.matmul.k, "k");
  EXPECT_TRUE(s0.matmul.batch.empty());
}

// One operand may leave out the batch indices (the same matrix for every batch element);
// operands with different batch indices are not a matmul.
TEST(Idioms, OperandSharedByTheBatch) {
  Idioms idioms = idioms_of(
      "def g(f16(B, M, K) A, f16(K, N) W, f16(B, K, N) V) -> (f16(B, M, N) X, f16(B, M, N) Y) {\n"
      "  X(b, m, n) +=! A(b, m, k) * W(k, n)\n"
      "  Y(b, m, n) +=! A(b, m, k) * V(b, k, n)\n}\n");
  const StatementIdiom& s0 = idioms.statements.at(0);
  ASSERT_EQ(s0.kind, IdiomKind::matmul) << s0.reason;
  EXPECT_EQ(s0.matmul.batch, std::vector<std::string>{"b"});
  EXPECT_EQ(idioms.statements.at(1).kind, IdiomKind::matmul) << idioms.statements.at(1).reason;
}

// A factor may read other tensors at a subset of its operand read's indices.
TEST(Idioms, PrologueWithBroadcastReads) {
  Idioms idioms = idioms_of(
      "def g(f16(M, K) A, f16(K) s, f16(K, N) B) -> (f16(M, N) C) { C(m, n) +=! relu(A(m, k) * s(k)) * B(k, n) }");
  const StatementIdiom& s0 = idioms.statements.at(0);
  ASSERT_EQ(s0.kind, IdiomKind::matmul) << s0.reason;
  EXPECT_EQ(s0.matmul.a.tensor, "A");
  EXPECT_TRUE(s0.matmul.a.has_prologue);
}

TEST(Idioms, InlinePrologue) {
  Idioms idioms = idioms_of(
      "def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) { C(m, n) +=! relu(A(m, k)) * (2 * B(k, n)) }");
  const StatementIdiom& s0 = idioms.statements.at(0);
  ASSERT_EQ(s0.kind, IdiomKind::matmul) << s0.reason;
  EXPECT_TRUE(s0.matmul.a.has_prologue);
  EXPECT_EQ(s0.matmul.a.factor.kind, ExprKind::call);
  EXPECT_TRUE(s0.matmul.b.has_prologue);
}

TEST(Idioms, PrologueAndEpilogueStatements) {
  Idioms idioms = idioms_of(
      "def g(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) D) {\n"
      "  Ar(m, k) = relu(A(m, k))\n"
      "  As(m, k) = Ar(m, k) * 0.5\n"
      "  C(m, n) +=! As(m, k) * B(k, n)\n"
      "  E(m, n) = C(m, n) + bias(n)\n"
      "  D(m, n) = tanh(E(m, n))\n"
      "}\n");
  ASSERT_EQ(idioms.statements.size(), 5u);
  EXPECT_EQ(idioms.statements[0].prologue_of, std::vector<std::string>{"S2"});
  EXPECT_EQ(idioms.statements[1].prologue_of, std::vector<std::string>{"S2"});
  EXPECT_EQ(idioms.statements[2].kind, IdiomKind::matmul);
  EXPECT_EQ(idioms.statements[3].epilogue_of, std::vector<std::string>{"S2"});
  EXPECT_EQ(idioms.statements[4].epilogue_of, std::vector<std::string>{"S2"});
  EXPECT_TRUE(idioms.statements[4].prologue_of.empty());
}

TEST(Idioms, TwoMatmulsFeedingOnePointwise) {
  Program p = compile_one(
      "def g(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F) -> (f16(M, N) D) {\n"
      "  C1(m, n) +=! A(m, k) * B(k, n)\n"
      "  C2(m, n) +=! E(m, k) * F(k, n)\n"
      "  D(m, n) = C1(m, n) + C2(m, n)\n}\n");
  Idioms idioms = recognize_idioms(p);
  EXPECT_EQ(idioms.statements[2].epilogue_of, (std::vector<std::string>{"S0", "S1"}));
  EXPECT_EQ(idioms.find("S2"), &idioms.statements[2]);
}

TEST(Idioms, PointwiseBetweenTwoMatmulsIsBoth) {
  Idioms idioms = idioms_of(
      "def g(f16(M, K) A, f16(K, N) B, f16(N, P) W) -> (f16(M, P) D) {\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n"
      "  H(m, n) = gelu(C(m, n))\n"
      "  D(m, p) +=! H(m, n) * W(n, p)\n}\n");
  EXPECT_EQ(idioms.statements[1].epilogue_of, std::vector<std::string>{"S0"});
  EXPECT_EQ(idioms.statements[1].prologue_of, std::vector<std::string>{"S2"});
  EXPECT_EQ(idioms.statements[2].matmul.k, "n");
}

TEST(Idioms, OtherReductions) {
  Idioms idioms = idioms_of(
      "def g(f32(M, K) A, f32(K) x) -> (f32(M) y, f32(M) s, f32(M, M) G) {\n"
      "  y(m) +=! A(m, k) * x(k)\n"
      "  s(m) +=! A(m, k)\n"
      "  G(m, n) +=! A(m, k) * A(n, k) * x(k)\n}\n");
  EXPECT_EQ(idioms.statements[0].kind, IdiomKind::other);
  EXPECT_EQ(idioms.statements[0].reason, "the result has fewer than two dimensions");
  EXPECT_EQ(idioms.statements[1].reason, "the right-hand side is not a product");
  EXPECT_EQ(idioms.statements[2].reason, "a factor reads no tensor at every index of the factor");
}

}  // namespace
}  // namespace polyfuse
