// Dependences: RAW/WAR/WAW between statements and the carried dependence of reductions.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "frontend/dependences.h"
#include "frontend/frontend.h"
#include "support/golden.h"
#include "test_util.h"

namespace polyfuse {
namespace {

using testing::compile_one;
using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(Dependences, MatmulWithEpilogue) {
  Program p = compile_one(
      "def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D) {\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n"
      "  D(m, n) = relu(C(m, n))\n}\n");
  Dependences d = compute_dependences(p);
  EXPECT_EQ(statement_pairs(p, d.raw, true), (Pairs{{"S0", "S0"}, {"S0", "S1"}}));
  // The epilogue reads the final value only: k = K - 1.
  isl::union_map s0_to_s1 = d.raw.intersect_range(isl::union_set(p.statements[1].domain));
  isl::union_map expected(p.ctx(), "[M, K, N] -> { S0[m, n, k] -> S1[m, n] : k = K - 1 and 0 <= m < M and 0 <= n < N }");
  EXPECT_TRUE(s0_to_s1.intersect_params(p.assumptions()).is_equal(expected.intersect_params(p.assumptions())));
  EXPECT_EQ(statement_pairs(p, d.waw, true), (Pairs{{"S0", "S0"}}));
}

TEST(Dependences, ReduceInitStartsFromZero) {
  Program p = compile_one(
      "def g(f32(N) x, f32(N, K) A) -> (f32(N) y) {\n"
      "  y(i) = x(i)\n"
      "  y(i) +=! A(i, k)\n}\n");
  Dependences d = compute_dependences(p);
  // S1 does not read what S0 wrote (+=! restarts at zero), it overwrites it.
  EXPECT_EQ(statement_pairs(p, d.raw), Pairs{});
  EXPECT_EQ(statement_pairs(p, d.waw), (Pairs{{"S0", "S1"}}));
}

TEST(Dependences, ReduceAccumulatesIntoEarlierValue) {
  Program p = compile_one(
      "def g(f32(N) x, f32(N, K) A) -> (f32(N) y) {\n"
      "  y(i) = x(i)\n"
      "  y(i) += A(i, k)\n}\n");
  Dependences d = compute_dependences(p);
  EXPECT_EQ(statement_pairs(p, d.raw), (Pairs{{"S0", "S1"}}));
}

TEST(Dependences, AntiDependence) {
  Program p = compile_one(
      "def g(f32(N) a) -> (f32(N) b, f32(N) c) {\n"
      "  T(i) = a(i)\n"
      "  b(i) = T(i)\n"
      "  T(i) = a(i) * 2\n"
      "  c(i) = T(i)\n}\n");
  Dependences d = compute_dependences(p);
  EXPECT_EQ(statement_pairs(p, d.raw), (Pairs{{"S0", "S1"}, {"S2", "S3"}}));
  EXPECT_EQ(statement_pairs(p, d.war), (Pairs{{"S1", "S2"}}));
  EXPECT_EQ(statement_pairs(p, d.waw), (Pairs{{"S0", "S2"}}));
  EXPECT_FALSE(d.all().is_empty());
}

TEST(Dependences, ProgramOrderSchedule) {
  Program p = compile_one(
      "def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D) {\n"
      "  C(m, n) +=! A(m, k) * B(k, n)\n"
      "  D(m, n) = relu(C(m, n))\n}\n",
      {{"M", 2}, {"N", 3}, {"K", 4}});
  std::ostringstream text;
  text << p.program_order();
  isl::union_map expected(p.ctx(),
                          "{ S0[m, n, k] -> [0, m, n, k] : 0 <= m < 2 and 0 <= n < 3 and 0 <= k < 4; "
                          "S1[m, n] -> [1, m, n, 0] : 0 <= m < 2 and 0 <= n < 3 }");
  EXPECT_TRUE(p.program_order().is_equal(expected)) << text.str();
}

// flow_statement_pairs (idiom recognition's flow dependences, computed alone and remembered)
// gives the statement pairs of the full analysis's RAW relation, for every def of every
// example, asked once and again (then from memory).
TEST(Dependences, FlowStatementPairsAreTheFullAnalysisOnes) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(testing::source_path("examples")))
    if (entry.path().extension() == ".tc") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  int defs = 0, with_pairs = 0;
  for (const fs::path& file : files) {
    FrontendResult result;
    try {
      result = compile_source(SourceFile{file.filename().string(), testing::read_text_file(file.string())}, {});
    } catch (const UserError&) {
      continue;  // (an example whose sizes must be bound: its defs are others' shapes)
    }
    for (const Program& program : result.programs) {
      SCOPED_TRACE(file.filename().string() + ": def " + program.name);
      const Pairs full = statement_pairs(program, compute_dependences(program).raw);
      EXPECT_EQ(flow_statement_pairs(program), full);
      EXPECT_EQ(flow_statement_pairs(program), full);
      ++defs;
      with_pairs += !full.empty();
    }
  }
  EXPECT_GE(defs, 20);
  EXPECT_GE(with_pairs, 10);
}

}  // namespace
}  // namespace polyfuse
