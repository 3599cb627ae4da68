// Robustness: hand-made hostile inputs and a deterministic mutation loop over the
// examples. Every input must either compile (and then print, with dependences and
// idioms) or throw UserError with located diagnostics; anything else (another
// exception, a crash) fails. The loop is seeded and bounded in time and iterations.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "frontend/frontend.h"
#include "frontend/ir_printer.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

// Compiles and prints `text`; returns "" when it behaved, else what went wrong.
std::string exercise(const std::string& text) {
  try {
    FrontendResult result = compile_source(SourceFile{"fuzz.tc", text}, {{"M", 8}, {"Q", 2}});
    for (const Program& program : result.programs) print_program(program);
  } catch (const UserError& error) {
    for (const Diagnostic& d : error.diagnostics()) {
      if (d.message.empty()) return "empty diagnostic message";
      render_diagnostic(d, text);
    }
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  } catch (...) {
    return "unexpected non-standard exception";
  }
  return "";
}

TEST(Robustness, HostileInputs) {
  std::vector<std::string> inputs = {
      "",
      std::string("\0\0\0def\0", 8),
      "\xff\xfe\xc3\x28 def",
      std::string(100000, '('),
      "def f(f32(N) a) -> (f32(N) b) { b(i) = " + std::string(100000, '(') + "a(i)",
      "def f(f32(123456789012345678901234567890) a) -> (f32(N) b) { b(i) = a(i) }",
      "def f(f32(N) a) -> (f32(N) b) { b(i) = a(i) * 123456789012345678901234567890 }",
      "def f(f32(N) a) -> (f32(N) b) { b(i) = a(i) * 1e99999 }",
      "def " + std::string(1 << 20, 'x'),
      std::string(1 << 20, '\n') + "def",
      "def f(f32(N) a) -> (f32(N) b) { b(i) = a(i) }" + std::string(70, '}'),
      std::string(5000, '}') + std::string(5000, '{'),
      "def f(" + std::string(1000, ',') + ")",
  };
  std::mt19937 rng(7);
  std::string binary(1 << 16, '\0');
  for (char& c : binary) c = static_cast<char>(rng());
  inputs.push_back(binary);
  for (const std::string& input : inputs) EXPECT_EQ(exercise(input), "") << input.substr(0, 200);
}

TEST(Robustness, TooLargeSourceIsRejected) {
  std::string huge((16u << 20) + 1, ' ');
  try {
    compile_source(SourceFile{"big.tc", huge});
    FAIL() << "accepted a file over the size limit";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "big.tc: file is too large (the limit is 16777216 bytes)");
  }
}

// Tokens that mutations insert, so that mutants stay close to the language.
const std::vector<std::string> dictionary = {
    "def", "(", ")", "{", "}", ",", ";", "->", "=", "+=", "+=!", "+", "-", "*", "/", "\n", "#",
    "f16", "bf16", "f32", "f64", "M", "N", "K", "m", "n", "k", "A", "B", "C", "relu", "max",
    "gelu", "0", "1", "1.5", "99999999999999999999999", "A(m, k)", "B(k, n)", "C(m, n)", "\0", "\xff"};

std::string mutate(std::string text, const std::vector<std::string>& seeds, std::mt19937& rng) {
  auto pick = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
  int rounds = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    std::size_t at = pick(text.size() + 1);
    switch (rng() % 6) {
      case 0:  // flip a byte
        if (!text.empty()) text[pick(text.size())] = static_cast<char>(rng());
        break;
      case 1:  // insert a token
        text.insert(at, dictionary[pick(dictionary.size())]);
        break;
      case 2:  // delete a range
        text.erase(at, 1 + pick(16));
        break;
      case 3: {  // duplicate a range
        std::string piece = text.substr(at, 1 + pick(64));
        text.insert(pick(text.size() + 1), piece);
        break;
      }
      case 4: {  // splice another seed
        const std::string& other = seeds[pick(seeds.size())];
        std::size_t from = pick(other.size());
        text = text.substr(0, at) + other.substr(from, 1 + pick(200));
        break;
      }
      default:  // swap two bytes
        if (text.size() > 1) std::swap(text[pick(text.size())], text[pick(text.size())]);
        break;
    }
  }
  return text;
}

TEST(Robustness, MutationFuzzOverExamples) {
  namespace fs = std::filesystem;
  std::vector<std::string> seeds;
  for (const auto& entry : fs::directory_iterator(polyfuse::testing::source_path("examples")))
    if (entry.path().extension() == ".tc")
      seeds.push_back(polyfuse::testing::read_text_file(entry.path().string()));
  std::sort(seeds.begin(), seeds.end());
  ASSERT_FALSE(seeds.empty());
  const char* budget_env = std::getenv("POLYFUSE_FUZZ_SECONDS");
  const double budget = budget_env ? std::atof(budget_env) : 15.0;
  const int max_iterations = 20000;
  std::mt19937 rng(20240611);
  auto start = std::chrono::steady_clock::now();
  int iterations = 0;
  for (; iterations < max_iterations; ++iterations) {
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed.count() > budget) break;
    std::string input = mutate(seeds[iterations % seeds.size()], seeds, rng);
    std::string problem = exercise(input);
    ASSERT_EQ(problem, "") << "iteration " << iterations << " input:\n" << input;
  }
  RecordProperty("iterations", iterations);
  EXPECT_GT(iterations, 100);
}

}  // namespace
}  // namespace polyfuse
