// The Hopper test kernels compiled as C++ for the emulator, and the tables and launchers of
// hopper_kernels.h (shared-memory sizes come from the kernels' own templates).
#include "polyfuse_emu/cuda_emulation.h"
#include "hopper_kernels.cu"

#include <cstring>

#include "hopper_kernels.h"
#include "runtime/tma/tensor_map.h"

namespace pfh_test {
namespace {

using pf::sm90::Major;
using pf::sm90::Swizzle;

using ProbeKernel = polyfuse::emu::Stats (*)(std::size_t, const unsigned short*, const unsigned short*, float*, int, int,
                                             int);

template <class T> const T* as(const unsigned short* p) { return reinterpret_cast<const T*>(p); }

#define PFH_PROBE_LAUNCHER(FORM, T, TN, N, MA, MB)                                                        \
  [](std::size_t smem, const unsigned short* a, const unsigned short* b, float* d, int k_steps, int sa, int sb) { \
    return polyfuse::emu::launch(hopper_wgmma_##FORM##_##TN##_n##N##_##MA##_##MB, dim3(1), dim3(128), smem, \
                                 as<T>(a), as<T>(b), d, k_steps, sa, sb);                                  \
  }

struct ProbeEntry {
  WgmmaProbe probe;
  ProbeKernel launch;
};

#define PFH_PROBE(FORM, T, TN, N, MA, MB) \
  ProbeEntry{{#FORM[0] == 'r', #TN[0] == 'b', N, #MA[0] == 'm', #MB[0] == 'm'}, PFH_PROBE_LAUNCHER(FORM, T, TN, N, MA, MB)}
#define PFH_PROBE_MAJORS(FORM, T, TN, N)                                                                   \
  PFH_PROBE(FORM, T, TN, N, k, k), PFH_PROBE(FORM, T, TN, N, k, mn), PFH_PROBE(FORM, T, TN, N, mn, k),   \
      PFH_PROBE(FORM, T, TN, N, mn, mn)
#define PFH_PROBE_N(N)                                                                                    \
  PFH_PROBE_MAJORS(ss, __half, f16, N), PFH_PROBE_MAJORS(ss, __nv_bfloat16, bf16, N),                   \
      PFH_PROBE_MAJORS(rs, __half, f16, N), PFH_PROBE_MAJORS(rs, __nv_bfloat16, bf16, N)

const std::vector<ProbeEntry>& probe_entries() {
  static const std::vector<ProbeEntry> entries = {PFH_PROBE_N(8),  PFH_PROBE_N(16),  PFH_PROBE_N(24),
                                                  PFH_PROBE_N(64), PFH_PROBE_N(128), PFH_PROBE_N(256)};
  return entries;
}
#undef PFH_PROBE_N
#undef PFH_PROBE_MAJORS
#undef PFH_PROBE
#undef PFH_PROBE_LAUNCHER

pf::sm90::TensorMap device_map(const TensorMapBytes& bytes) {
  pf::sm90::TensorMap map;
  static_assert(sizeof map == sizeof bytes.bytes);
  std::memcpy(&map, bytes.bytes, sizeof map);
  return map;
}

using GemmKernel = void (*)(const pf::sm90::TensorMap, const pf::sm90::TensorMap, float*, int, int, int);
struct GemmEntry {
  GemmConfig config;
  GemmKernel kernel;
};
#define PFH_GEMM_ENTRY(NAME, T, BN, MB, S, STAGES)                                                       \
  GemmEntry{{#NAME, std::is_same_v<T, __nv_bfloat16>, BN, Major::MB == Major::mn, static_cast<int>(Swizzle::S), STAGES,    \
             pfh::Gemm<T, BN, Major::MB, Swizzle::S, STAGES>::shared_bytes},                              \
            NAME}
const std::vector<GemmEntry>& gemm_entries() {
  static const std::vector<GemmEntry> entries = {
      PFH_GEMM_ENTRY(hopper_gemm_f16_n128_k_b128_s3, __half, 128, k, b128, 3),
      PFH_GEMM_ENTRY(hopper_gemm_f16_n64_mn_b128_s2, __half, 64, mn, b128, 2),
      PFH_GEMM_ENTRY(hopper_gemm_bf16_n128_mn_b64_s4, __nv_bfloat16, 128, mn, b64, 4),
      PFH_GEMM_ENTRY(hopper_gemm_f16_n256_k_b32_s2, __half, 256, k, b32, 2),
      PFH_GEMM_ENTRY(hopper_gemm_bf16_n64_k_none_s3, __nv_bfloat16, 64, k, none, 3),
  };
  return entries;
}
#undef PFH_GEMM_ENTRY

// The `member` of every entry of a table.
template <class Entry, class Field> std::vector<Field> column(const std::vector<Entry>& entries, Field Entry::*member) {
  std::vector<Field> v;
  for (const Entry& e : entries) v.push_back(e.*member);
  return v;
}

polyfuse::tma::DataType data_type(bool bf16) {
  return bf16 ? polyfuse::tma::DataType::bfloat16 : polyfuse::tma::DataType::float16;
}

}  // namespace

std::string WgmmaProbe::name() const {
  return std::string("hopper_wgmma_") + (registers ? "rs_" : "ss_") + (bf16 ? "bf16" : "f16") + "_n" +
         std::to_string(n) + "_" + (a_mn_major ? "mn" : "k") + "_" + (b_mn_major ? "mn" : "k");
}

std::size_t WgmmaProbe::shared_bytes(int swizzle_b) const {
  return pfh::b_tile_offset() +
         pf::sm90::tile_bytes(b_mn_major ? Major::mn : Major::k, static_cast<Swizzle>(swizzle_b), n, kProbeK);
}

const std::vector<WgmmaProbe>& wgmma_probes() {
  static const std::vector<WgmmaProbe> probes = column(probe_entries(), &ProbeEntry::probe);
  return probes;
}

polyfuse::emu::Stats run_wgmma_probe(const WgmmaProbe& p, const unsigned short* a, const unsigned short* b, float* d,
                                     int k_steps, int swizzle_a, int swizzle_b) {
  for (const ProbeEntry& e : probe_entries())
    if (e.probe.name() == p.name()) return e.launch(p.shared_bytes(swizzle_b), a, b, d, k_steps, swizzle_a, swizzle_b);
  throw std::invalid_argument("no wgmma probe " + p.name());
}

std::string Fp8Probe::name() const {
  return std::string("hopper_wgmma_fp8_") + (a_e5m2 ? "e5m2" : "e4m3") + "_" + (b_e5m2 ? "e5m2" : "e4m3") + "_n" +
         std::to_string(n);
}

const std::vector<Fp8Probe>& wgmma_fp8_probes() {
  static const std::vector<Fp8Probe> probes = {{false, false, 64}, {false, true, 128}, {true, false, 8}, {true, true, 256}};
  return probes;
}

polyfuse::emu::Stats run_wgmma_fp8_probe(const Fp8Probe& p, const unsigned char* a, const unsigned char* b, float* d,
                                         int k_steps, int swizzle_a, int swizzle_b) {
  // B's tile (N rows of 2 kProbeK bytes) is the 16-bit probes' (N rows of kProbeK elements).
  const std::size_t smem = WgmmaProbe{false, false, p.n, false, false}.shared_bytes(swizzle_b);
  const auto* a16 = reinterpret_cast<const unsigned short*>(a);
  const auto* b16 = reinterpret_cast<const unsigned short*>(b);
  const auto launch = [&](auto kernel) {
    return polyfuse::emu::launch(kernel, dim3(1), dim3(128), smem, a16, b16, d, k_steps, swizzle_a, swizzle_b);
  };
  const std::string name = p.name();
  if (name == "hopper_wgmma_fp8_e4m3_e4m3_n64") return launch(hopper_wgmma_fp8_e4m3_e4m3_n64);
  if (name == "hopper_wgmma_fp8_e4m3_e5m2_n128") return launch(hopper_wgmma_fp8_e4m3_e5m2_n128);
  if (name == "hopper_wgmma_fp8_e5m2_e4m3_n8") return launch(hopper_wgmma_fp8_e5m2_e4m3_n8);
  if (name == "hopper_wgmma_fp8_e5m2_e5m2_n256") return launch(hopper_wgmma_fp8_e5m2_e5m2_n256);
  throw std::invalid_argument("no FP8 wgmma probe " + name);
}

std::size_t tma_load_shared_bytes(int box_bytes) { return 1024 + static_cast<std::size_t>(box_bytes); }

polyfuse::emu::Stats run_tma_load(const TensorMapBytes& map, int rank, const int (&c)[3], unsigned char* out,
                                  int box_bytes, unsigned threads) {
  const std::size_t smem = tma_load_shared_bytes(box_bytes);
  if (rank == 2)
    return polyfuse::emu::launch(hopper_tma_load_2d, dim3(1), dim3(threads), smem, device_map(map), c[0], c[1], out,
                                 box_bytes);
  return polyfuse::emu::launch(hopper_tma_load_3d, dim3(1), dim3(threads), smem, device_map(map), c[0], c[1], c[2], out,
                               box_bytes);
}

polyfuse::emu::Stats run_thread_load_tile(int v, const unsigned short* src, int extent_inner, int extent_outer,
                                          int inner0, int outer0, int rows, int atoms, int swizzle, unsigned char* out,
                                          unsigned threads) {
  const std::size_t smem = static_cast<std::size_t>(atoms) * rows * (16 << swizzle);
  auto* const kernel = v == 1   ? hopper_thread_load_tile_v1
                       : v == 2 ? hopper_thread_load_tile_v2
                       : v == 4 ? hopper_thread_load_tile_v4
                       : v == 8 ? hopper_thread_load_tile_v8
                                : hopper_thread_load_tile_v2_plus1;
  return polyfuse::emu::launch(kernel, dim3(1), dim3(threads), smem, src, extent_inner, extent_outer, inner0, outer0,
                               rows, atoms, swizzle, out);
}

polyfuse::emu::Stats run_tma_store_2d(const TensorMapBytes& map, int c0, int c1, const unsigned char* in,
                                      int box_bytes) {
  return polyfuse::emu::launch(hopper_tma_store_2d, dim3(1), dim3(128), static_cast<std::size_t>(box_bytes),
                               device_map(map), c0, c1, in, box_bytes);
}

polyfuse::emu::Stats run_mbarrier_phases(int* out, unsigned threads) {
  return polyfuse::emu::launch(hopper_mbarrier_phases, dim3(1), dim3(threads), 8, out);
}

const std::vector<GemmConfig>& gemm_configs() {
  static const std::vector<GemmConfig> configs = column(gemm_entries(), &GemmEntry::config);
  return configs;
}

dim3 gemm_grid(const GemmConfig& g, int m, int n) {
  return dim3(static_cast<unsigned>((n + g.bn - 1) / g.bn), static_cast<unsigned>((m + kGemmBlockM - 1) / kGemmBlockM));
}

polyfuse::tma::TiledMapRequest gemm_map_a(const GemmConfig& g, const void* a, int m, int k, int lda) {
  const auto s = static_cast<Swizzle>(g.swizzle);
  return polyfuse::tma::tiled_2d(data_type(g.bf16), a, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m),
                                 static_cast<std::uint64_t>(lda) * 2, static_cast<std::uint32_t>(pf::sm90::box_inner(s)),
                                 kGemmBlockM, static_cast<polyfuse::tma::Swizzle>(g.swizzle));
}

polyfuse::tma::TiledMapRequest gemm_map_b(const GemmConfig& g, const void* b, int n, int k, int ldb) {
  const auto s = static_cast<Swizzle>(g.swizzle);
  const auto inner = static_cast<std::uint32_t>(pf::sm90::box_inner(s));
  const auto swizzle = static_cast<polyfuse::tma::Swizzle>(g.swizzle);
  if (g.b_mn_major)  // [k][n]: n contiguous, boxes of W/2 n x BK k
    return polyfuse::tma::tiled_2d(data_type(g.bf16), b, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(k),
                                   static_cast<std::uint64_t>(ldb) * 2, inner, kGemmBlockK, swizzle);
  return polyfuse::tma::tiled_2d(data_type(g.bf16), b, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(n),
                                 static_cast<std::uint64_t>(ldb) * 2, inner, static_cast<std::uint32_t>(g.bn), swizzle);
}

polyfuse::emu::Stats run_gemm(const GemmConfig& g, const TensorMapBytes& a, const TensorMapBytes& b, float* c, int m,
                              int n, int k) {
  for (const GemmEntry& e : gemm_entries())
    if (e.config.name == g.name)
      return polyfuse::emu::launch(e.kernel, gemm_grid(g, m, n), dim3(128), g.shared_bytes, device_map(a), device_map(b),
                                   c, m, n, k);
  throw std::invalid_argument("no GEMM kernel " + g.name);
}

}  // namespace pfh_test
