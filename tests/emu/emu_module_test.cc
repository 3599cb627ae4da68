// Run-time builds: a .cu text (the helper amalgamation + a kernel, as the code generator
// will emit it) is compiled to a shared object, cached, dlopen'ed and launched by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyfuse/cuda_helpers_embedded.h"
#include "polyfuse_emu/fp16.h"
#include "polyfuse_emu/module.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace {
using polyfuse::emu::KernelArg;

std::string scale_source(const std::string& variant) {
  return std::string(polyfuse::cuda_helpers::amalgamation()) + R"(
// scale + ReLU, one 8-element chunk per thread (variant )" + variant + R"()
extern "C" __global__ void scale_relu(const __half* x, __half* y, float alpha, int n) {
  const int i = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
  pf::Chunk16 c = pf::ldg128_pred(x + i, i < n);
  for (int e = 0; e < 8; ++e) pf::chunk_set<__half>(c, e, pf::op::relu(alpha * pf::chunk_get<__half>(c, e)));
  pf::stg128_pred(y + i, c, i < n);
}
extern "C" __global__ void oob(float* p) { pf::stg(p + 1000000, 1.0f); }
)";
}

TEST(EmuModule, CompilesAmalgamatedSourceLaunchesByNameAndCaches) {
  const std::string source = scale_source(std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  const auto module = polyfuse::emu::Module::compile(source);
  EXPECT_EQ(module.kernels(), (std::vector<std::string>{"scale_relu", "oob"}));
  EXPECT_EQ(module.signature("scale_relu"), "ppfi");
  struct alignas(128) Halves {
    __half v[256];
  };
  static Halves xs, ys;
  __half* x = xs.v;
  __half* y = ys.v;
  for (int i = 0; i < 256; ++i) x[i] = __half(static_cast<float>(i % 7) - 3.f);
  polyfuse::emu::ScopedBuffer bx(x, 512, "x"), by(y, 512, "y");
  const auto stats = module.launch("scale_relu", dim3(1), dim3(32), 0,
                                   {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::f32(2.f),
                                    KernelArg::i32(256)});
  for (int i = 0; i < 256; ++i) EXPECT_EQ(float(y[i]), std::max(0.f, 2.f * float(x[i]))) << i;
  EXPECT_EQ(stats.global_bytes_loaded, 512u);
  EXPECT_EQ(stats.global_sectors, 32u);

  const auto again = polyfuse::emu::Module::compile(source);
  EXPECT_TRUE(again.from_cache());
  EXPECT_EQ(again.shared_object(), module.shared_object());
}

TEST(EmuModule, ErrorsInBuiltKernelsAreEmulationErrors) {
  const auto module = polyfuse::emu::Module::compile(scale_source("errors"));
  std::vector<float> p(4);
  polyfuse::emu::ScopedBuffer bp(p.data(), p.size() * 4, "p");
  try {
    module.launch("oob", dim3(1), dim3(32), 0, {KernelArg::pointer(p.data())});
    FAIL() << "no error";
  } catch (const polyfuse::emu::EmulationError& e) {
    EXPECT_NE(std::string(e.what()).find("out-of-bounds global store"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("kernel 'oob'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(module.launch("scale_relu", dim3(1), dim3(32), 0, {KernelArg::pointer(p.data())}),
               polyfuse::emu::EmulationError);
}

// The code generator writes `__global__ void __launch_bounds__(256) name(`; the scan used to
// find no kernel there.
TEST(EmuModule, KernelScanAcceptsLaunchBoundsOnEitherSideOfVoid) {
  EXPECT_EQ(polyfuse::emu::find_kernel_names("extern \"C\" __global__ void __launch_bounds__(256) a(int* p) {}\n"
                                             "extern \"C\" __global__ __launch_bounds__(128, 2) void b(int* p) {}\n"
                                             "extern \"C\" __global__ void c(int* p) {}\n"),
            (std::vector<std::string>{"a", "b", "c"}));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replaces `path` by a file holding `bytes` (a new file: the old one may be mapped).
void replace_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path + ".damage", std::ios::binary) << bytes;
  std::rename((path + ".damage").c_str(), path.c_str());
}

// The cached object is checked before it is loaded: a damaged object is restored from its
// checksummed entry, a damaged entry is rebuilt; neither is ever dlopen'ed.
TEST(EmuModule, DamagedCacheFilesAreNeverLoaded) {
  const std::string source = scale_source("damage " + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::string object, good;
  {
    const auto built = polyfuse::emu::Module::compile(source);  // unloaded at the end of the scope
    object = built.shared_object();
    good = read_file(object);
  }
  replace_file(object, "not an ELF object");
  {
    const auto restored = polyfuse::emu::Module::compile(source);
    EXPECT_TRUE(restored.from_cache());
    EXPECT_EQ(read_file(restored.shared_object()), good);
    EXPECT_EQ(restored.signature("scale_relu"), "ppfi");
  }
  const std::string entry = object.substr(0, object.size() - 3) + ".pfc";
  ASSERT_FALSE(read_file(entry).empty()) << entry;
  replace_file(entry, "garbage");
  replace_file(object, "not an ELF object");
  const auto rebuilt = polyfuse::emu::Module::compile(source);
  EXPECT_FALSE(rebuilt.from_cache());
  EXPECT_EQ(rebuilt.signature("scale_relu"), "ppfi");
}

TEST(EmuModule, CompileErrorsAreReported) {
  EXPECT_THROW(polyfuse::emu::Module::compile("extern \"C\" __global__ void broken(int* p) { p = ; }"),
               polyfuse::emu::EmulationError);
}

}  // namespace

// A register read before it is written holds a poison pattern (BuildOptions::poison_registers:
// -ftrivial-auto-var-init=pattern), not what the fiber's stack held: a fresh stack holds zeros,
// and a split-K accumulator never initialised summed to the right answer on it.
TEST(EmuModule, RegistersReadBeforeTheyAreWrittenHoldPoison) {
  const std::string source = std::string(polyfuse::cuda_helpers::amalgamation()) + R"(
extern "C" __global__ void accumulate(float* y, int initialise) {
  float acc[4];
  if (initialise)
    for (int e = 0; e < 4; ++e) acc[e] = 0.f;
  for (int e = 0; e < 4; ++e) acc[e] += 1.f;
  for (int e = 0; e < 4; ++e) pf::stg(y + 4 * threadIdx.x + e, acc[e]);
}
)";
  const auto module = polyfuse::emu::Module::compile(source);
  std::vector<float> y(128);
  polyfuse::emu::ScopedBuffer by(y.data(), y.size() * 4, "y");
  module.launch("accumulate", dim3(1), dim3(32), 0, {KernelArg::pointer(y.data()), KernelArg::i32(1)});
  for (float v : y) EXPECT_EQ(v, 1.f);
  module.launch("accumulate", dim3(1), dim3(32), 0, {KernelArg::pointer(y.data()), KernelArg::i32(0)});
  for (float v : y) EXPECT_FALSE(v == 1.f) << "an accumulator never initialised read as zero";
}
