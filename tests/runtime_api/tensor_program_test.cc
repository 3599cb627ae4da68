// TensorProgram: parsing, size binding, errors, and compiling to a cubin without a GPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "api_test_util.h"
#include "polyfuse/polyfuse.h"

namespace {

TEST(TensorProgram, ParseListsDefsAndUnboundSizes) {
  auto program = polyfuse::TensorProgram::parse(pf_api_test::gemm_text(), "gemm.tc");
  EXPECT_EQ(program.defs(), std::vector<std::string>{"gemm"});
  EXPECT_EQ(program.unbound_sizes(), (std::vector<std::string>{"M", "K", "N"}));
  program.bind("K", 64).bind({{"N", 128}});
  EXPECT_EQ(program.unbound_sizes("gemm"), std::vector<std::string>{"M"});
  EXPECT_EQ(program.sizes().at("K"), 64);
}

TEST(TensorProgram, CopiesKeepTheirOwnSizes) {
  auto a = polyfuse::TensorProgram::parse(pf_api_test::gemm_text());
  auto b = a;
  b.bind("M", 128);
  EXPECT_TRUE(a.sizes().empty());
  EXPECT_EQ(b.sizes().size(), 1u);
}

TEST(TensorProgram, SourceErrorsNameThePlace) {
  try {
    polyfuse::TensorProgram::parse("def broken(f16(M) A) -> (f16(M) B) {\n  B(m) = X(m)\n}\n", "broken.tc");
    FAIL() << "no SourceError";
  } catch (const polyfuse::SourceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken.tc:2:"), std::string::npos) << what;
    EXPECT_NE(what.find("'X'"), std::string::npos) << what;
    EXPECT_NE(what.find("^"), std::string::npos) << what;
  }
  EXPECT_THROW(polyfuse::TensorProgram::from_file("/nonexistent/file.tc"), polyfuse::SourceError);
  auto program = polyfuse::TensorProgram::parse(pf_api_test::gemm_text());
  EXPECT_THROW(program.bind("M", 0), polyfuse::SourceError);
  polyfuse::CompileOptions bad;
  bad.warp = polyfuse::TileShape{48, 48, 32};  // not a multiple of the 16x8x16 MMA
  EXPECT_THROW(program.compile(bad), polyfuse::SourceError);
  EXPECT_THROW(program.compile({}, "no_such_def"), polyfuse::SourceError);
}

// Options are named as the API names them, never as command-line flags.
TEST(TensorProgram, OptionErrorsNameTheApiOption) {
  auto program = polyfuse::TensorProgram::parse(pf_api_test::gemm_text());
  program.bind({{"M", 64}, {"N", 64}, {"K", 64}});
  polyfuse::CompileOptions options;
  options.backend = polyfuse::Backend::emu;
  options.split_k = 3;
  try {
    program.compile(options);
    FAIL() << "split_k = 3 was accepted";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_EQ(std::string(e.what()), "polyfuse: error: split_k must be 1, 2 or 4, got 3\n");
  }
  options.split_k = 0;
  options.block = polyfuse::TileShape{64, 64, 0};
  try {
    program.compile(options);
    FAIL() << "block = 64x64x0 was accepted";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_EQ(std::string(e.what()), "polyfuse: error: block 64x64x0: every extent of a tile must be at least 1\n");
  }
  options.block.reset();
  options.group = 0;
  try {
    program.compile(options);
    FAIL() << "group = 0 was accepted";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_EQ(std::string(e.what()), "polyfuse: error: group must be at least 1 (tile rows per group of the block order; "
                                     "1: row-major), got 0\n");
  }
  options.group.reset();
  options.arch = polyfuse::Arch::sm_80;
  options.consumer_schedule = polyfuse::ConsumerSchedule::pingpong;
  try {
    program.compile(options);
    FAIL() << "consumer_schedule on sm_80 was accepted";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_EQ(std::string(e.what()), "polyfuse: error: consumer_schedule pingpong: only the sm_90a warp-specialised kernel "
                                     "has consumer warpgroups; def 'gemm' on sm_80 runs the mma.sync main loop\n");
  }
  options.arch = polyfuse::Arch::sm_90a;  // the TMA + wgmma kernel: the option is taken
  EXPECT_NE(program.compile(options).info().options.find("pingpong"), std::string::npos);
}

// The parsers the CLI uses for its flags, as the API offers them.
TEST(TensorProgram, OptionValuesParseFromTheirSpellings) {
  EXPECT_EQ(polyfuse::tile_shape_from_string("128x256x32"), (polyfuse::TileShape{128, 256, 32}));
  EXPECT_EQ(polyfuse::arch_from_string("sm_86"), polyfuse::Arch::sm_86);
  EXPECT_EQ(polyfuse::mma_shape_from_string("32x32x8"), polyfuse::MmaShape::m32n32k8);
  EXPECT_EQ(polyfuse::to_string(polyfuse::TileShape{64, 32, 16}), "64x32x16");
  EXPECT_EQ(polyfuse::to_string(polyfuse::Arch::sm_89), "sm_89");
  EXPECT_EQ(polyfuse::consumer_schedule_from_string("pingpong"), polyfuse::ConsumerSchedule::pingpong);
  EXPECT_EQ(polyfuse::to_string(polyfuse::ConsumerSchedule::cooperative), "cooperative");
  EXPECT_THROW(polyfuse::consumer_schedule_from_string("ping-pong"), polyfuse::SourceError);
  try {
    polyfuse::tile_shape_from_string("64x64");
    FAIL() << "64x64 was accepted";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "polyfuse: error: tile: expected MxNxK with three positive integers (e.g. 128x128x32), got '64x64'\n");
  }
  try {
    polyfuse::arch_from_string("sm_70");
    FAIL() << "sm_70 was accepted";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "polyfuse: error: arch: unknown architecture 'sm_70' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)\n");
  }
  EXPECT_THROW(polyfuse::mma_shape_from_string("m16n8k8"), polyfuse::SourceError);
}

class CompileForArch : public ::testing::TestWithParam<const char*> {};

TEST_P(CompileForArch, GemmCompilesToCubinWithoutGpuAndIsCached) {
  auto program = polyfuse::TensorProgram::parse(pf_api_test::gemm_text());
  program.bind({{"M", 256}, {"N", 256}, {"K", 128}});
  polyfuse::CompileOptions options;
  options.arch = polyfuse::arch_from_string(GetParam());
  const polyfuse::CompiledKernel kernel = program.compile(options);
  EXPECT_EQ(kernel.backend(), polyfuse::Backend::cuda);
  EXPECT_GT(kernel.cubin().size(), 1000u);
  EXPECT_NE(kernel.ptx().find(".entry gemm"), std::string::npos);
  EXPECT_NE(kernel.source().find("__global__"), std::string::npos);
  const polyfuse::KernelInfo& info = kernel.info();
  EXPECT_EQ(info.name, "gemm");
  EXPECT_EQ(info.arch, GetParam());
  ASSERT_EQ(info.parameters.size(), 3u);
  EXPECT_EQ(info.parameters[2].name, "C");
  EXPECT_EQ(info.parameters[2].kind, polyfuse::ParameterInfo::Kind::output);
  EXPECT_EQ(info.grid, (std::array<std::int64_t, 3>{2, 2, 1}));
  EXPECT_NE(kernel.metadata_json().find("\"kernel\": \"gemm\""), std::string::npos);
  EXPECT_TRUE(kernel.cache_status() == polyfuse::CacheStatus::miss ||
              kernel.cache_status() == polyfuse::CacheStatus::disk_hit)
      << polyfuse::to_string(kernel.cache_status());
  const polyfuse::CompiledKernel again = program.compile(options);
  EXPECT_EQ(again.cache_status(), polyfuse::CacheStatus::memory_hit);
  EXPECT_EQ(again.cubin(), kernel.cubin());
  options.use_cache = false;
  EXPECT_EQ(program.compile(options).cache_status(), polyfuse::CacheStatus::disabled);
}
INSTANTIATE_TEST_SUITE_P(Arch, CompileForArch, ::testing::Values("sm_80", "sm_90"));

// A def that is no fused matmul kernel (a row reduction) compiles to a plan of one
// memory-bound kernel and runs like any kernel.
TEST(TensorProgram, RowReductionCompilesToAPlanOfOneKernel) {
  auto program = polyfuse::TensorProgram::parse("def row_max(f32(M, N) X) -> (f32(M) Y) {\n  Y(m) max=! X(m, n)\n}\n");
  program.bind({{"M", 3}, {"N", 5}});
  polyfuse::CompileOptions options;
  options.backend = polyfuse::Backend::emu;
  const polyfuse::CompiledKernel kernel = program.compile(options);
  EXPECT_EQ(kernel.kernel_count(), 1u);
  EXPECT_EQ(kernel.workspace_bytes(), 0);
  std::vector<float> x(15), y(3);
  for (int i = 0; i < 15; ++i) x[i] = static_cast<float>((i * 7) % 15) - 7;
  kernel.launch({x, y});
  for (int m = 0; m < 3; ++m) EXPECT_EQ(y[m], *std::max_element(x.begin() + 5 * m, x.begin() + 5 * m + 5)) << m;
}

TEST(Device, DefaultArchIsTheGpusElseSm90) {
  if (!polyfuse::cuda_device_available()) {
    EXPECT_EQ(polyfuse::default_arch(), polyfuse::Arch::sm_90);
    EXPECT_EQ(polyfuse::cuda_device_description().rfind("no CUDA device", 0), 0u);
  } else {
    EXPECT_EQ(polyfuse::to_string(polyfuse::default_arch()).rfind("sm_", 0), 0u);
  }
  EXPECT_FALSE(polyfuse::nvrtc_version().empty());
}

// CompileOptions::cluster: taken by the sm_90a warp-specialised kernel (its configuration names
// the cluster), refused elsewhere with the API's option name; parsed from its spelling.
TEST(TensorProgram, ClusterOption) {
  auto program = polyfuse::TensorProgram::parse(pf_api_test::gemm_text());
  program.bind({{"M", 256}, {"N", 256}, {"K", 64}});
  polyfuse::CompileOptions options;
  options.backend = polyfuse::Backend::emu;
  options.arch = polyfuse::Arch::sm_90a;
  options.cluster = polyfuse::cluster_shape_from_string("1x2");
  EXPECT_NE(program.compile(options).info().options.find("clusters of 1x2 tiles sharing A by TMA multicast"), std::string::npos);
  options.arch = polyfuse::Arch::sm_90;
  try {
    program.compile(options);
    FAIL() << "cluster on sm_90 was accepted";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_EQ(std::string(e.what()), "polyfuse: error: cluster 1x2: def 'gemm' on sm_90 runs the mma.sync main loop; only "
                                     "the sm_90a warp-specialised TMA + wgmma kernel has thread-block clusters\n");
  }
  EXPECT_EQ(polyfuse::to_string(polyfuse::cluster_shape_from_string("2x1")), "2x1");
  EXPECT_THROW(polyfuse::cluster_shape_from_string("2x2"), polyfuse::SourceError);
}

}  // namespace
