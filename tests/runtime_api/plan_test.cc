// Defs that compile to a plan of several kernels through TensorProgram::compile, launched like
// one kernel on the emulator and checked against the exact reference (runtime/reference).
#include <gtest/gtest.h>

#include "example_check.h"
#include "polyfuse/polyfuse.h"

namespace {

using pf_api_test::example_text;
using pf_api_test::expect_matches_reference;
using pf_api_test::reference_program;
using pf_api_test::Sizes;

polyfuse::CompileOptions emu_options() { return pf_api_test::options_for(polyfuse::Backend::emu); }

polyfuse::CompiledKernel compile_example(const std::string& name, const Sizes& sizes) {
  return pf_api_test::example_program(name, sizes).compile(emu_options());
}

struct PlanCase {
  std::string example;
  Sizes sizes;
  std::size_t kernels;  // in the plan (a def with no matmul is one row-chain kernel, no workspace)
};

class PlanOnEmulator : public ::testing::TestWithParam<PlanCase> {};

TEST_P(PlanOnEmulator, MatchesTheReference) {
  const PlanCase& c = GetParam();
  const polyfuse::CompiledKernel kernel = compile_example(c.example, c.sizes);
  EXPECT_EQ(kernel.kernel_count(), c.kernels);
  EXPECT_EQ(kernel.kernels().size(), kernel.kernel_count());
  EXPECT_EQ(kernel.workspace_bytes() > 0, c.kernels > 1);
  EXPECT_NE(kernel.plan().find("kernel"), std::string::npos) << kernel.plan();
  EXPECT_NE(kernel.metadata_json().find("\"workspace_bytes\": " + std::to_string(kernel.workspace_bytes())),
            std::string::npos)
      << kernel.metadata_json();
  expect_matches_reference(kernel, reference_program(c.example, c.sizes));
}

INSTANTIATE_TEST_SUITE_P(Examples, PlanOnEmulator,
                         ::testing::Values(PlanCase{"softmax", {{"M", 5}, {"N", 37}}, 1},
                                           PlanCase{"layernorm_rows", {{"M", 3}, {"N", 29}}, 1},
                                           PlanCase{"layernorm", {{"M", 7}, {"N", 264}, {"K", 16}}, 2},
                                           PlanCase{"gemm_softmax", {{"M", 9}, {"N", 264}, {"K", 24}}, 2},
                                           PlanCase{"attention", {{"B", 2}, {"S", 9}, {"T", 21}, {"D", 16}}, 1},
                                           PlanCase{"causal_attention", {{"B", 2}, {"S", 21}, {"T", 21}, {"D", 16}}, 1}),
                         [](const auto& info) { return info.param.example; });

TEST(Plan, CallerWorkspaceIsUsed) {
  const Sizes sizes{{"M", 9}, {"N", 264}, {"K", 24}};
  const polyfuse::CompiledKernel kernel = compile_example("gemm_softmax", sizes);
  std::vector<unsigned char> storage(static_cast<std::size_t>(kernel.workspace_bytes()) + 256);
  auto* aligned = storage.data() + (256 - reinterpret_cast<std::uintptr_t>(storage.data()) % 256) % 256;
  expect_matches_reference(kernel, reference_program("gemm_softmax", sizes), aligned);
  std::vector<float> a(9 * 24), b(24 * 264), p(9 * 264);
  try {
    kernel.launch({a, b, p}, nullptr, aligned + 16);
    FAIL() << "a misaligned workspace was accepted";
  } catch (const polyfuse::ArgumentError& e) {
    EXPECT_EQ(std::string(e.what()), "plan '" + kernel.info().name + "': the workspace is not 256-byte aligned");
  }
}

TEST(Plan, ArgumentsAreCheckedAgainstTheDefSignature) {
  const polyfuse::CompiledKernel kernel = compile_example("softmax", {{"M", 5}, {"N", 37}});
  std::vector<std::uint16_t> x(5 * 37), small(8);
  try {
    kernel.launch({x, small});
    FAIL() << "a small output was accepted";
  } catch (const polyfuse::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 2 (Y (f16(5, 37), output)) needs 370 bytes but the buffer has 16"),
              std::string::npos)
        << e.what();
  }
}

TEST(Plan, OneKernelDefsStayOneKernel) {
  auto program = polyfuse::TensorProgram::parse(example_text("gemm"), "gemm.tc");
  program.bind({{"M", 64}, {"N", 64}, {"K", 32}});
  const polyfuse::CompiledKernel kernel = program.compile(emu_options());
  EXPECT_EQ(kernel.kernel_count(), 1u);
  EXPECT_EQ(kernel.workspace_bytes(), 0);
  EXPECT_FALSE(kernel.plan().empty());
  EXPECT_EQ(kernel.kernels().front().info().name, kernel.info().name);
}

TEST(Plan, UnboundSizesAreASourceError) {
  auto program = polyfuse::TensorProgram::parse(example_text("softmax"), "softmax.tc");
  EXPECT_THROW((void)program.compile(emu_options()), polyfuse::SourceError);
}

TEST(TensorProgram, SignatureIsKnownBeforeCompiling) {
  auto program = polyfuse::TensorProgram::parse(example_text("gemm_softmax"), "gemm_softmax.tc");
  program.bind("K", 24);
  const std::vector<polyfuse::ParameterInfo> signature = program.signature();
  ASSERT_EQ(signature.size(), 5u);
  EXPECT_EQ(signature[0].name, "A");
  EXPECT_EQ(signature[0].element, "f16");
  EXPECT_EQ(signature[0].shape, (std::vector<std::string>{"M", "24"}));
  EXPECT_EQ(signature[2].name, "P");
  EXPECT_EQ(signature[2].kind, polyfuse::ParameterInfo::Kind::output);
  EXPECT_EQ(signature[3].kind, polyfuse::ParameterInfo::Kind::size);
}

// A size used as a value (`/ N`) needs its value to compile, not to parse: the declarations
// say what the def takes until then.
TEST(TensorProgram, SizesUsedAsValuesMayStayUnboundUntilCompile) {
  auto program = polyfuse::TensorProgram::parse(example_text("layernorm_rows"), "layernorm_rows.tc");
  EXPECT_EQ(program.defs(), std::vector<std::string>{"layernorm_rows"});
  EXPECT_EQ(program.unbound_sizes(), (std::vector<std::string>{"M", "N"}));
  const std::vector<polyfuse::ParameterInfo> signature = program.signature();
  ASSERT_EQ(signature.size(), 6u);
  EXPECT_EQ(signature[0].shape, (std::vector<std::string>{"M", "N"}));
  EXPECT_EQ(signature[3].kind, polyfuse::ParameterInfo::Kind::output);
  try {
    (void)program.compile(emu_options());
    FAIL() << "compiled with N unbound";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("layernorm_rows.tc:4:25: error: size 'N' is used as a value"), std::string::npos)
        << e.what();
  }
}

// A convolution whose output range is inferred from several sizes (h in 0..H - R): it parses
// with the sizes unbound, says what to bind when compiled without them, and runs once bound.
TEST(TensorProgram, InferredRangesOverSeveralSizesNeedThemOnlyAtCompile) {
  auto program = polyfuse::TensorProgram::parse(example_text("conv2d"), "conv2d.tc");
  EXPECT_EQ(program.defs(), std::vector<std::string>{"conv2d"});
  try {
    (void)program.compile(emu_options());
    FAIL() << "compiled with H and R unbound";
  } catch (const polyfuse::SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("for the values 0..H - R, a range whose extent is not one size of the def (bind "
                                         "the sizes it depends on"),
              std::string::npos)
        << e.what();
  }
  const Sizes sizes = {{"N", 2}, {"H", 6}, {"W", 5}, {"C", 3}, {"K", 4}, {"R", 3}, {"S", 2}};
  program.bind(sizes);
  expect_matches_reference(program.compile(emu_options()), reference_program("conv2d", sizes));
}

}  // namespace
