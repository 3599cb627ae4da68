// Semantic analysis: every rule of sema.h with its exact message, and what valid
// programs become (temporaries, types, reduction indices, bindings).
#include <gtest/gtest.h>

#include <sstream>

#include "frontend/ir_printer.h"
#include "test_util.h"

namespace polyfuse {
namespace {

using testing::compile_one;
using testing::errors_of;
using testing::first_error;

constexpr std::string_view gemm_signature = "def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n";

std::string gemm_body(std::string_view body) { return std::string(gemm_signature) + std::string(body) + "\n}\n"; }

TEST(Sema, IndexRangeConflictNamesBothUses) {
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! A(m, k) * B(n, k)")),
            "2:27: error: index 'n' ranges over N (C, dimension 2 at 2:8) and over K (B, dimension 1 "
            "at 2:27)");
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! A(k, m) * B(k, n)")),
            "2:20: error: index 'm' ranges over M (C, dimension 1 at 2:5) and over K (A, dimension 2 "
            "at 2:20)");
}

TEST(Sema, AssignWithReductionIndex) {
  EXPECT_EQ(first_error(gemm_body("  C(m, n) = A(m, k) * B(k, n)")),
            "2:11: error: index 'k' appears only on the right-hand side, which makes this a "
            "reduction; use '+=!' (zero-initialised) or '+=' instead of '='");
}

TEST(Sema, NameErrors) {
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! X(m, k) * B(k, n)")), "2:15: error: undeclared tensor 'X'");
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! softmax(A(m, k)) * B(k, n)")),
            "2:15: error: unknown function 'softmax' (the functions are relu, sigmoid, tanh, "
            "gelu, gelu_erf, exp, max, min, sqrt, rsqrt, log, abs, silu, gelu_tanh, f16, bf16 and f32)");
  EXPECT_EQ(first_error("def g(f16(N) A, f16(N) A) -> (f16(N) C) { C(i) = A(i) }"),
            "1:24: error: duplicate tensor name 'A' (first declared at 1:14)");
  EXPECT_EQ(first_error("def g(f16(N) relu) -> (f16(N) C) { C(i) = relu(i) }"),
            "1:14: error: tensor name 'relu' is the name of a built-in function");
  EXPECT_EQ(first_error("def g(f16(N) A) -> (f16(N) C) { C(i) = A(i) }\ndef g(f16(N) A) -> (f16(N) C) { C(i) = A(i) }"),
            "2:5: error: duplicate def name 'g' (first defined at 1:5)");
}

// `f16(x)`, `bf16(x)`, `f32(x)` (and TC's `half`, `float`) round to the type; a statement whose
// right-hand side is one gives the tensor it creates that type (issue 21: a 16-bit matmul
// operand computed by the program). Elsewhere they only round.
TEST(Sema, ConversionsGiveTheWrittenTensorItsType) {
  const Program p = compile_one(
      "def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C, O) {\n"
      "  T(m, n) +=! A(m, k) * B(k, n)\n"
      "  H(m, n) = f16(relu(T(m, n)))\n"
      "  G(m, n) = bf16(T(m, n) * 2)\n"
      "  F(m, n) = half(T(m, n)) + 1\n"
      "  O(m, n) = f32(H(m, n))\n"
      "  C(m, n) = H(m, n) + G(m, n) + F(m, n)\n"
      "}\n");
  EXPECT_EQ(p.find_tensor("T")->type, ElementType::f32);
  EXPECT_EQ(p.find_tensor("H")->type, ElementType::f16);
  EXPECT_EQ(p.find_tensor("G")->type, ElementType::bf16);
  EXPECT_EQ(p.find_tensor("F")->type, ElementType::f32) << "the root is a sum, not a conversion";
  EXPECT_EQ(p.find_tensor("O")->type, ElementType::f32) << "an output named alone takes the conversion's type";
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! f16(A(m, k), B(k, n))")), "2:15: error: function 'f16' takes 1 argument, got 2");
}

TEST(Sema, ArityErrors) {
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! A(m, k, j) * B(k, n)")),
            "2:15: error: tensor 'A' has 2 dimensions but is indexed with 3 indices");
  EXPECT_EQ(first_error(gemm_body("  C(m) +=! A(m, k) * B(k, m)")),
            "2:3: error: tensor 'C' has 2 dimensions but is indexed with 1 index");
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! max(A(m, k)) * B(k, n)")),
            "2:15: error: function 'max' takes 2 arguments, got 1");
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! relu(A(m, k), B(k, n))")),
            "2:15: error: function 'relu' takes 1 argument, got 2");
}

TEST(Sema, WritesAndOutputs) {
  EXPECT_EQ(first_error(gemm_body("  A(m, k) = B(k, m)")), "2:3: error: cannot write input tensor 'A'");
  EXPECT_EQ(first_error(gemm_body("  T(m, n) +=! A(m, k) * B(k, n)")),
            "1:47: error: output 'C' is never written");
  EXPECT_EQ(first_error("def g(f16(N) A) -> () { }"), "1:5: error: def 'g' has no outputs");
  EXPECT_EQ(first_error(gemm_body("  relu(m, n) = A(m, n)")),
            "2:3: error: cannot assign to the built-in function 'relu'");
}

TEST(Sema, Temporaries) {
  EXPECT_EQ(first_error(gemm_body("  C(m, n) = T(m, n)\n  T(m, n) +=! A(m, k) * B(k, n)")),
            "2:13: error: temporary 'T' is read before it is written (first written at 3:3)");
  EXPECT_EQ(first_error(gemm_body("  T(m, n) += A(m, k) * B(k, n)\n  C(m, n) = T(m, n)")),
            "2:11: error: '+=' accumulates into temporary 'T', which has no value yet; use '+=!' to "
            "start a zero-initialised reduction");
  EXPECT_EQ(first_error(gemm_body("  T(m, j) +=! A(m, m2)\n  C(m, n) = B(m, n)")),
            "2:8: error: cannot infer the range of index 'j' of temporary 'T': it does not appear on "
            "the right-hand side");
  // A failed first write is reported once, not again at every read.
  EXPECT_EQ(errors_of(gemm_body("  T(m, n) = X(m, n)\n  C(m, n) = T(m, n)")),
            std::vector<std::string>{"2:13: error: undeclared tensor 'X'"});
}

TEST(Sema, ReductionOperatorsOverAnyExpression) {
  Program p = compile_one(
      "def f(f16(M, N) X) -> (f16(M, N) Y, f32(M) lo) {\n"
      "  mx(m) max=! X(m, n)\n"
      "  s(m) +=! exp(X(m, n) - mx(m))\n"
      "  Y(m, n) = exp(X(m, n) - mx(m)) / s(m) * 0.5 + sqrt(abs(X(m, n))) * 1e-5\n"
      "  lo(m) min=! X(m, n) * X(m, n)\n"
      "  lo(m) *= gelu(X(m, n))\n"
      "}\n");
  ASSERT_EQ(p.statements.size(), 5u);
  EXPECT_EQ(p.statements[0].kind, StatementKind::reduce_init);
  EXPECT_EQ(p.statements[0].reduction, ReductionOp::max);
  EXPECT_TRUE(p.statements[0].is_non_sum_reduction());
  EXPECT_EQ(p.statements[0].reduction_indices(), std::vector<std::string>{"n"});
  EXPECT_EQ(p.find_tensor("mx")->type, ElementType::f32);
  EXPECT_EQ(p.statements[1].reduction, ReductionOp::sum);
  EXPECT_FALSE(p.statements[1].is_non_sum_reduction());
  EXPECT_EQ(p.statements[2].reduction, ReductionOp::sum);  // `=` keeps the default
  EXPECT_EQ(p.statements[3].reduction, ReductionOp::min);
  EXPECT_EQ(p.statements[4].kind, StatementKind::reduce);
  EXPECT_EQ(p.statements[4].reduction, ReductionOp::product);
  EXPECT_EQ(operator_spelling(p.statements[4]), "*=");
  // `gelu` is gelu_erf.
  EXPECT_EQ(p.statements[4].expr.function, Function::gelu_erf);
  // Accumulating into a temporary that has no value names the operator.
  EXPECT_EQ(first_error("def f(f16(M, N) X) -> (f16(M) Y) {\n  t(m) max= X(m, n)\n  Y(m) = t(m)\n}\n"),
            "2:8: error: 'max=' accumulates into temporary 't', which has no value yet; use 'max=!' to start a new "
            "reduction");
  EXPECT_EQ(first_error("def f(f16(M, N) X) -> (f16(M) Y) {\n  Y(m) = sqrt(X(m, n), 2)\n}\n"),
            "2:10: error: function 'sqrt' takes 1 argument, got 2");
}

// Index expressions (issue 24): a read that can leave its tensor is an error naming it;
// one that stays inside compiles (tests/frontend/errors/ has the other errors).
TEST(Sema, IndexExpressions) {
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! A(m + 1, k) * B(k, n)")),
            "2:15: error: A(m + 1, k) reads outside tensor 'A': in dimension 1 the subscript 'm + 1' takes the values "
            "1..M, but dimension 1 of size M holds 0..M - 1; state the value read outside with 'where A = 0 outside', "
            "or narrow the range with 'where'");
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! A(0, k) * B(k, n)")), "");
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! A(m + 1, k) * B(k, n) where A = 0 outside")), "");
}

TEST(Sema, NotSupportedYet) {
  EXPECT_EQ(first_error(gemm_body("  C(m, n) +=! A(k, k) * B(k, n)")),
            "2:20: error: index 'k' appears twice in one tensor reference (diagonal accesses are not "
            "supported yet)");
  EXPECT_EQ(first_error(gemm_body("  C(m, n) = 2 * j")),
            "2:17: error: 'j' is used as a value, but it is neither a size nor an index of this statement (an "
            "index variable is a value where it also indexes a tensor of the statement or has a range from 'where j "
            "in 0:N')");
  EXPECT_EQ(first_error(gemm_body("  C(M, n) = A(M, n)")),
            "2:5: error: index 'M' of the written tensor has the same name as a size; use another index name");
}

TEST(Sema, SeveralErrorsInOneRun) {
  std::vector<std::string> errors = errors_of(gemm_body(
      "  C(m, n) +=! X(m, k) * B(k, n)\n"
      "  C(m, n) += A(m, k) * Y(k, n)\n"
      "  C(m, n) = A(m, n + 1)"));
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], "2:15: error: undeclared tensor 'X'");
  EXPECT_EQ(errors[1], "3:24: error: undeclared tensor 'Y'");
  EXPECT_EQ(errors[2], "4:13: error: A(m, n + 1) reads outside tensor 'A': in dimension 2 the subscript 'n + 1' "
                       "takes the values 1..N, but dimension 2 of size K holds 0..K - 1; state the value read outside "
                       "with 'where A = 0 outside', or narrow the range with 'where'");
}

TEST(Sema, EmptyFile) {
  EXPECT_EQ(first_error(""), "1:1: error: no 'def' in this file");
  EXPECT_EQ(first_error("# only a comment\n\n"), "1:1: error: no 'def' in this file");
}

TEST(Sema, TemporaryShapeTypeAndAccumulation) {
  Program p = compile_one(
      "def f(f16(M, K) A, bf16(K, N) B, f16(N) bias, f16(M, N) X) -> (f16(M, N) D) {\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n"
      "  E(m, n) = X(m, n) * bias(n)\n"
      "  D(m, n) = C(m, n) + E(m, n)\n"
      "}\n",
      {{"K", 64}});
  const Tensor* c = p.find_tensor("C");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->role, TensorRole::temporary);
  EXPECT_EQ(c->type, ElementType::f32);  // reductions accumulate (and store) in f32
  ASSERT_EQ(c->dims.size(), 2u);
  EXPECT_EQ(c->dims[0].to_string(), "M");
  EXPECT_EQ(c->dims[1].to_string(), "N");
  EXPECT_EQ(p.find_tensor("E")->type, ElementType::f16);  // f16 * f16 stays f16
  EXPECT_EQ(p.statements[0].accumulate_type, ElementType::f32);
  EXPECT_EQ(p.statements[0].kind, StatementKind::reduce_init);
  EXPECT_EQ(p.statements[0].reduction_indices(), std::vector<std::string>{"k"});
  EXPECT_EQ(p.statements[2].accumulate_type, ElementType::f32);  // f32 temporary + f16
  EXPECT_EQ(p.parameters, (std::vector<std::string>{"M", "N"}));
  EXPECT_EQ(p.size_bindings.at("K"), 64);
  std::ostringstream domain;
  domain << p.statements[0].domain;
  EXPECT_EQ(domain.str(), "[M, N] -> { S0[m, n, k] : 0 <= m < M and 0 <= n < N and 0 <= k <= 63 }");
}

TEST(Sema, UnusedBindingIsAWarning) {
  FrontendResult result = compile_source(
      SourceFile{"t.tc", "def f(f32(N) a) -> (f32(N) b) { b(i) = a(i) }"}, {{"Q", 3}});
  ASSERT_EQ(result.warnings.size(), 1u);
  // The option is named by its API name in backticks; each front end spells it (-D on the
  // command line).
  EXPECT_EQ(result.warnings[0].message, "`sizes` Q=3: no def in this file has a size named 'Q'");
}

TEST(Sema, SizeBindingParsing) {
  SizeBindings sizes;
  add_size_binding(sizes, "M=128");
  EXPECT_EQ(sizes.at("M"), 128);
  add_size_binding(sizes, "M=128");  // same value again is fine
  auto message = [&](std::string_view text) -> std::string {
    try {
      add_size_binding(sizes, text);
    } catch (const UserError& e) {
      return e.diagnostics().front().message;
    }
    return "";
  };
  EXPECT_EQ(message("M"), "`sizes` 'M': expected NAME=VALUE, e.g. M=1024");
  EXPECT_EQ(message("1M=3"), "`sizes` '1M=3': '1M' is not a size name");
  EXPECT_EQ(message("N=abc"), "`sizes` 'N=abc': the value must be an integer");
  EXPECT_EQ(message("N=0"), "`sizes` 'N=0': sizes must be at least 1");
  EXPECT_EQ(message("N=-5"), "`sizes` 'N=-5': sizes must be at least 1");
  EXPECT_EQ(message("N=123456789012345678901234567890"),
            "`sizes` 'N=123456789012345678901234567890': value is too large (the limit is 2147483647)");
  EXPECT_EQ(message("M=64"), "`sizes` 'M=64': size 'M' is already bound to 128");
}

TEST(Sema, ProgramCopiesAndAssignmentKeepTheContextAlive) {
  Program kept;
  {
    Program original = compile_one("def f(f32(N) a) -> (f32(N) b) { b(i) = a(i) }");
    Program other = compile_one("def g(f32(N) a) -> (f32(N) b) { b(i) = relu(a(i)) }");
    kept = other;
    other = original;  // the old context of `other` is released after its isl objects
    Program moved = std::move(original);
    EXPECT_EQ(moved.name, "f");
  }
  std::ostringstream text;
  text << kept.statements.at(0).domain;
  EXPECT_EQ(text.str(), "[N] -> { S0[i] : 0 <= i < N }");
}

}  // namespace
}  // namespace polyfuse

namespace polyfuse {
namespace {

using testing::compile_one;

// Tensor Comprehensions' spellings (issue 23): outputs declared by name alone take their
// sizes from the index ranges of their first write and their type from the tensors it
// reads (through temporaries); `float` and `half` are f32 and f16; C's math names are the
// built-in functions.
TEST(SemaTcSyntax, OutputsByNameAloneAreInferred) {
  const Program program = compile_one(R"(def g(half(M, K) A, half(K, N) B, float(N) bias) -> (O, P, Q) {
  C(m, n) +=! A(m, k) * B(k, n)
  O(m, n) +=! A(m, k) * B(k, n)
  Q(n) = fabsf(bias(n))
  P(m, n) = fmaxf(C(m, n) + bias(n), 0)
})");
  std::ostringstream shapes;
  for (const Tensor& tensor : program.tensors) {
    shapes << to_string(tensor.role) << " " << to_string(tensor.type) << " " << tensor.name << "(";
    for (std::size_t d = 0; d < tensor.dims.size(); ++d) shapes << (d ? ", " : "") << tensor.dims[d].symbol;
    shapes << ") ";
  }
  // Signature order for the outputs whatever the order of their writes; O from f16 reads
  // is f16; P mixes the f16 matmul's result with an f32 bias: f32.
  EXPECT_EQ(shapes.str(),
            "input f16 A(M, K) input f16 B(K, N) input f32 bias(N) output f16 O(M, N) output f32 P(M, N) "
            "output f32 Q(N) temporary f32 C(M, N) ");
  EXPECT_EQ(program.statements[3].expr.operands.size(), 2u) << "fmaxf is max";
}

// A scalar parameter is a tensor with no dimensions, read by its name alone; an output named
// alone and written without subscripts is one too.
TEST(SemaTcSyntax, ScalarsAreTensorsWithNoDimensions) {
  const Program program = compile_one("def g(float alpha, float(N) X) -> (v) {\n  v +=! alpha * X(n)\n}\n");
  ASSERT_EQ(program.tensors.size(), 3u);
  EXPECT_EQ(program.tensors[0].name, "alpha");
  EXPECT_EQ(program.tensors[0].rank(), 0u);
  EXPECT_EQ(program.tensors[2].name, "v");
  EXPECT_EQ(program.tensors[2].rank(), 0u);
  EXPECT_EQ(print_statement_source(program.statements[0]), "v() +=! alpha() * X(n)");
}

// A bound size in an index expression is its value (`rf - D`); unbound, it is refused
// (tests/frontend/errors/size_in_index_unbound.tc).
TEST(SemaTcSyntax, BoundSizesInIndexExpressionsAreConstants) {
  const Program program =
      compile_one("def g(float(N) X, float(D) W) -> (O) {\n  O(i) = X(i + D) where i in 0:4\n}\n", {{"N", 6}, {"D", 2}});
  EXPECT_EQ(print_statement_source(program.statements[0]), "O(i) = X(i + 2)");
}

// TC's range inference: an index kept inside several tensors by sums takes the values that
// keep it inside all of them (`2*i` and `2*i + 1` inside B(9): i in 0..3).
TEST(SemaTcSyntax, InferredRangesIntersect) {
  const Program program = compile_one("def g(float(I) B) -> A {\n  A(i) = B(2*i) + B(2*i + 1)\n}\n", {{"I", 9}});
  EXPECT_EQ(program.tensors[1].dims.at(0).to_string(), "4");
}

TEST(SemaTcSyntax, CMathNamesAreTheBuiltIns) {
  for (const auto& [c_name, name] : std::vector<std::pair<std::string, std::string>>{
           {"fabs", "abs"}, {"fabsf", "abs"}, {"expf", "exp"}, {"logf", "log"}, {"sqrtf", "sqrt"},
           {"rsqrtf", "rsqrt"}, {"tanhf", "tanh"}}) {
    const Program program = compile_one("def g(float(N) A) -> (O) { O(i) = " + c_name + "(A(i)) }");
    EXPECT_EQ(to_string(program.statements[0].expr.function), name) << c_name;
  }
  for (const auto& [c_name, name] : std::vector<std::pair<std::string, std::string>>{
           {"fmax", "max"}, {"fmaxf", "max"}, {"fmin", "min"}, {"fminf", "min"}}) {
    const Program program = compile_one("def g(float(N) A) -> (O) { O(i) = " + c_name + "(A(i), 0) }");
    EXPECT_EQ(to_string(program.statements[0].expr.function), name) << c_name;
  }
}

}  // namespace
}  // namespace polyfuse
