#include "bench/gpu/options.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

namespace polyfuse::bench {
namespace {

std::string quote_argument(const std::string& argument) {
  if (!argument.empty() && argument.find_first_of(" \t\"'$\\") == std::string::npos) return argument;
  std::string quoted = "'";
  for (char c : argument) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

ParseOutcome usage_error(const std::string& message) {
  return {std::nullopt, exit_usage,
          "polyfuse-bench: error: " + message + "\nRun 'polyfuse-bench --help' for usage.\n"};
}

}  // namespace

ParseOutcome parse_options(int argc, const char* const* argv) {
  BenchOptions options;
  std::vector<std::string> size_texts, idiom_names, dtype_names;
  bool conv = false;
  std::string idiom_list;
  for (const Idiom& idiom : all_idioms()) idiom_list += (idiom_list.empty() ? "" : ", ") + idiom.name;
  for (const ConvIdiom& idiom : conv_idioms()) idiom_list += ", " + idiom.name;

  CLI::App app{
      "polyfuse-bench: polyfuse's fused kernels against cuBLAS (cublasGemmEx), cuBLAS + cuDNN pointwise "
      "operations (the paper's baseline) and cuBLASLt with fused epilogues, on the idioms of issue 7, and "
      "(--conv) convolutions against cuDNN's fastest algorithm and its fused conv + bias + ReLU call. Writes a "
      "CSV and a summary; bench/gpu/plot.py draws the CSV. Needs a CUDA GPU except with --dry-run or "
      "--compile-only."};
  app.name("polyfuse-bench");
  app.add_flag("--dry-run", options.dry_run, "List every idiom x dtype x size and the variants it would time; run and write nothing");
  app.add_flag("--compile-only", options.compile_only,
               "Compile every polyfuse kernel (each tile configuration) and the extra pointwise kernels with NVRTC for --arch, run nothing (no GPU needed)");
  app.add_flag("--quick", options.quick, "20 sizes (the first 20 of the protocol's 100) instead of 100");
  app.add_option("--size", size_texts, "A problem size MxNxK instead of the protocol's (repeatable)");
  app.add_option("--seed", options.seed, "Seed of the protocol's random sizes")->capture_default_str();
  app.add_option("--batch", options.batch, "Batch count of batched idioms")->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--idiom", idiom_names,
                 "Idioms to run (repeatable; default: every GEMM idiom, or with --conv every convolution idiom): " +
                     idiom_list);
  app.add_flag("--conv", conv,
               "Run the convolution idioms (conv, conv_bias_relu, conv_bias_residual_relu; f16/bf16 NHWC input, "
               "KRSC filter) over ResNet-50's 3x3 and 1x1 layers, its first layer (7x7, C = 3), an odd shape and "
               "ResNeXt-50's grouped 3x3 layers, against cuDNN (--quick: 5 layers); GEMM idioms only where named "
               "with --idiom");
  app.add_option("--conv-batch", options.conv_batch, "Images per convolution layer (ResNet-50's layers; 128 for "
                 "the large batch)")->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--dtype", dtype_names, "Element types to run (repeatable; default both): f16, bf16");
  app.add_flag("--autotune", options.autotune,
               "Also run polyfuse's autotuner on each GEMM problem (TensorProgram::autotune: its candidate set for "
               "the --arch kernel, mma.sync or sm_90a TMA + wgmma, timed on this GPU, the winner cached) and time its "
               "winner: the polyfuse_autotuned column (with --compile-only: each problem's winner, ranked statically "
               "without a GPU)");
  app.add_flag("!--no-tune", options.tune, "Time only polyfuse's default tile configuration (polyfuse_best = polyfuse_default)");
  app.add_option("--repeats", options.repeats, "Timed launches per variant (the median is reported; issue 7 asks for >= 20)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  app.add_option("--warmup", options.warmup, "Untimed launches before the timed ones")->capture_default_str()->check(CLI::Range(0, 100000));
  app.add_flag("!--no-flush", options.l2_flush, "Do not flush L2 between launches (stated in the CSV and the summary)");
  app.add_option("--spin-ms", options.spin_ms, "Milliseconds of the spin kernel queued before the timed launches, so host launch overhead is not timed")
      ->capture_default_str()->check(CLI::Range(0.0, 1000.0));
  app.add_option("--samples", options.samples, "Output elements per variant checked against the host reference")
      ->capture_default_str()->check(CLI::Range(1, 1 << 24));
  app.add_option("--arch", options.arch, "NVRTC target architecture (sm_80, sm_86, sm_89, sm_90; default: the GPU's, else sm_90)")
      ->check(CLI::IsMember({"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}));
  app.add_option("--csv", options.csv, "CSV output file")->capture_default_str();
  app.add_option("--summary", options.summary, "Summary output file (also printed)")->capture_default_str();
  app.add_option("--compile-jobs", options.compile_jobs, "Threads compiling polyfuse kernels (0: one per hardware thread)")
      ->capture_default_str()->check(CLI::Range(0, 256));
  app.add_option("--time-limit", options.time_limit_s,
                 "Seconds after which no new problem is started; the summary covers the problems measured and "
                 "says how many were left out (0: no limit)")
      ->capture_default_str()->check(CLI::Range(0.0, 1e6));

  std::vector<std::string> arguments;
  for (int i = 1; i < argc; ++i) arguments.emplace_back(argv[i]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return {std::nullopt, exit_ok, app.help()};
    return usage_error(error.what());
  }

  if (options.dry_run && options.compile_only) return usage_error("--dry-run and --compile-only exclude each other");
  if (options.time_limit_s > 0 && (options.dry_run || options.compile_only))
    return usage_error("--time-limit applies to a run; --dry-run and --compile-only take no time limit");
  if (options.quick && !size_texts.empty()) return usage_error("--quick and --size exclude each other");
  for (const std::string& name : idiom_names) {
    if (const ConvIdiom* idiom = find_conv_idiom(name)) {
      options.conv_idioms.push_back(idiom);
    } else if (const Idiom* gemm = find_idiom(name)) {
      options.idioms.push_back(gemm);
    } else {
      return usage_error(fmt::format("--idiom '{}': unknown idiom; choose from {}", name, idiom_list));
    }
  }
  if (conv && options.conv_idioms.empty())
    for (const ConvIdiom& idiom : conv_idioms()) options.conv_idioms.push_back(&idiom);
  const bool convolutions = !options.conv_idioms.empty();
  if (options.idioms.empty() && !convolutions)
    for (const Idiom& idiom : all_idioms()) options.idioms.push_back(&idiom);
  if (options.idioms.empty() && !size_texts.empty())
    return usage_error("--size sets the GEMM idioms' sizes; the convolution idioms run on their layers (--conv-batch "
                       "sets their batch)");
  if (convolutions) options.conv_layers = conv_layers(options.quick, options.conv_batch);
  for (const std::string& text : size_texts) {
    std::optional<ProblemSize> size = parse_size(text, options.batch);
    if (!size) return usage_error(fmt::format("--size '{}': expected MxNxK with positive integers, e.g. 1024x512x256", text));
    options.sizes.push_back(*size);
  }
  options.explicit_sizes = !size_texts.empty();
  if (!options.explicit_sizes)
    options.sizes = options.quick ? quick_sizes(options.seed, options.batch)
                                  : random_sizes(full_size_count, options.seed, options.batch);
  for (const std::string& name : dtype_names) {
    std::optional<DType> type = parse_dtype(name);
    if (!type) return usage_error(fmt::format("--dtype '{}': unknown element type; choose f16 or bf16", name));
    options.dtypes.push_back(*type);
  }
  if (options.dtypes.empty()) options.dtypes = all_dtypes();

  options.command = "polyfuse-bench";
  for (const std::string& argument : arguments) options.command += " " + quote_argument(argument);
  return {options, exit_ok, ""};
}

}  // namespace polyfuse::bench
