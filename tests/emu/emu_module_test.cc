// Run-time builds: a .cu text (the helper amalgamation + a kernel, as the code generator
// will emit it) is compiled to a shared object, cached, dlopen'ed and launched by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyfuse/cuda_helpers_embedded.h"
#include "polyfuse_emu/fp16.h"
#include "polyfuse_emu/module.h"

#include <algorithm>

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

TEST(EmuModule, CompileErrorsAreReported) {
  EXPECT_THROW(polyfuse::emu::Module::compile("extern \"C\" __global__ void broken(int* p) { p = ; }"),
               polyfuse::emu::EmulationError);
}

}  // namespace
