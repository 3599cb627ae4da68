#include "cli_runner.h"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "support/golden.h"

namespace polyfuse::testing {

namespace fs = std::filesystem;

fs::path cli_temp_dir() {
  static fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / fmt::format("polyfuse-cli-test-{}", ::getpid());
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

CliResult run_cli(const std::string& args, const std::string& env) {
  static int counter = 0;
  fs::path out = cli_temp_dir() / fmt::format("out{}", counter);
  fs::path err = cli_temp_dir() / fmt::format("err{}", counter++);
  std::string command = fmt::format("cd '{}' && {} '{}' {} >'{}' 2>'{}'", POLYFUSE_SOURCE_ROOT, env, POLYFUSE_BINARY,
                                    args, out.string(), err.string());
  int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_text_file(out.string());
  result.err = read_text_file(err.string());
  return result;
}

fs::path write_temp_file(const std::string& name, const std::string& text) {
  fs::path path = cli_temp_dir() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

CliResult expect_checked_on_cpu(const std::string& args, const std::string& def) {
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  EXPECT_EQ(r.out.rfind("run: " + def + " on cpu\ncheck: ok (", 0), 0u) << args << ": " << r.out << r.err;
  return r;
}

void expect_refused(const std::string& args, const std::string& message, bool part) {
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 1) << args;
  if (part) EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  else EXPECT_EQ(r.err, message) << args;
}

}  // namespace polyfuse::testing
