// The autotuner (runtime/api/autotune.h): the static pruning on real
// NVRTC output, the ranking without a GPU, the winner cache and the wrong-result guard with a
// fake timer, the refusals — and, where a GPU is present (the GPU kit), real timings.
#include <gtest/gtest.h>

#include "polyfuse/polyfuse.h"
#include "runtime/api/autotune.h"
#include "runtime/api/autotune_report.h"
#if POLYFUSE_TEST_HAVE_NVRTC
#include "runtime/cuda/nvrtc_compiler.h"
#endif
#include "test_dir.h"

namespace {
using namespace polyfuse;

const char* gemm_text() {
  return "def gemm(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
         "  C(m, n) +=! A(m, k) * B(k, n)\n"
         "}\n";
}

// A timer that times nothing on a GPU: it counts its runs, gives each kernel the time `time_of`
// says, and returns the inputs as outputs — changed by one element for a kernel `wrong` says is
// wrong.
class FakeTimer final : public api::CandidateTimer {
 public:
  bool can_time = true;
  int runs = 0;
  std::function<double(const CompiledKernel&)> time_of = [](const CompiledKernel&) { return 1.0; };
  std::function<bool(const CompiledKernel&)> wrong = [](const CompiledKernel&) { return false; };

  std::string unavailable(Arch) const override { return can_time ? "" : "no GPU"; }
  std::string device() const override { return "Fake GPU (sm_80)"; }
  int sms() const override { return 108; }
  api::CandidateRun run(const CompiledKernel& kernel, const Program&, const reference::TensorData& inputs) override {
    ++runs;
    api::CandidateRun run{inputs, time_of(kernel)};
    if (wrong(kernel)) run.outputs.at("C")[5] += 1.0f;
    return run;
  }
};

bool has_block(const CompiledKernel& kernel, const std::string& block) {
  return kernel.info().options.rfind("block " + block, 0) == 0;
}

struct AutotuneFixture : ::testing::Test {
  pf_runtime_test::ScopedDirectory dir{"winners"};
  cache::ArtifactCache winners{cache::CacheConfig{true, dir.path, std::uint64_t{64} << 20}};
  api::AutotuneRequest request{gemm_text(), "gemm.tc", {{"M", 256}, {"N", 256}, {"K", 64}}, "", {}};
  // default, small blocks, a deeper ring, and one the compiler refuses (5 stages of 128x256x64
  // tiles: 240 KiB of shared memory).
  std::vector<TuningCandidate> candidates = {
      {},
      {TileShape{64, 64, 32}, TileShape{32, 32, 32}, 0, 0, {}, {}, {}},
      {TileShape{128, 128, 32}, {}, 3, 0, {}, {}, {}},
      {TileShape{128, 256, 64}, {}, 5, 0, {}, {}, {}},
  };
  AutotuneFixture() { request.options.arch = Arch::sm_80; }
};

#if POLYFUSE_TEST_HAVE_NVRTC
// ptxas's report read from NVRTC's real log: a kernel held to 32 registers spills and is
// dropped; a small one is kept; a block whose shared memory fits no SM is dropped.
TEST(AutotuneStatic, PrunesBySpillsAndSharedMemoryFromNvrtcOutput) {
  const std::string source = R"(
extern "C" __global__ void __launch_bounds__(1024, 2) spills(float* out, const float* in) {
  float v[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) v[i] = in[threadIdx.x * 96 + i];
  float s = 0;
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int i = 0; i < 96; ++i) { v[i] = v[i] * v[(i + 7) % 96] + s; s += v[i]; }
#pragma unroll
  for (int i = 0; i < 96; ++i) out[threadIdx.x * 96 + i] = v[i];
}
extern "C" __global__ void small(float* out) { __shared__ float t[256]; t[threadIdx.x] = 1; out[threadIdx.x] = t[255 - threadIdx.x]; }
)";
  cuda::NvrtcOptions options;
  options.arch = "sm_80";
  options.ptxas_verbose = true;
  const cuda::NvrtcOutput out = cuda::nvrtc_compile(source, options, "spills");
  const std::optional<api::PtxasFacts> spills = api::parse_ptxas_facts(out.log, "spills");
  const std::optional<api::PtxasFacts> small = api::parse_ptxas_facts(out.log, "small");
  ASSERT_TRUE(spills && small) << out.log;
  EXPECT_LE(spills->registers, 32);
  EXPECT_GT(spills->spill_store_bytes, 0) << out.log;
  EXPECT_NE(api::static_drop_reason(*spills, 2, 1024, 0).find("spills ("), std::string::npos);
  EXPECT_EQ(small->static_shared_bytes, 1024);
  EXPECT_EQ(small->spill_store_bytes + small->spill_load_bytes, 0);
  const api::SmResources sm80 = api::sm_resources(Arch::sm_80);
  EXPECT_EQ(api::static_drop_reason(*small, api::blocks_per_sm(sm80, 256, small->registers, 1024), 256, 1024), "");
  EXPECT_EQ(api::blocks_per_sm(sm80, 256, small->registers, 170 * 1024), 0);
  EXPECT_NE(api::static_drop_reason(*small, 0, 256, 170 * 1024).find("no block fits on an SM"), std::string::npos);
  EXPECT_EQ(api::parse_ptxas_facts(out.log, "absent"), std::nullopt);
}

#endif

// The winner cache's form: a report round-trips; a damaged or foreign one is not used.
TEST(AutotuneReportJson, RoundTripsAndRejectsDamagedEntries) {
  AutotuneReport report;
  report.kernel_kind = "mma.sync";
  report.rows.push_back(AutotuneRow{"stages=3", 128, 0, 49664, 128, 2, 121.5, 0.25, ""});
  report.rows.push_back(AutotuneRow{"default", 0, 0, 0, 0, 0, 0, std::nullopt, "the same kernel as stages=3"});
  report.winner = "stages=3";
  report.timed = true;
  const std::vector<TuningCandidate> set = {{}, {{}, {}, 3, 0, {}, {}, {}}};
  CompileOptions base;
  base.arch = Arch::sm_80;
  const std::optional<AutotuneReport> back = api::report_from_json(api::report_json(report), set, base);
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->from_cache);
  const std::string text = report.to_string(), cached = back->to_string();
  EXPECT_EQ(cached.substr(cached.find('\n')), text.substr(text.find('\n')));
  EXPECT_EQ(cached.rfind("autotune (mma.sync kernel, from the cache):\n", 0), 0u) << cached;
  EXPECT_EQ(back->chosen.stages, 3);
  EXPECT_EQ(back->chosen.arch, Arch::sm_80);
  EXPECT_FALSE(api::report_from_json("{\"winner\": \"stages=3\", \"rows\": 5}", set, base));
  EXPECT_FALSE(api::report_from_json("{\"winner\": \"stages=3\", \"timed\": \"yes\"}", set, base));
  EXPECT_FALSE(api::report_from_json("not json", set, base));
  EXPECT_FALSE(api::report_from_json(api::report_json(report), {{}}, base));  // its winner is not a candidate
}

TEST(AutotuneStatic, OccupancyAndScore) {
  const api::SmResources sm80 = api::sm_resources(Arch::sm_80);
  EXPECT_EQ(api::blocks_per_sm(sm80, 128, 128, 32 * 1024), 4);  // registers: 64K / (128 x 128)
  EXPECT_EQ(api::blocks_per_sm(sm80, 128, 32, 80 * 1024), 2);   // shared memory: 164 KiB / 81 KiB
  // Equal waves: larger tiles first; fewer tiles than SMs: the share of SMs busy; a deeper ring.
  EXPECT_GT(api::static_score(108, 128.0 * 128, 4, 1, 3, 108), api::static_score(108, 64.0 * 64, 4, 1, 3, 108));
  EXPECT_GT(api::static_score(108, 128.0 * 128, 4, 1, 3, 108), api::static_score(16, 128.0 * 128, 4, 1, 3, 108));
  EXPECT_GT(api::static_score(108, 128.0 * 128, 4, 1, 3, 108), api::static_score(108, 128.0 * 128, 4, 1, 1, 108));
}

#if POLYFUSE_TEST_HAVE_NVRTC
// Without a GPU: every candidate compiled and ranked by the static score, the refused one
// dropped with the compiler's reason, the table says nothing was timed, the winner is the best
// ranked.
TEST_F(AutotuneFixture, RanksStaticallyWithoutAGpu) {
  FakeTimer timer;
  timer.can_time = false;
  const AutotuneReport report = api::autotune(request, timer, winners, candidates);
  EXPECT_EQ(timer.runs, 0);
  EXPECT_FALSE(report.timed);
  EXPECT_EQ(report.not_timed_because, "no GPU");
  EXPECT_EQ(report.kernel_kind, "mma.sync");
  ASSERT_EQ(report.rows.size(), 4u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(report.rows[i].dropped, "") << report.to_string();
    EXPECT_GT(report.rows[i].registers, 0);
    EXPECT_EQ(report.rows[i].spill_bytes, 0);
    EXPECT_GT(report.rows[i].blocks_per_sm, 0);
    if (i > 0) {
      EXPECT_GE(report.rows[i - 1].score, report.rows[i].score) << report.to_string();
    }
  }
  EXPECT_EQ(report.rows[3].config, "block=128x256x64 stages=5");
  EXPECT_NE(report.rows[3].dropped.find("refused by the compiler"), std::string::npos) << report.rows[3].dropped;
  EXPECT_EQ(report.winner, report.rows[0].config);
  // 256 x 256: four 128 x 128 tiles fill 4 of 108 SMs, sixteen 64 x 64 ones 16.
  EXPECT_EQ(report.winner, "block=64x64x32 warp=32x32x32");
  EXPECT_EQ(report.chosen.block, (TileShape{64, 64, 32}));
  EXPECT_FALSE(report.chosen.autotune);
  const std::string text = report.to_string();
  EXPECT_NE(text.find("could not time: no GPU (static ranking only)"), std::string::npos) << text;
  EXPECT_NE(text.find("autotuned: block=64x64x32 warp=32x32x32 (static)"), std::string::npos) << text;
}

// With a timer: the fastest wins, and the second call reads the winner from the cache (no run).
TEST_F(AutotuneFixture, TimesThenCachesTheWinner) {
  FakeTimer timer;
  timer.time_of = [](const CompiledKernel& k) {
    return has_block(k, "128x128x32") && k.info().options.find("stages 3") != std::string::npos ? 0.5 : 1.0;
  };
  const AutotuneReport first = api::autotune(request, timer, winners, candidates);
  EXPECT_TRUE(first.timed);
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(first.winner, "block=128x128x32 stages=3") << first.to_string();
  EXPECT_EQ(first.rows.front().time_ms, 0.5);
  EXPECT_EQ(timer.runs, 3);  // the default (the reference outputs) and the two others
  EXPECT_NE(first.to_string().find("autotuned: block=128x128x32 stages=3 (timed)"), std::string::npos);

  const AutotuneReport second = api::autotune(request, timer, winners, candidates);
  EXPECT_EQ(timer.runs, 3);
  EXPECT_TRUE(second.from_cache);
  EXPECT_TRUE(second.timed);
  EXPECT_EQ(second.winner, first.winner);
  EXPECT_EQ(second.chosen.stages, 3);
  EXPECT_EQ(second.rows.size(), first.rows.size());
  bool listed = false;  // `polyfuse cache info` lists the winners
  for (const cache::CacheInfo::Kind& kind : winners.info().kinds)
    if (kind.name == "autotune") listed = kind.entries == 1;
  EXPECT_TRUE(listed) << winners.info().to_string();
}

// A wrong kernel never wins, however fast: its outputs differ from the default's.
TEST_F(AutotuneFixture, AWrongButFastCandidateNeverWins) {
  FakeTimer timer;
  timer.time_of = [](const CompiledKernel& k) { return has_block(k, "64x64x32") ? 0.01 : 1.0; };
  timer.wrong = [](const CompiledKernel& k) { return has_block(k, "64x64x32"); };
  const AutotuneReport report = api::autotune(request, timer, winners, candidates);
  EXPECT_TRUE(report.timed);
  EXPECT_NE(report.winner, "block=64x64x32 warp=32x32x32") << report.to_string();
  bool seen = false;
  for (const AutotuneRow& row : report.rows)
    if (row.config == "block=64x64x32 warp=32x32x32") {
      seen = true;
      EXPECT_NE(row.dropped.find("wrong result: differs from the default configuration's (C["), std::string::npos)
          << row.dropped;
    }
  EXPECT_TRUE(seen);
}

TEST_F(AutotuneFixture, RefusesWhatItCannotTune) {
  FakeTimer timer;
  api::AutotuneRequest r = request;
  r.options.block = TileShape{128, 128, 32};
  r.options.stages = 3;
  try {
    api::autotune(r, timer, winners, candidates);
    FAIL() << "tile options were accepted";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("autotune chooses the tile options itself, but block, stages are set"),
              std::string::npos)
        << e.what();
  }
  r = request;
  r.sizes.erase("K");
  EXPECT_THROW(api::autotune(r, timer, winners, candidates), SourceError);
  r = request;
  r.options.backend = Backend::cpu;
  EXPECT_THROW(api::autotune(r, timer, winners, candidates), SourceError);
  r = request;
  r.text = "def sm(f32(M, N) X) -> (f32(M, N) Y) {\n  mx(m) max=! X(m, n)\n  e(m, n) = exp(X(m, n) - mx(m))\n"
           "  s(m) +=! e(m, n)\n  Y(m, n) = e(m, n) / s(m)\n}\n";
  try {
    api::autotune(r, timer, winners, candidates);
    FAIL() << "a plan was accepted";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("autotune tunes one fused kernel, but the def is a plan"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(timer.runs, 0);
}

// The public path: CompileOptions::autotune compiles the winner (the emu backend: static; the
// sm_90a kernel's set, four distinct kernels).
TEST(AutotuneApi, CompileWithAutotuneUsesTheWinner) {
  auto program = TensorProgram::parse(gemm_text()).bind({{"M", 64}, {"N", 64}, {"K", 32}});
  CompileOptions options;
  options.arch = Arch::sm_90a;
  options.backend = Backend::emu;
  const AutotuneReport report = program.autotune(options);
  EXPECT_EQ(report.kernel_kind, "TMA + wgmma");
  EXPECT_EQ(report.chosen.backend, Backend::emu);
  options.autotune = true;
  const CompiledKernel kernel = program.compile(options);
  EXPECT_EQ(kernel.info().options, program.compile(report.chosen).info().options);
  options.block = TileShape{64, 64, 32};
  EXPECT_THROW(program.compile(options), SourceError);
}

// On a GPU (the GPU kit): real timings of three candidates, the winner among them.
TEST(AutotuneGpu, TimesCandidatesOnTheGpu) {
  if (!cuda_device_available()) GTEST_SKIP() << "no GPU: " << cuda_device_description();
  pf_runtime_test::ScopedDirectory dir("winners");
  cache::ArtifactCache winners(cache::CacheConfig{true, dir.path, std::uint64_t{64} << 20});
  api::AutotuneRequest request{gemm_text(), "gemm.tc", {{"M", 512}, {"N", 512}, {"K", 256}}, "", {}};
  const std::unique_ptr<api::CandidateTimer> timer = api::gpu_timer();
  const std::vector<TuningCandidate> candidates = {{}, {TileShape{64, 64, 32}, TileShape{32, 32, 32}, 0, 0, {}, {}, {}}};
  const AutotuneReport report = api::autotune(request, *timer, winners, candidates);
  EXPECT_TRUE(report.timed) << report.to_string();
  for (const AutotuneRow& row : report.rows)
    if (row.dropped.empty()) {
      EXPECT_TRUE(row.time_ms && *row.time_ms > 0) << report.to_string();
    }
  EXPECT_TRUE(api::autotune(request, *timer, winners, candidates).from_cache);
}

#endif

}  // namespace
