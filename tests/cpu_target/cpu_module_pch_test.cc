// The CPU target's precompiled headers (runtime/cpu/cpu_module.h, runtime/cache/
// precompiled_header.h): one precompiled header of every header generated code includes,
// beside its stub in the cache, built once; a library built with it computes what the same
// source built without it does; a damaged one is never used. Each case runs in a process of
// its own on a fresh cache root (the cache's root is fixed per process).
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/cache/artifact_cache.h"
#include "runtime/cpu/cpu_module.h"

namespace polyfuse::testing {
namespace {
namespace fs = std::filesystem;
using cpu_runtime::CpuModule;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Generated-looking code: a comment, a few include lines, the entry point; `variant` makes
// another library.
std::string source(const std::string& variant) {
  return "// A test library (" + variant +
         ")\n#include <cmath>\n#include <cstdint>\n\n#include \"polyfuse/cpu/elementwise.h\"\n"
         "\nusing namespace polyfuse::cpu;\n\n"
         "extern \"C\" void pch_test_buffers(void* const* b) {\n"
         "  const float* x = static_cast<const float*>(b[0]);\n"
         "  float* y = static_cast<float*>(b[1]);\n"
         "  for (int i = 0; i < 64; ++i) y[i] = apply(UnaryOp::sqrt, std::fabs(x[i])) + static_cast<float>(INT8_MAX);\n"
         "}\n";
}

// Builds `variant` (never built before in this cache), runs it and checks its outputs.
void build_and_check(const std::string& variant) {
  const CpuModule module = CpuModule::load(source(variant), "pch_test");
  EXPECT_FALSE(module.from_cache()) << variant;
  std::vector<float> x(64), y(64, -1.f);
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>(i * i % 17) - 8.f;
  void* buffers[] = {x.data(), y.data()};
  module(buffers);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(y[i], std::sqrt(std::fabs(x[i])) + 127.f) << variant << " at " << i;
}

// The stubs of the cache's "cpu" kind.
std::vector<fs::path> stubs() {
  std::vector<fs::path> found;
  std::error_code ec;
  const fs::path dir = cache::ArtifactCache::global().config().root / "cpu";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".h") found.push_back(it->path());
  return found;
}

bool gcc_pch() {
  const std::vector<fs::path> found = stubs();
  return found.size() == 1 && read_file(found[0].string() + ".gch").compare(0, 4, "gpch") == 0;
}

// Runs `test` (a DISABLED_ case below) in a process of its own with a fresh cache root;
// returns its exit status (77: skipped, no GCC precompiled header).
int in_own_process(const std::string& test) {
  const fs::path root = fs::temp_directory_path() / ("polyfuse-cpu-pch-" + test + "-" + std::to_string(getpid()));
  fs::remove_all(root);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string command = "POLYFUSE_CACHE_DIR='" + root.string() + "' '" + self + "' --gtest_filter=CpuPch.DISABLED_" +
                              test + " --gtest_also_run_disabled_tests > '" + root.string() + ".log' 2>&1";
  const int status = std::system(command.c_str());
  const std::string log = read_file(root.string() + ".log");
  fs::remove_all(root);
  fs::remove(root.string() + ".log");
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  if (code != 0 && code != 77) ADD_FAILURE() << test << " exited " << code << ":\n" << log;
  if (code == 0 && log.find("[  SKIPPED ]") != std::string::npos) return 77;
  return code;
}

TEST(CpuPch, DISABLED_BuiltOnce) {
  build_and_check("first");
  if (!gcc_pch()) GTEST_SKIP() << "the CPU target's compiler makes no GCC precompiled header";
  const fs::path stub = stubs()[0];
  EXPECT_EQ(read_file(stub), cpu_runtime::kPrecompiledIncludes);
  const auto built_at = fs::last_write_time(stub.string() + ".gch");
  build_and_check("second");
  EXPECT_EQ(stubs().size(), 1u);
  EXPECT_EQ(fs::last_write_time(stub.string() + ".gch"), built_at);
  setenv("POLYFUSE_CPU_PCH", "0", 1);
  build_and_check("without");
  unsetenv("POLYFUSE_CPU_PCH");
}

// GCC skips a precompiled header that is not one (and reads the stub's text); the build
// retries without one when GCC rejects it with an error.
TEST(CpuPch, DISABLED_Damaged) {
  build_and_check("damaged: first");
  if (!gcc_pch()) GTEST_SKIP() << "the CPU target's compiler makes no GCC precompiled header";
  const std::string gch = stubs()[0].string() + ".gch";
  const std::string good = read_file(gch);
  fs::remove(gch);
  std::ofstream(gch, std::ios::binary) << "garbage";
  build_and_check("damaged: after garbage");
  fs::remove(gch);
  std::ofstream(gch, std::ios::binary) << good.substr(0, good.size() / 2);
  build_and_check("damaged: after truncation");
  fs::remove(gch);
  build_and_check("damaged: after removal");
}

TEST(CpuPch, OneForEveryGeneratedFileBuiltOnceSameResultsAsWithout) {
  if (in_own_process("BuiltOnce") == 77) GTEST_SKIP() << "the CPU target's compiler makes no GCC precompiled header";
}

TEST(CpuPch, ADamagedOrMissingPrecompiledHeaderFallsBack) {
  if (in_own_process("Damaged") == 77) GTEST_SKIP() << "the CPU target's compiler makes no GCC precompiled header";
}

}  // namespace
}  // namespace polyfuse::testing
