// Launches through the API: the emulator backend on host buffers against a reference,
// argument checks with clear messages, "no CUDA device" without a GPU, and on a GPU the
// cuda backend against the emulator.
#include <gtest/gtest.h>

#include <functional>

#include "api_test_util.h"
#include "handwritten_kernel.h"
#include "polyfuse/polyfuse.h"
#include "runtime/api/compiled_kernel_factory.h"

namespace {
using pf_api_test::gemm_reference;
using pf_api_test::pattern;

polyfuse::CompiledKernel gemm_kernel(polyfuse::Backend backend, std::map<std::string, std::int64_t> sizes) {
  auto program = polyfuse::TensorProgram::parse(pf_api_test::gemm_text(), "gemm.tc");
  program.bind(sizes);
  polyfuse::CompileOptions options;
  options.backend = backend;
  return program.compile(options);
}

// The hand-written kernel (independent of the code generator) on a backend.
polyfuse::CompiledKernel scale_relu_kernel(polyfuse::Backend backend) {
  return polyfuse::api::make_compiled_kernel(backend, pf_runtime_test::scale_relu_source("api"),
                                             pf_runtime_test::scale_relu_metadata(), {}, polyfuse::CompileOptions{});
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const polyfuse::ArgumentError& e) {
    return e.what();
  }
  return "(no ArgumentError)";
}

TEST(EmuLaunch, HandwrittenKernelOnHostBuffersWithSizeArgument) {
  const polyfuse::CompiledKernel k = scale_relu_kernel(polyfuse::Backend::emu);
  EXPECT_EQ(k.backend(), polyfuse::Backend::emu);
  EXPECT_TRUE(k.cubin().empty());
  const int n = 1000;  // not a multiple of the 256 elements of one block
  std::vector<__half> x = pattern(1024, 1), y(1024, __half(-7.0f));
  const polyfuse::LaunchStats stats = k.launch({x, y, n});
  for (int i = 0; i < 1024; ++i) {
    const float expected = i < n ? std::max(0.f, 2.f * float(x[i])) : -7.f;
    ASSERT_EQ(float(y[i]), expected) << i;
  }
  // The launch returns its own counters.
  EXPECT_TRUE(stats.emulated);
  EXPECT_EQ(stats.counter("global_bytes_loaded"), 2000u);
  EXPECT_EQ(stats.summary().rfind("stats: global_bytes_loaded=2000 global_bytes_stored=2000 ", 0), 0u) << stats.summary();
  ASSERT_NE(stats.buffer("y"), nullptr);
  EXPECT_EQ(stats.buffer("y")->bytes_stored, 2000u);
}

TEST(EmuLaunch, GeneratedGemmMatchesReference) {
  const int m = 128, n = 128, k = 64;
  const polyfuse::CompiledKernel kernel = gemm_kernel(polyfuse::Backend::emu, {{"M", m}, {"N", n}, {"K", k}});
  const std::vector<__half> a = pattern(m * k, 1), b = pattern(k * n, 2);
  std::vector<__half> c(m * n);
  kernel.launch({a, b, c});
  const std::vector<float> expected = gemm_reference(a, b, m, n, k);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(float(c[i]), expected[i]) << "C[" << i / n << ", " << i % n << "]";
}

TEST(EmuLaunch, UnboundSizeIsPassedAtLaunch) {
  const int m = 256, n = 128, k = 32;
  const polyfuse::CompiledKernel kernel = gemm_kernel(polyfuse::Backend::emu, {{"N", n}, {"K", k}});
  ASSERT_EQ(kernel.info().parameters.back().name, "M");
  const std::vector<__half> a = pattern(m * k, 3), b = pattern(k * n, 4);
  std::vector<__half> c(m * n);
  kernel.launch({a, b, c, m});
  const std::vector<float> expected = gemm_reference(a, b, m, n, k);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(float(c[i]), expected[i]) << i;
}

TEST(LaunchArguments, WrongArgumentsAreClearErrors) {
  const polyfuse::CompiledKernel k = scale_relu_kernel(polyfuse::Backend::emu);
  std::vector<__half> x(256), y(256), small(8);
  const std::vector<__half> const_y(256);
  EXPECT_EQ(message_of([&] { k.launch({x, y}); }),
            "kernel 'scale_relu': expected 2 tensor arguments and 1 size value (n, unbound at compile time) but got 2 "
            "arguments; signature: scale_relu(const __half* x, __half* y, int n)");
  EXPECT_NE(message_of([&] { k.launch({x, y, 256, 1}); }).find("but got 4 arguments"), std::string::npos);
  EXPECT_EQ(message_of([&] { k.launch({x, small, 256}); }),
            "kernel 'scale_relu': argument 2 (y (f16(n), output)) needs 512 bytes but the buffer has 16");
  EXPECT_EQ(message_of([&] { k.launch({x, const_y, 256}); }),
            "kernel 'scale_relu': argument 2 (y (f16(n), output)) is an output but was given a const buffer");
  EXPECT_EQ(message_of([&] { k.launch({x, 5, 256}); }),
            "kernel 'scale_relu': argument 2 (y (f16(n), output)) must be a pointer, not the integer 5; signature: "
            "scale_relu(const __half* x, __half* y, int n)");
  EXPECT_EQ(message_of([&] { k.launch({x, y, y}); }),
            "kernel 'scale_relu': argument 3 is for size n and must be an integer, not a pointer; signature: "
            "scale_relu(const __half* x, __half* y, int n)");
  EXPECT_EQ(message_of([&] { k.launch({x, y, 0}); }),
            "kernel 'scale_relu': argument 3: size n = 0 is out of range (1 to 2^31-1)");
  EXPECT_EQ(message_of([&] { k.launch({nullptr, y, 256}); }), "kernel 'scale_relu': argument 1 (x (f16(n), input)) is a null pointer");
  EXPECT_NE(message_of([&] { k.launch({x, static_cast<void*>(y.data() + 1), 255}); })
                .find("argument 2 (y (f16(n), output)) is not 16-byte aligned"),
            std::string::npos);
}

// Sizes given at launch that need more blocks than CUDA allows along y are refused before
// anything runs (M = 2^31-1 rows: 16,777,216 blocks of 128 rows; gridDim.y <= 65535).
TEST(LaunchArguments, GridBeyondCudaLimitsIsAClearError) {
  const polyfuse::CompiledKernel kernel = gemm_kernel(polyfuse::Backend::emu, {{"N", 128}, {"K", 32}});
  std::vector<__half> a(16), b(32 * 128), c(16);
  const std::string message = message_of([&] { kernel.launch({static_cast<const void*>(a.data()), b,
                                                               static_cast<void*>(c.data()), 2147483647}); });
  EXPECT_NE(message.find("grid dimension y ((M - 1) / 128 + 1) is 16777216 for these sizes; CUDA allows 1 to 65535"),
            std::string::npos)
      << message;
}

TEST(CudaLaunch, WithoutGpuLaunchSaysNoCudaDevice) {
  if (polyfuse::cuda_device_available()) GTEST_SKIP() << "a CUDA device is present";
  const polyfuse::CompiledKernel k = scale_relu_kernel(polyfuse::Backend::cuda);
  EXPECT_FALSE(k.cubin().empty());
  alignas(16) int fake[4] = {};
  try {
    k.launch({fake, fake, 1});
    FAIL() << "no NoDeviceError";
  } catch (const polyfuse::NoDeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(polyfuse::DeviceBuffer(16), polyfuse::NoDeviceError);
  std::vector<__half> x(256), y(256);
  EXPECT_THROW(k.run_on_host({x, y, 256}), polyfuse::NoDeviceError);
}

TEST(CudaLaunch, GpuMatchesEmulatorOnHandwrittenKernel) {
  if (!polyfuse::cuda_device_available()) GTEST_SKIP() << polyfuse::cuda_device_description();
  const polyfuse::CompiledKernel gpu = scale_relu_kernel(polyfuse::Backend::cuda);
  const polyfuse::CompiledKernel cpu = scale_relu_kernel(polyfuse::Backend::emu);
  const int n = 1000;
  const std::vector<__half> x = pattern(1024, 5);
  std::vector<__half> y_cpu(1024), y_gpu(1024);
  cpu.launch({x, y_cpu, n});
  polyfuse::DeviceBuffer dx(2048), dy(2048);
  dx.upload(x.data(), 2048);
  dy.upload(y_gpu.data(), 2048);
  gpu.launch({polyfuse::Arg::buffer(dx.data(), dx.bytes()), polyfuse::Arg::buffer(dy.data(), dy.bytes()), n});
  polyfuse::synchronize();
  dy.download(y_gpu.data(), 2048);
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(float(y_gpu[i]), float(y_cpu[i])) << i;
}

TEST(CudaLaunch, GpuGemmMatchesReference) {
  if (!polyfuse::cuda_device_available()) GTEST_SKIP() << polyfuse::cuda_device_description();
  const int m = 256, n = 256, k = 128;
  const polyfuse::CompiledKernel kernel = gemm_kernel(polyfuse::Backend::cuda, {{"M", m}, {"N", n}, {"K", k}});
  const std::vector<__half> a = pattern(m * k, 1), b = pattern(k * n, 2);
  std::vector<__half> c(m * n);
  polyfuse::DeviceBuffer da(a.size() * 2), db(b.size() * 2), dc(c.size() * 2);
  da.upload(a.data(), da.bytes());
  db.upload(b.data(), db.bytes());
  kernel.launch({da.data(), db.data(), dc.data()});
  polyfuse::synchronize();
  dc.download(c.data(), dc.bytes());
  const std::vector<float> expected = gemm_reference(a, b, m, n, k);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(float(c[i]), expected[i]) << i;
  std::vector<__half> c2(m * n);
  kernel.run_on_host({a, b, c2});
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(float(c2[i]), expected[i]) << i;
}

// The sm_90a kernel in thread-block clusters (--cluster 2x1 and 1x2: TMA multicast, remote
// mbarrier arrives, barrier.cluster, cuLaunchKernelEx with the cluster dimension) on a Hopper GPU,
// with a cluster tile half past M and N, against the reference; skipped elsewhere.
TEST(CudaLaunch, GpuClusteredGemmMatchesReference) {
  if (!polyfuse::cuda_device_available()) GTEST_SKIP() << polyfuse::cuda_device_description();
  if (polyfuse::default_arch() != polyfuse::Arch::sm_90a) GTEST_SKIP() << "clusters with TMA multicast need sm_90a";
  const int m = 300, n = 296, k = 136;
  const std::vector<__half> a = pattern(m * k, 1), b = pattern(k * n, 2);
  const std::vector<float> expected = gemm_reference(a, b, m, n, k);
  for (const char* cluster : {"2x1", "1x2"}) {
    auto program = polyfuse::TensorProgram::parse(pf_api_test::gemm_text(), "gemm.tc");
    program.bind({{"M", m}, {"N", n}, {"K", k}});
    polyfuse::CompileOptions options;
    options.backend = polyfuse::Backend::cuda;
    options.arch = polyfuse::Arch::sm_90a;
    options.cluster = polyfuse::cluster_shape_from_string(cluster);
    const polyfuse::CompiledKernel kernel = program.compile(options);
    std::vector<__half> c(static_cast<std::size_t>(m) * n);
    kernel.run_on_host({a, b, c});
    for (int i = 0; i < m * n; ++i) ASSERT_EQ(float(c[i]), expected[i]) << cluster << " C[" << i / n << ", " << i % n << "]";
  }
}

}  // namespace
