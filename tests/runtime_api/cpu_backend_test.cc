// Backend::cpu: the CPU target's C++ compiled through TensorProgram::compile and launched on
// host pointers, checked against the exact reference; the options it refuses.
#include <gtest/gtest.h>

#include "api_test_util.h"
#include "example_check.h"
#include "polyfuse/polyfuse.h"

namespace {

using pf_api_test::Sizes;

polyfuse::CompileOptions cpu_options() { return pf_api_test::options_for(polyfuse::Backend::cpu); }

polyfuse::TensorProgram example(const std::string& name, const Sizes& sizes) {
  return pf_api_test::example_program(name, sizes);
}

struct CpuCase {
  std::string example;
  Sizes sizes;
};

class CpuBackend : public ::testing::TestWithParam<CpuCase> {};

TEST_P(CpuBackend, MatchesTheReference) {
  const CpuCase& c = GetParam();
  const polyfuse::CompiledKernel kernel = example(c.example, c.sizes).compile(cpu_options());
  EXPECT_EQ(kernel.backend(), polyfuse::Backend::cpu);
  EXPECT_EQ(polyfuse::to_string(kernel.backend()), "cpu");
  EXPECT_NE(kernel.source().find("polyfuse_" + c.example + "_buffers"), std::string::npos);
  EXPECT_TRUE(kernel.cubin().empty());
  pf_api_test::expect_matches_reference(kernel, pf_api_test::reference_program(c.example, c.sizes));
}

INSTANTIATE_TEST_SUITE_P(Examples, CpuBackend,
                         ::testing::Values(CpuCase{"gemm", {{"M", 13}, {"N", 24}, {"K", 40}}},
                                           CpuCase{"gemm_bias_relu", {{"M", 13}, {"N", 24}, {"K", 40}}},
                                           CpuCase{"softmax", {{"M", 5}, {"N", 37}}}),
                         [](const auto& info) { return info.param.example; });

TEST(CpuBackend, RunOnHostIsALaunch) {
  const polyfuse::CompiledKernel kernel = example("gemm", {{"M", 16}, {"N", 8}, {"K", 16}}).compile(cpu_options());
  const std::vector<__half> a = pf_api_test::pattern(16 * 16, 1), b = pf_api_test::pattern(16 * 8, 2);
  std::vector<__half> c(16 * 8);
  const polyfuse::LaunchStats stats = kernel.run_on_host({a, b, c});
  EXPECT_FALSE(stats.emulated);
  const std::vector<float> expected = pf_api_test::gemm_reference(a, b, 16, 8, 16);
  for (int i = 0; i < 16 * 8; ++i) ASSERT_EQ(float(c[i]), expected[i]) << i;
  std::vector<__half> small(4);
  EXPECT_THROW(kernel.launch({a, b, small}), polyfuse::ArgumentError);
}

TEST(CpuBackend, GpuOptionsAreRefused) {
  polyfuse::CompileOptions options = cpu_options();
  options.block = polyfuse::TileShape{64, 64, 32};
  try {
    (void)example("gemm", {{"M", 16}, {"N", 8}, {"K", 16}}).compile(options);
    FAIL() << "block was accepted";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "polyfuse: error: CompileOptions::block has no meaning for Backend::cpu (the CPU target has its own "
              "blocking and builds with the system compiler)\n");
  }
  options = cpu_options();
  options.fast_math = true;
  EXPECT_THROW((void)example("gemm", {{"M", 16}, {"N", 8}, {"K", 16}}).compile(options), polyfuse::SourceError);
  // the sm_90a kernel's options too
  options = cpu_options();
  options.consumer_schedule = polyfuse::ConsumerSchedule::pingpong;
  EXPECT_THROW((void)example("gemm", {{"M", 16}, {"N", 8}, {"K", 16}}).compile(options), polyfuse::SourceError);
  options = cpu_options();
  options.cluster = polyfuse::ClusterShape{2, 1};
  EXPECT_THROW((void)example("gemm", {{"M", 16}, {"N", 8}, {"K", 16}}).compile(options), polyfuse::SourceError);
}

// CompileOptions::threads: the CPU target's num_threads clause; refused elsewhere and below 1.
TEST(CpuBackend, ThreadsOptionSetsTheLoopsThreads) {
  polyfuse::CompileOptions options = cpu_options();
  options.threads = 2;
  // (several row blocks on any machine: a def of one block has no parallel loop, and the
  // block's height follows the host's cache sizes — 256 rows on a 1 MiB L2)
  const polyfuse::TensorProgram program = example("gemm", {{"M", 2048}, {"N", 256}, {"K", 64}});
  EXPECT_NE(program.compile(options).source().find("num_threads(2)"), std::string::npos);
  options.threads = 0;
  EXPECT_THROW((void)program.compile(options), polyfuse::SourceError);
  polyfuse::CompileOptions emu;
  emu.backend = polyfuse::Backend::emu;
  emu.threads = 2;
  try {
    (void)program.compile(emu);
    FAIL() << "threads was accepted on the emulator";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("CompileOptions::threads is an option of the CPU target (Backend::cpu), not "
                                         "of Backend::emu"),
              std::string::npos)
        << e.what();
  }
}

// CompileOptions::cpu_block and min_parallel_flops: the CPU target's blocks and parallel
// threshold reach the generated code (its schedule comment), and the kernel checks at odd
// blocks; refused elsewhere and for values out of range.
TEST(CpuBackend, BlockAndParallelThresholdOptionsReachTheSchedule) {
  polyfuse::CompileOptions options = cpu_options();
  options.cpu_block = polyfuse::TileShape{5, 7, 3};
  options.min_parallel_flops = 0;
  options.threads = 3;
  const polyfuse::TensorProgram program = example("gemm", {{"M", 13}, {"N", 24}, {"K", 40}});
  const polyfuse::CompiledKernel kernel = program.compile(options);
  EXPECT_NE(kernel.source().find("(mc=5 nc=7 kc=3)"), std::string::npos) << kernel.source();
  EXPECT_NE(kernel.source().find("num_threads(3)"), std::string::npos);
  pf_api_test::expect_matches_reference(kernel, pf_api_test::reference_program("gemm", {{"M", 13}, {"N", 24}, {"K", 40}}));
  options.cpu_block = polyfuse::TileShape{5, 0, 3};
  EXPECT_THROW((void)program.compile(options), polyfuse::SourceError);
  options.cpu_block.reset();
  options.min_parallel_flops = -1;
  EXPECT_THROW((void)program.compile(options), polyfuse::SourceError);
  polyfuse::CompileOptions emu;
  emu.backend = polyfuse::Backend::emu;
  emu.cpu_block = polyfuse::TileShape{8, 8, 8};
  try {
    (void)program.compile(emu);
    FAIL() << "cpu_block was accepted on the emulator";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("CompileOptions::cpu_block is an option of the CPU target (Backend::cpu)"),
              std::string::npos)
        << e.what();
  }
  emu.cpu_block.reset();
  emu.min_parallel_flops = 0;
  EXPECT_THROW((void)program.compile(emu), polyfuse::SourceError);
}

// CompileOptions::constant_inputs: B's packed copy kept between launches (values changed behind
// the same pointer are not seen until forget_constants), refused elsewhere and for an unknown name.
TEST(CpuBackend, ConstantInputsAreKeptUntilForgotten) {
  polyfuse::CompileOptions options = cpu_options();
  options.constant_inputs = {"B"};
  const int m = 16, n = 8, k = 16;
  const polyfuse::TensorProgram program = example("gemm", {{"M", m}, {"N", n}, {"K", k}});
  const polyfuse::CompiledKernel kernel = program.compile(options);
  EXPECT_NE(kernel.source().find("polyfuse_gemm_forget_constants"), std::string::npos);
  const std::vector<__half> a = pf_api_test::pattern(m * k, 1), b1 = pf_api_test::pattern(k * n, 2),
                            b2 = pf_api_test::pattern(k * n, 3);
  std::vector<__half> b = b1, c(m * n);
  kernel.forget_constants();
  kernel.run_on_host({a, b, c});
  const std::vector<float> with_b1 = pf_api_test::gemm_reference(a, b1, m, n, k);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(float(c[i]), with_b1[i]) << i;
  b = b2;  // the same pointer, other values: the kept copy of b1 is used
  kernel.run_on_host({a, b, c});
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(float(c[i]), with_b1[i]) << "not kept, " << i;
  kernel.forget_constants();
  kernel.run_on_host({a, b, c});
  const std::vector<float> with_b2 = pf_api_test::gemm_reference(a, b2, m, n, k);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(float(c[i]), with_b2[i]) << "forgotten, " << i;

  options.constant_inputs = {"W"};
  EXPECT_THROW((void)program.compile(options), polyfuse::SourceError);
  polyfuse::CompileOptions emu;
  emu.backend = polyfuse::Backend::emu;
  emu.constant_inputs = {"B"};
  EXPECT_THROW((void)program.compile(emu), polyfuse::SourceError);
}

TEST(CpuBackend, UnboundSizesAndRefusedDefsAreSourceErrors) {
  EXPECT_THROW((void)example("gemm", {{"M", 16}}).compile(cpu_options()), polyfuse::SourceError);
  try {
    (void)example("gemm", {{"M", 8}, {"N", 8}, {"K", 8}}).compile(cpu_options(), "nope");
    FAIL() << "an unknown def was compiled";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
  }
}

}  // namespace
