// The Hopper test kernels (tests/kernels_cuda/hopper_kernels.cu, compiled by NVRTC for sm_90a)
// on a Hopper GPU, in the sweep of the emulator tests: every wgmma probe in every pair of
// swizzle modes, TMA loads and stores across the tensor's edges, and the pipelined TMA + wgmma
// GEMM on odd shapes. The GPU's outputs are checked against the scalar references
// (hopper_reference.h) and compared with the emulator's (bit for bit where the kernel only
// moves data). Skipped (exit 77) without a CUDA device, and on a GPU that is not sm_90.
// First run on an H200 on 2026-11-30: the wgmma probes passed; the TMA boxes then started at
// (67, 34) and (-3, -2), which the GPU stops with an illegal instruction (the innermost coordinate
// must be a multiple of 16 bytes, HopperTmaEmu.CoordinatesAHopperGpuStopsAreReported),
// and the error, sticky, failed the tests after it in the same process.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_device.h"
#include "hopper_kernels.h"
#include "hopper_reference.h"
#include "nvrtc_compile.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map.h"
#include "test_util.h"

namespace {
namespace tma = polyfuse::tma;
using polyfuse::emu::ScopedBuffer;

// Device memory holding a copy of a host vector.
class DeviceBuffer {
 public:
  template <class T> explicit DeviceBuffer(const std::vector<T>& host) : bytes_(host.size() * sizeof(T)) {
    if (cudaMalloc(&data_, bytes_) == cudaSuccess) cudaMemcpy(data_, host.data(), bytes_, cudaMemcpyHostToDevice);
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() { return data_; }
  template <class T> std::vector<T> read() const {
    std::vector<T> host(bytes_ / sizeof(T));
    cudaMemcpy(host.data(), data_, bytes_, cudaMemcpyDeviceToHost);
    return host;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

class GpuHopper : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    arch_ = pft_test::cuda_device_arch();
    if (arch_ != "sm_90") return;
    compiled_ = pft_test::nvrtc_compile(pft_test::kernels_source("hopper_kernels.cu"), "sm_90a", false);
    if (compiled_.ok) cudaLibraryLoadData(&library_, compiled_.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  }
  void SetUp() override {
    if (arch_.empty()) GTEST_SKIP() << "no CUDA device";
    if (arch_ != "sm_90") GTEST_SKIP() << "the sm_90a kernels need a Hopper GPU (sm_90), this one is " << arch_;
    ASSERT_TRUE(compiled_.ok) << compiled_.log;
    std::string why;
    ASSERT_TRUE(tma::gpu_encoder_available(&why)) << why;
  }
  // Launches kernel `name` with `params` (pointers to each argument's bytes) and waits.
  static void launch(const std::string& name, dim3 grid, dim3 block, std::size_t smem, std::vector<void*> params) {
    cudaKernel_t kernel;
    ASSERT_EQ(cudaLibraryGetKernel(&kernel, library_, name.c_str()), cudaSuccess) << name;
    const void* f = reinterpret_cast<const void*>(kernel);
    ASSERT_EQ(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)), cudaSuccess)
        << name << ": " << smem << " bytes of dynamic shared memory";
    ASSERT_EQ(cudaLaunchKernel(f, grid, block, params.data(), smem, nullptr), cudaSuccess) << name;
    const cudaError_t rc = cudaDeviceSynchronize();
    ASSERT_EQ(rc, cudaSuccess) << name << ": " << cudaGetErrorString(rc);
  }
  static inline std::string arch_;
  static inline pft_test::NvrtcResult compiled_;
  static inline cudaLibrary_t library_ = nullptr;
};

TEST_F(GpuHopper, WgmmaProbesMatchTheReferenceAndTheEmulator) {
  for (const pfh_test::WgmmaProbe& p : pfh_test::wgmma_probes()) {
    const auto a = pft_test::random_bits(64 * pfh_test::kProbeK, p.bf16, 17);
    const auto b = pft_test::random_bits(static_cast<std::size_t>(p.n) * pfh_test::kProbeK, p.bf16, 18 + p.n);
    std::vector<float> d(static_cast<std::size_t>(64) * p.n);
    DeviceBuffer da(a), db(b), dd(d);
    ScopedBuffer ba(a.data(), a.size() * 2, "A"), bb(b.data(), b.size() * 2, "B"), bd(d.data(), d.size() * 4, "D");
    for (int sa = 0; sa < 4; ++sa)
      for (int sb = 0; sb < 4; ++sb)
        for (int k_steps : {4, 1}) {
          if (k_steps == 1 && sa != sb) continue;
          const std::string what = p.name() + " swizzles " + std::to_string(sa) + "/" + std::to_string(sb) + ", " +
                                   std::to_string(k_steps) + " k-step(s)";
          void *pa = da.get(), *pb = db.get(), *pd = dd.get();
          int k = k_steps, s_a = sa, s_b = sb;
          launch(p.name(), dim3(1), dim3(128), p.shared_bytes(sb), {&pa, &pb, &pd, &k, &s_a, &s_b});
          const auto gpu = dd.read<float>();
          const pfh_test::Mismatches bad = pfh_test::check_wgmma_probe(p, a, b, gpu, k_steps);
          EXPECT_EQ(bad.count, 0) << what << " on the GPU: " << bad.text();
          pfh_test::run_wgmma_probe(p, a.data(), b.data(), d.data(), k_steps, sa, sb);
          const pfh_test::Mismatches emu = pfh_test::check_wgmma_probe(p, a, b, d, k_steps);
          EXPECT_EQ(emu.count, 0) << what << " on the emulator: " << emu.text();
          if (HasFailure()) return;
        }
  }
}

TEST_F(GpuHopper, TmaLoadsAndStoresMatchTheEmulatorBitForBit) {
  // A 72 x 37 f16 tensor in rows of 80 elements; boxes at the corner, inside, across the far
  // edges, at negative coordinates and entirely outside.
  const auto tensor = pft_test::random_bits(80 * 37, false, 5);
  DeviceBuffer dt(tensor);
  ScopedBuffer bt(tensor.data(), tensor.size() * 2, "tensor");
  for (int mode = 0; mode < 4; ++mode) {
    const int inner = mode == 0 ? 24 : (16 << mode) / 2, outer = 16, box_bytes = inner * outer * 2;
    for (const auto& [c0, c1] : std::vector<std::pair<int, int>>{{0, 0}, {8, 5}, {64, 34}, {-8, -2}, {80, 0}}) {
      const std::string what = "mode " + std::to_string(mode) + " box at (" + std::to_string(c0) + ", " + std::to_string(c1) + ")";
      const auto request = [&](const void* base) {
        return tma::tiled_2d(tma::DataType::float16, base, 72, 37, 160, static_cast<std::uint32_t>(inner), outer,
                             static_cast<tma::Swizzle>(mode));
      };
      tma::TensorMapBytes map = tma::encode_tiled(request(dt.get()), tma::Target::gpu);
      std::vector<unsigned char> emu(static_cast<std::size_t>(box_bytes), 0xab);
      DeviceBuffer dout(emu);
      void* pout = dout.get();
      int x = c0, y = c1, bytes = box_bytes;
      launch("hopper_tma_load_2d", dim3(1), dim3(64), pfh_test::tma_load_shared_bytes(box_bytes), {&map, &x, &y, &pout, &bytes});
      const auto gpu = dout.read<unsigned char>();
      {
        ScopedBuffer bo(emu.data(), emu.size(), "out");
        const int c[3] = {c0, c1, 0};
        pfh_test::run_tma_load(tma::encode_tiled(request(tensor.data()), tma::Target::emulator), 2, c, emu.data(), box_bytes, 64);
      }
      EXPECT_EQ(std::memcmp(gpu.data(), emu.data(), gpu.size()), 0) << "TMA load, " << what;

      // The same box stored back into a tensor of sentinels; not before the tensor's start (an
      // illegal instruction there: HopperTmaEmu.CoordinatesAHopperGpuStopsAreReported).
      if (c0 < 0 || c1 < 0) continue;
      std::vector<unsigned short> sentinel(tensor.size(), 0x7777), emu_store = sentinel;
      DeviceBuffer ds(sentinel), dbox(gpu);
      tma::TensorMapBytes store_map = tma::encode_tiled(request(ds.get()), tma::Target::gpu);
      void* pbox = dbox.get();
      launch("hopper_tma_store_2d", dim3(1), dim3(128), static_cast<std::size_t>(box_bytes), {&store_map, &x, &y, &pbox, &bytes});
      {
        ScopedBuffer bs(emu_store.data(), emu_store.size() * 2, "D"), bi(emu.data(), emu.size(), "box");
        pfh_test::run_tma_store_2d(tma::encode_tiled(request(emu_store.data()), tma::Target::emulator), c0, c1, emu.data(), box_bytes);
      }
      EXPECT_EQ(ds.read<unsigned short>(), emu_store) << "TMA store, " << what;
      if (HasFailure()) return;
    }
  }
}

TEST_F(GpuHopper, MbarrierPhasesMatchTheEmulator) {
  for (unsigned threads : {32u, 128u}) {
    std::vector<int> emu(threads * 10, -1);
    DeviceBuffer dout(emu);
    void* pout = dout.get();
    launch("hopper_mbarrier_phases", dim3(1), dim3(threads), 8, {&pout});
    {
      ScopedBuffer b(emu.data(), emu.size() * sizeof(int), "out");
      pfh_test::run_mbarrier_phases(emu.data(), threads);
    }
    EXPECT_EQ(dout.read<int>(), emu) << threads << " threads";
  }
}

TEST_F(GpuHopper, PipelinedGemmOnOddShapesMatchesTheReferenceAndTheEmulator) {
  for (const pfh_test::GemmConfig& g : pfh_test::gemm_configs()) {
    const int bm = pfh_test::kGemmBlockM, bn = g.bn, bk = pfh_test::kGemmBlockK;
    const std::vector<std::array<int, 3>> shapes = {{1, 1, 1},           {67, 131, 97},      {bm - 1, bn - 1, bk - 1},
                                                    {bm + 1, bn + 1, bk + 1}, {2 * bm + 1, 2 * bn - 1, 6 * bk - 3},
                                                    {512, 512, 512}};
    for (const auto& [m, n, k] : shapes) {
      const std::string what = g.name + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
      const pfh_test::GemmProblem p = pfh_test::make_gemm_problem(g, m, n, k);
      std::vector<float> c(static_cast<std::size_t>(m) * n, -7.f);
      DeviceBuffer da(p.a), db(p.b), dc(c);
      tma::TensorMapBytes map_a = tma::encode_tiled(pfh_test::gemm_map_a(g, da.get(), m, k, p.lda), tma::Target::gpu);
      tma::TensorMapBytes map_b = tma::encode_tiled(pfh_test::gemm_map_b(g, db.get(), n, k, p.ldb), tma::Target::gpu);
      void* pc = dc.get();
      int mm = m, nn = n, kk = k;
      launch(g.name, pfh_test::gemm_grid(g, m, n), dim3(128), g.shared_bytes, {&map_a, &map_b, &pc, &mm, &nn, &kk});
      const pfh_test::Mismatches bad = pfh_test::check_gemm(p, dc.read<float>());
      EXPECT_EQ(bad.count, 0) << what << " on the GPU: " << bad.text();
      if (m * n * k <= 1 << 22) {  // the emulator's share of the sweep stays short
        ScopedBuffer ba(p.a.data(), p.a.size() * 2, "A"), bb(p.b.data(), p.b.size() * 2, "B"), bc(c.data(), c.size() * 4, "C");
        pfh_test::run_gemm(g, tma::encode_tiled(pfh_test::gemm_map_a(g, p.a.data(), m, k, p.lda), tma::Target::emulator),
                           tma::encode_tiled(pfh_test::gemm_map_b(g, p.b.data(), n, k, p.ldb), tma::Target::emulator),
                           c.data(), m, n, k);
        const pfh_test::Mismatches emu = pfh_test::check_gemm(p, c);
        EXPECT_EQ(emu.count, 0) << what << " on the emulator: " << emu.text();
      }
      if (HasFailure()) return;
    }
  }
}

}  // namespace
