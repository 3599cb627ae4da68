// polyfuse's side of polyfuse-bench --conv on the emulator: the bench's .tc of a layer
// (conv_shapes.h) compiled through the runtime API, launched with the buffers named by the
// kernel's parameters (I, F, bias, O: what bench/gpu/polyfuse_runner.cc's launch passes),
// and its output checked with the bench's own convolution check (checks.h) against the
// host reference. Small odd layers: stride 2 with C = 3, a "same" layer with the residual, and
// a grouped one.
#include <gtest/gtest.h>

#include <map>

#include "bench/gpu/checks.h"
#include "bench/gpu/conv_reference.h"
#include "polyfuse/polyfuse.h"
#include "runtime/reference/element_rounding.h"

namespace polyfuse::bench {
namespace {

// Runs `idiom` on `shape` on the emulator; returns the bench's check of O and O's bits.
CheckOutcome run_on_emulator(const ConvIdiom& idiom, const ConvShape& shape, std::vector<std::uint16_t>* output) {
  const std::string source = conv_source(idiom, shape, DType::f16);
  TensorProgram program = TensorProgram::parse(source, idiom.name + ".tc");
  for (const auto& size : conv_size_bindings(shape, source)) program.bind(size.first, size.second);
  CompileOptions options;
  options.backend = Backend::emu;
  const CompiledKernel kernel = program.compile(options);

  HostProblem host = make_conv_problem(idiom, shape, DType::f16, 11);
  std::map<std::string, std::vector<std::uint16_t>> buffers = host.bits;
  buffers["O"] = std::vector<std::uint16_t>(static_cast<size_t>(conv_tensors(idiom, shape).back().elements()), 0xFFFF);
  std::vector<Arg> args;
  for (const ParameterInfo& parameter : kernel.info().parameters)
    if (parameter.kind != ParameterInfo::Kind::size) args.emplace_back(buffers.at(parameter.name));
  kernel.launch(args);

  *output = buffers.at("O");
  const std::vector<std::int64_t> indices = sample_indices(static_cast<std::int64_t>(output->size()), 256, 3);
  std::vector<float> expected;
  for (std::int64_t index : indices) expected.push_back(conv_reference_element(idiom, shape, DType::f16, host, index));
  return check_conv_against_reference(shape, DType::f16, *output, indices, expected);
}

TEST(BenchConvEmu, PolyfuseKernelsPassTheBenchsCheck) {
  const std::vector<std::pair<const char*, ConvShape>> cases = {
      {"conv_bias_relu", {"C=3 s2", 1, 9, 11, 3, 6, 3, 2, 1}},
      {"conv_bias_residual_relu", {"same", 2, 7, 6, 5, 5, 3, 1, 1}},
      // 2 groups of 8 channels: one implicit GEMM per group, the epilogue fused
      {"conv_grouped_bias_relu", {"grouped", 1, 7, 6, 16, 16, 3, 1, 1, 2}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.first) + " " + c.second.name);
    std::vector<std::uint16_t> output;
    const CheckOutcome outcome = run_on_emulator(*find_conv_idiom(c.first), c.second, &output);
    EXPECT_TRUE(outcome.ok) << outcome.to_string();
    EXPECT_GT(outcome.compared, 0);
    // The check is not blind to this output: one element moved fails it.
    const size_t at = output.size() / 2;
    output[at] = reference::to_bits(ElementType::f16, reference::from_bits(ElementType::f16, output[at]) + 1.0f);
    EXPECT_FALSE(check_conv_against_reference(c.second, DType::f16, output, {static_cast<std::int64_t>(at)},
                                              {reference::from_bits(ElementType::f16, output[at]) - 1.0f})
                     .ok);
  }
}

}  // namespace
}  // namespace polyfuse::bench
