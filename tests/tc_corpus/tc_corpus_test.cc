// Tensor Comprehensions' published programs (tests/tc_corpus/*.tc; README "The TC corpus")
// run as `polyfuse run FILE -D .. --backend=emu` and `--target=cpu` would run them, at the
// even and the odd size set of each file's header, against the exact reference.
//
// tests/tc_corpus/expected_errors.txt lists every run that does not run today with the
// exact located error it gets (`NAME: ERROR` for all four runs, `NAME [emu]: ERROR` for one
// target's two size sets, `NAME [cpu odd]: ERROR` for one run). A program's test fails when
// its outcome differs from that list either way (a regression, or a program that started to
// run: then update the list from the failure message). A wrong result (`check: FAILED`),
// an error without a place in the file, an emulator fault or an internal error always fail.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "corpus_program.h"
#include "frontend/frontend.h"
#include "polyfuse/errors.h"
#include "runtime/api/run_program.h"
#include "support/golden.h"

namespace polyfuse::testing {
namespace {

const char* const kExpectedFile = "tests/tc_corpus/expected_errors.txt";

// One run: a target and a size set.
struct CorpusRun {
  std::string target;  // "emu" or "cpu"
  std::string sizes;   // "even" or "odd"
};
const CorpusRun kRuns[] = {{"emu", "even"}, {"emu", "odd"}, {"cpu", "even"}, {"cpu", "odd"}};

// The first diagnostic of `error` as the command line prints it.
std::string located(const UserError& error) {
  const Diagnostic& d = error.diagnostics().front();
  return fmt::format("{}:{}:{}: error: {}", d.file, d.line, d.col, d.message);
}

// "" when `program` runs `run` and checks ok, else the located error it gets; a wrong result
// or a failure that is not a located user error fails the test.
std::string outcome(const CorpusProgram& program, const CorpusRun& run) {
  SCOPED_TRACE(fmt::format("{} on {} at the {} sizes", program.file, run.target, run.sizes));
  try {
    const Program compiled =
        compile_source(SourceFile{program.file, program.text}, run.sizes == "even" ? program.even : program.odd)
            .programs.at(0);
    RunRequest request;
    request.repeats = 0;
    request.seed = 7;
    if (run.target == "cpu") {
      request.target = Target::cpu;
    } else {
      request.target = Target::gpu;
      request.backend = Backend::emu;
    }
    const RunReport report = run_program(compiled, request);
    EXPECT_TRUE(report.check.ok) << "check: FAILED (a wrong result is never an expected outcome)\n"
                                 << report.check.to_string();
    EXPECT_GT(report.check.compared, 0);
    return "";
  } catch (const UserError& error) {
    const std::string message = located(error);
    EXPECT_EQ(message.rfind(program.file + ":", 0), 0u) << "an error without its place in the file: " << message;
    EXPECT_EQ(message.find(":0:0:"), std::string::npos) << "an error without its place in the file: " << message;
    return message;
  } catch (const std::exception& error) {
    ADD_FAILURE() << "not a located user error: " << error.what();
    return std::string("unexpected: ") + error.what();
  }
}

// The lines of the expectation list for `name`'s four outcomes (in kRuns' order).
std::vector<std::string> expectation_lines(const std::string& name, const std::vector<std::string>& outcomes) {
  std::vector<std::string> lines;
  if (outcomes[0] != "" && outcomes[0] == outcomes[1] && outcomes[0] == outcomes[2] && outcomes[0] == outcomes[3])
    return {name + ": " + outcomes[0]};
  for (std::size_t target = 0; target < 2; ++target) {
    const std::string& even = outcomes[2 * target];
    const std::string& odd = outcomes[2 * target + 1];
    const std::string label = kRuns[2 * target].target;
    if (!even.empty() && even == odd) {
      lines.push_back(fmt::format("{} [{}]: {}", name, label, even));
      continue;
    }
    if (!even.empty()) lines.push_back(fmt::format("{} [{} even]: {}", name, label, even));
    if (!odd.empty()) lines.push_back(fmt::format("{} [{} odd]: {}", name, label, odd));
  }
  return lines;
}

// The expectation list's lines, by program name (comments and blank lines left out).
std::map<std::string, std::vector<std::string>> expected_lines() {
  std::map<std::string, std::vector<std::string>> lines;
  std::istringstream text(read_text_file(source_path(kExpectedFile)));
  for (std::string line; std::getline(text, line);) {
    if (line.empty() || line[0] == '#') continue;
    lines[line.substr(0, line.find_first_of(" :"))].push_back(line);
  }
  return lines;
}

class TcCorpus : public ::testing::TestWithParam<CorpusProgram> {};

TEST_P(TcCorpus, RunsOrFailsAsListed) {
  const CorpusProgram& program = GetParam();
  ASSERT_FALSE(program.even.empty()) << program.file << " has no '# sizes even:' line";
  ASSERT_FALSE(program.odd.empty()) << program.file << " has no '# sizes odd:' line";
  std::vector<std::string> outcomes;
  for (const CorpusRun& run : kRuns) outcomes.push_back(outcome(program, run));
  const std::vector<std::string> actual = expectation_lines(program.name, outcomes);
  const auto expected = expected_lines();
  const auto found = expected.find(program.name);
  const std::vector<std::string> listed = found == expected.end() ? std::vector<std::string>{} : found->second;
  EXPECT_EQ(listed, actual) << "update " << kExpectedFile << ": the lines of " << program.name << " are now\n"
                            << fmt::format("{}", fmt::join(actual, "\n"));
}

INSTANTIATE_TEST_SUITE_P(Programs, TcCorpus, ::testing::ValuesIn(corpus_programs()),
                         [](const auto& info) { return info.param.name; });

// Every listed name is a program of the corpus; the counts of what runs, from the list.
TEST(TcCorpusList, NamesProgramsAndCountsThem) {
  const std::vector<CorpusProgram> programs = corpus_programs();
  std::map<std::string, bool> names;
  for (const CorpusProgram& program : programs) names[program.name] = true;
  int emu = 0, cpu = 0, both = 0;
  const auto expected = expected_lines();
  for (const auto& [name, lines] : expected) EXPECT_TRUE(names.count(name)) << kExpectedFile << " lists " << name;
  for (const CorpusProgram& program : programs) {
    const auto found = expected.find(program.name);
    bool emu_ok = true, cpu_ok = true;
    if (found != expected.end())
      for (const std::string& line : found->second) {
        const bool all = line.compare(program.name.size(), 2, ": ") == 0;
        emu_ok = emu_ok && !all && line.find(" [emu") == std::string::npos;
        cpu_ok = cpu_ok && !all && line.find(" [cpu") == std::string::npos;
      }
    emu += emu_ok;
    cpu += cpu_ok;
    both += emu_ok && cpu_ok;
  }
  std::printf("TC corpus: %zu programs; check: ok at both size sets on the emulator %d, on the CPU target %d, on both %d\n",
              programs.size(), emu, cpu, both);
  EXPECT_GT(programs.size(), 0u);
}

}  // namespace
}  // namespace polyfuse::testing
