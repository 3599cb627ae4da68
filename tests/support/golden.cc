#include "support/golden.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "runtime/paths/data_root.h"

namespace polyfuse::testing {
namespace fs = std::filesystem;

std::string source_path(std::string_view relative) {
  return (paths::data_root(reinterpret_cast<const void*>(&source_path), POLYFUSE_SOURCE_ROOT).path / fs::path(relative))
      .string();
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

static bool update_requested() {
  const char* flag = std::getenv("UPDATE_GOLDEN");
  return flag != nullptr && std::string_view(flag) == "1";
}

// `diff -u` of two texts, through temporary files; falls back to naming the first line
// that differs when diff is not available.
static std::string unified_diff(const std::string& golden_path, const std::string& actual) {
  fs::path actual_path = fs::temp_directory_path() /
                         ("polyfuse-actual-" + std::to_string(::getpid()) + "-" +
                          fs::path(golden_path).filename().string());
  { std::ofstream(actual_path, std::ios::binary) << actual; }
  std::string command = "diff -u '" + golden_path + "' '" + actual_path.string() + "' 2>&1";
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    ::pclose(pipe);
  }
  fs::remove(actual_path);
  if (out.size() > 20000) out = out.substr(0, 20000) + "\n... (diff cut)\n";
  return out;
}

::testing::AssertionResult matches_golden(const std::string& actual,
                                          std::string_view golden_relative) {
  fs::path golden = fs::path(source_path("tests/golden")) / fs::path(golden_relative);
  if (update_requested()) {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
    return ::testing::AssertionSuccess() << "rewrote " << golden.string();
  }
  if (!fs::exists(golden))
    return ::testing::AssertionFailure()
           << "golden file " << golden.string()
           << " does not exist; run the test with UPDATE_GOLDEN=1 to create it";
  std::string expected = read_text_file(golden.string());
  if (expected == actual) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "output differs from " << golden.string()
         << " (UPDATE_GOLDEN=1 rewrites it after review):\n"
         << unified_diff(golden.string(), actual);
}

}  // namespace polyfuse::testing
