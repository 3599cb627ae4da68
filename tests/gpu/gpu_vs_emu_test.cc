// The same test kernels on a GPU (compiled by NVRTC, launched through the CUDA runtime API)
// and on the emulator; outputs must agree. Skips with "no CUDA device" without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_device.h"
#include "nvrtc_compile.h"
#include "polyfuse_emu/emulator.h"
#include "test_util.h"

namespace {

// A host array that is copied to the device, and back after the launch.
struct Arg {
  std::vector<unsigned char> host;  // empty: a scalar passed by value
  int scalar = 0;
};
Arg buffer(std::vector<unsigned char> bytes) { return Arg{std::move(bytes), 0}; }
Arg scalar(int v) { return Arg{{}, v}; }
template <class T> std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

class GpuVsEmu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string arch = pft_test::cuda_device_arch();
    if (arch.empty()) return;
    compiled_ = pft_test::nvrtc_compile(pft_test::test_kernels_source(), arch, false);
    if (compiled_.ok) cudaLibraryLoadData(&library_, compiled_.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  }
  void SetUp() override {
    if (pft_test::cuda_device_arch().empty()) GTEST_SKIP() << "no CUDA device";
    ASSERT_TRUE(compiled_.ok) << compiled_.log;
  }
  // Runs kernel `name` on the GPU; returns the buffers after the launch.
  std::vector<std::vector<unsigned char>> run_gpu(const char* name, dim3 grid, dim3 block, size_t smem, std::vector<Arg> args) {
    cudaKernel_t kernel;
    EXPECT_EQ(cudaLibraryGetKernel(&kernel, library_, name), cudaSuccess);
    if (smem > 48 * 1024) cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    std::vector<void*> device(args.size(), nullptr);
    std::vector<void*> params(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].host.empty()) {
        cudaMalloc(&device[i], args[i].host.size());
        cudaMemcpy(device[i], args[i].host.data(), args[i].host.size(), cudaMemcpyHostToDevice);
        params[i] = &device[i];
      } else {
        params[i] = &args[i].scalar;
      }
    }
    EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, params.data(), smem, nullptr), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::vector<unsigned char>> out;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].host.empty()) continue;
      std::vector<unsigned char> back(args[i].host.size());
      cudaMemcpy(back.data(), device[i], back.size(), cudaMemcpyDeviceToHost);
      cudaFree(device[i]);
      out.push_back(std::move(back));
    }
    return out;
  }
  static inline pft_test::NvrtcResult compiled_;
  static inline cudaLibrary_t library_ = nullptr;
};

std::vector<float> floats(const std::vector<unsigned char>& b) {
  std::vector<float> f(b.size() / 4);
  std::memcpy(f.data(), b.data(), b.size());
  return f;
}

TEST_F(GpuVsEmu, WarpMmaM16n8k16AndMacroMma) {
  struct Case { const char* name; void (*emu)(const void*, const void*, float*); int m, n, k; };
  const Case cases[] = {{"mma16816_f16_row_col_2x4", mma16816_f16_row_col_2x4, 32, 32, 32},
                        {"mma16816_f16_col_row_2x4", mma16816_f16_col_row_2x4, 32, 32, 32},
                        {"mma16816_bf16_row_col_2x4", mma16816_bf16_row_col_2x4, 32, 32, 32},
                        {"mma884_16x16x8_row_col", mma884_16x16x8_row_col, 16, 16, 16},
                        {"mma884_32x32x8_col_row", mma884_32x32x8_col_row, 32, 32, 16}};
  for (const Case& c : cases) {
    const auto a = pft_test::random_bits(static_cast<size_t>(c.m) * c.k, false, 1);
    const auto b = pft_test::random_bits(static_cast<size_t>(c.k) * c.n, false, 2);
    std::vector<float> emu(static_cast<size_t>(c.m) * c.n);
    const size_t smem = 2u * (c.m * c.k + c.n * c.k) + 1024;
    {
      polyfuse::emu::ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"), bc(emu.data(), emu.size() * 4, "C");
      polyfuse::emu::launch(c.emu, dim3(1), dim3(32), smem, a.data(), b.data(), emu.data());
    }
    const auto gpu = floats(run_gpu(c.name, dim3(1), dim3(32), smem, {buffer(bytes_of(a)), buffer(bytes_of(b)), buffer(bytes_of(emu))})[2]);
    for (size_t i = 0; i < emu.size(); ++i) EXPECT_NEAR(gpu[i], emu[i], 1e-4) << c.name << " element " << i;
  }
}

TEST_F(GpuVsEmu, SwizzledCopiesAndLdmatrix) {
  const auto in = pft_test::random_bits(64 * 32, false, 7);
  std::vector<unsigned short> emu(in.size());
  {
    polyfuse::emu::ScopedBuffer bi(in.data(), in.size() * 2, "in"), bo(emu.data(), emu.size() * 2, "out");
    polyfuse::emu::launch(copy_xor16_64x32_cp_async_trans, dim3(1), dim3(128), in.size() * 2, in.data(), emu.data());
  }
  const auto gpu = run_gpu("copy_xor16_64x32_cp_async_trans", dim3(1), dim3(128), in.size() * 2,
                           {buffer(bytes_of(in)), buffer(bytes_of(emu))})[1];
  EXPECT_EQ(std::memcmp(gpu.data(), emu.data(), gpu.size()), 0);
}

TEST_F(GpuVsEmu, GemmBiasReluWithPartialTiles) {
  const int M = 200, N = 136, K = 72;
  const auto a = pft_test::random_bits(static_cast<size_t>(M) * K, false, 11);
  const auto b = pft_test::random_bits(static_cast<size_t>(K) * N, false, 12);
  const auto bias = pft_test::random_bits(N, false, 13);
  std::vector<unsigned short> emu(static_cast<size_t>(M) * N, 0);
  const dim3 grid((N + 127) / 128, (M + 127) / 128);
  {
    polyfuse::emu::ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"),
        bbias(bias.data(), bias.size() * 2, "bias"), bc(emu.data(), emu.size() * 2, "C");
    polyfuse::emu::launch(gemm_bias_relu_128x128x32, grid, dim3(256), 3 * 8192, reinterpret_cast<const __half*>(a.data()),
                          reinterpret_cast<const __half*>(b.data()), reinterpret_cast<const __half*>(bias.data()),
                          reinterpret_cast<__half*>(emu.data()), M, N, K, 1);
  }
  const auto gpu = run_gpu("gemm_bias_relu_128x128x32", grid, dim3(256), 3 * 8192,
                           {buffer(bytes_of(a)), buffer(bytes_of(b)), buffer(bytes_of(bias)), buffer(bytes_of(emu)),
                            scalar(M), scalar(N), scalar(K), scalar(1)})[3];
  for (size_t i = 0; i < emu.size(); ++i) {
    unsigned short g;
    std::memcpy(&g, gpu.data() + 2 * i, 2);
    EXPECT_NEAR(pft_test::to_f(g, false), pft_test::to_f(emu[i], false), 1e-2) << "element " << i;
  }
}

}  // namespace
