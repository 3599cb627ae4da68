// The emulator's precompiled header (runtime/emu/src/precompiled_header.h): built once
// beside its stub in the cache, keyed by the headers' content, skipped when damaged, and a
// kernel built with it computes what the same kernel built without it does.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "polyfuse_emu/fp16.h"
#include "polyfuse_emu/module.h"

namespace {
namespace fs = std::filesystem;
using polyfuse::emu::BuildOptions;
using polyfuse::emu::KernelArg;
using polyfuse::emu::Module;

const char* const kKernel = R"(#include "polyfuse_cuda.cuh"
extern "C" __global__ void scale_relu(const __half* x, __half* y, float alpha, int n) {
  const int i = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
  pf::Chunk16 c = pf::ldg128_pred(x + i, i < n);
  for (int e = 0; e < 8; ++e) pf::chunk_set<__half>(c, e, pf::op::relu(alpha * pf::chunk_get<__half>(c, e)));
  pf::stg128_pred(y + i, c, i < n);
}
)";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh cache root for the test.
fs::path fresh_root(const std::string& name) {
  const fs::path root = fs::temp_directory_path() / ("polyfuse-emu-pch-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(root);
  return root;
}

// The stubs (<hash>.h) of the cache at `root`.
std::vector<fs::path> stubs(const fs::path& root) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(root / "emu", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".h") found.push_back(it->path());
  return found;
}

// scale_relu's outputs over 256 halves, built with `options`.
std::vector<float> run_scale(const BuildOptions& options, const std::string& variant = "") {
  const Module module = Module::compile(std::string(kKernel) + "// " + variant + "\n", options);
  struct alignas(128) Halves {
    __half v[256];
  };
  static Halves xs, ys;
  for (int i = 0; i < 256; ++i) xs.v[i] = __half(static_cast<float>(i % 7) - 3.f);
  polyfuse::emu::ScopedBuffer bx(xs.v, 512, "x"), by(ys.v, 512, "y");
  module.launch("scale_relu", dim3(1), dim3(32), 0,
                {KernelArg::pointer(xs.v), KernelArg::pointer(ys.v), KernelArg::f32(2.f), KernelArg::i32(256)});
  std::vector<float> y;
  for (const __half& h : ys.v) y.push_back(float(h));
  return y;
}

// Skips unless the build compiler makes GCC precompiled headers.
bool gcc_pch(const fs::path& root) {
  const std::vector<fs::path> found = stubs(root);
  return found.size() == 1 && read_file(found[0].string() + ".gch").compare(0, 4, "gpch") == 0;
}

TEST(EmuPch, BuiltOnceBesideItsStubAndSameResultsAsWithout) {
  BuildOptions with;
  with.cache_dir = fresh_root("same").string();
  const std::vector<float> y = run_scale(with);
  if (!gcc_pch(with.cache_dir)) GTEST_SKIP() << "the emulator's compiler makes no GCC precompiled header";
  const fs::path stub = stubs(with.cache_dir)[0];
  EXPECT_EQ(read_file(stub), "#include \"polyfuse_emu/cuda_emulation.h\"\n");
  const auto built_at = fs::last_write_time(stub.string() + ".gch");
  run_scale(with, "another kernel");
  EXPECT_EQ(stubs(with.cache_dir).size(), 1u);
  EXPECT_EQ(fs::last_write_time(stub.string() + ".gch"), built_at);

  BuildOptions without = with;
  without.precompiled_header = false;
  const Module plain = Module::compile(std::string(kKernel) + "// \n", without);
  EXPECT_FALSE(plain.from_cache());  // its own object: the key says how it was built
  EXPECT_EQ(run_scale(without), y);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(y[i], std::max(0.f, 2.f * (static_cast<float>(i % 7) - 3.f))) << i;
  fs::remove_all(with.cache_dir);
}

// Headers given by $POLYFUSE_EMU_INCLUDE_DIR / $POLYFUSE_CUDA_HELPERS_DIR: a changed header
// is another precompiled header.
TEST(EmuPch, TheKeyChangesWhenAHeaderChanges) {
  const fs::path copy = fresh_root("headers-copy");
  fs::create_directories(copy);
  fs::copy(fs::path(POLYFUSE_SOURCE_ROOT) / "runtime/emu/include", copy / "include", fs::copy_options::recursive);
  fs::copy(fs::path(POLYFUSE_SOURCE_ROOT) / "kernels/cuda", copy / "cuda", fs::copy_options::recursive);
  setenv("POLYFUSE_EMU_INCLUDE_DIR", (copy / "include").c_str(), 1);
  setenv("POLYFUSE_CUDA_HELPERS_DIR", (copy / "cuda").c_str(), 1);
  BuildOptions options;
  options.cache_dir = fresh_root("key").string();
  const std::vector<float> y = run_scale(options);
  const bool gcc = gcc_pch(options.cache_dir);
  std::ofstream(copy / "include/polyfuse_emu/cuda_types.h", std::ios::app) << "// changed\n";
  EXPECT_EQ(run_scale(options), y);
  unsetenv("POLYFUSE_EMU_INCLUDE_DIR");
  unsetenv("POLYFUSE_CUDA_HELPERS_DIR");
  if (gcc) {
    EXPECT_EQ(stubs(options.cache_dir).size(), 2u);
  }
  fs::remove_all(copy);
  fs::remove_all(options.cache_dir);
}

// A damaged precompiled header is never used: GCC skips what is not one (and reads the
// stub's text); the build retries without one when GCC rejects it with an error.
TEST(EmuPch, ADamagedOrMissingPrecompiledHeaderFallsBack) {
  BuildOptions options;
  options.cache_dir = fresh_root("damaged").string();
  const std::vector<float> y = run_scale(options);
  if (!gcc_pch(options.cache_dir)) GTEST_SKIP() << "the emulator's compiler makes no GCC precompiled header";
  const std::string gch = stubs(options.cache_dir)[0].string() + ".gch";
  const std::string good = read_file(gch);
  fs::remove(gch);
  std::ofstream(gch, std::ios::binary) << "garbage";
  EXPECT_EQ(run_scale(options, "after garbage"), y);
  fs::remove(gch);
  std::ofstream(gch, std::ios::binary) << good.substr(0, good.size() / 2);
  EXPECT_EQ(run_scale(options, "after truncation"), y);
  fs::remove(gch);
  EXPECT_EQ(run_scale(options, "after removal"), y);
  fs::remove_all(options.cache_dir);
}

// Run by ProcessesSharingACacheLeaveNoTemporaries in processes of their own: one kernel built
// with the cache root $POLYFUSE_EMU_PCH_TEST_ROOT.
TEST(EmuPch, DISABLED_OneBuildInTheSharedCache) {
  BuildOptions options;
  options.cache_dir = std::getenv("POLYFUSE_EMU_PCH_TEST_ROOT");
  run_scale(options, "process " + std::to_string(getpid()));
}

// A process placing the precompiled header beside its stub where an earlier process placed it
// (the same file: a hard link) leaves no temporary behind (rename(2) between two links of one
// file does nothing; such temporaries once piled up, one per test process).
TEST(EmuPch, ProcessesSharingACacheLeaveNoTemporaries) {
  const fs::path root = fresh_root("processes");
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  for (int process = 0; process < 3; ++process) {
    const std::string command = "POLYFUSE_EMU_PCH_TEST_ROOT='" + root.string() + "' '" + self +
                                "' --gtest_filter=EmuPch.DISABLED_OneBuildInTheSharedCache "
                                "--gtest_also_run_disabled_tests > /dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  if (!gcc_pch(root)) GTEST_SKIP() << "the emulator's compiler makes no GCC precompiled header";
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(root / "emu"))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) left.push_back(entry.path().filename());
  EXPECT_TRUE(left.empty()) << left.size() << " temporaries left, the first " << left.front();
  fs::remove_all(root);
}

}  // namespace
