#include "test_programs.h"

#include <gtest/gtest.h>

#include <regex>

#include "frontend/ir_printer.h"
#include "schedule/cpu_target.h"
#include "support/golden.h"

namespace polyfuse::testing {

const std::vector<std::string>& example_names() {
  static const std::vector<std::string> names = {"gemm", "gemm_bias_relu", "relu_gemm", "dequant_gemm", "multihead_batched_gemm",
                                                 "add_gemms", "swiglu", "mlp", "batched_gemm", "brgemm", "gemm_f32", "gemm_fp8",
                                                 // row reductions after the matmul: loop-nest stages
                                                 "gemm_softmax", "layernorm", "rmsnorm"};
  return names;
}

const std::vector<std::string>& loop_nest_examples() {
  static const std::vector<std::string> names = {"softmax", "cross_entropy", "layernorm_rows"};
  return names;
}

const std::vector<std::string>& convolution_examples() {
  static const std::vector<std::string> names = {"conv2d",         "conv2d_strided",   "conv2d_1x1",
                                                 "conv2d_grouped", "conv2d_bias_relu", "conv2d_residual",
                                                 "conv2d_grouped_bias_relu"};
  return names;
}

const std::vector<std::string>& attention_examples() {
  static const std::vector<std::string> names = {"attention", "causal_attention"};
  return names;
}

const std::vector<std::string>& contraction_examples() {
  static const std::vector<std::string> names = {"tensordot"};
  return names;
}


std::vector<std::string> statement_sources(const Program& program, bool with_ids) {
  std::vector<std::string> lines;
  for (const Statement& statement : program.statements)
    lines.push_back((with_ids ? statement.id + ": " : "") + print_statement_source(statement));
  return lines;
}

std::string example_text(const std::string& name, const std::string& dtype) {
  const std::string text = read_text_file(source_path("examples/" + name + ".tc"));
  if (dtype.empty()) return text;
  static const std::regex type(R"(\b(f16|bf16|f32)\()");
  return std::regex_replace(text, type, dtype + "(");
}

Program compile_text(const std::string& text, const SizeBindings& sizes, const std::string& file) {
  return compile_source(SourceFile{file, text}, sizes).programs.at(0);
}

RunRequest cpu_run_request(std::uint64_t seed) {
  RunRequest request;
  request.target = Target::cpu;
  request.cpu_schedule.target = default_cpu_target();
  request.repeats = 0;
  request.seed = seed;
  return request;
}

void expect_option_keeps_the_bits(const Program& program, bool CpuScheduleOptions::*option, std::uint64_t seed) {
  const auto request = [&](int threads, bool on) {
    RunRequest r = cpu_run_request(seed);
    r.cpu_schedule.threads = threads;
    r.cpu_schedule.min_parallel_flops = 0;
    r.cpu_schedule.*option = on;
    return r;
  };
  const RunReport off = run_program(program, request(1, false));
  ASSERT_TRUE(off.check.ok) << "off: " << off.check.to_string();
  for (const int threads : {1, 3}) {
    const RunReport on = run_program(program, request(threads, true));
    EXPECT_TRUE(on.check.ok) << threads << " threads: " << on.check.to_string();
    EXPECT_TRUE(on.outputs == off.outputs) << threads << " threads: not the bits without the option";
  }
}

RunReport run_text_on_cpu(const std::string& text, const SizeBindings& sizes, const std::string& file) {
  return run_program(compile_text(text, sizes, file), cpu_run_request());
}

}  // namespace polyfuse::testing
