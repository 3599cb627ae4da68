// Runs the built `polyfuse` binary as a separate process from the source root and
// collects its exit code, stdout and stderr (for the CLI tests).
#pragma once

#include <filesystem>
#include <string>

namespace polyfuse::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A fresh temporary directory per test process.
std::filesystem::path cli_temp_dir();

// Runs `polyfuse ARGS` (ARGS already shell-quoted; `env` is prepended, e.g. "X=1").
CliResult run_cli(const std::string& args, const std::string& env = "");

// `polyfuse ARGS` is refused: exit code 1, stderr `message` (or, with `part`, containing it);
// gtest expectations.
void expect_refused(const std::string& args, const std::string& message, bool part = false);

// `polyfuse ARGS` (a `run ... --target=cpu`) succeeds and its output starts with
// "run: DEF on cpu\ncheck: ok ("; gtest expectations. Returns the result for further checks.
CliResult expect_checked_on_cpu(const std::string& args, const std::string& def);

// Writes `text` to a file `name` in cli_temp_dir() and returns its path.
std::filesystem::path write_temp_file(const std::string& name, const std::string& text);

}  // namespace polyfuse::testing
