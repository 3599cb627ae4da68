#include "bench/gpu/plan.h"

#include <fmt/format.h>

#include "bench/gpu/tile_configs.h"

namespace polyfuse::bench {
namespace {

// The cuBLAS call of the matmul(s) of `idiom`.
std::string cublas_call(const Idiom& idiom) {
  return idiom.batched ? "cublasGemmStridedBatchedEx (CUBLAS_COMPUTE_32F, tensor ops)"
                       : "cublasGemmEx (CUBLAS_COMPUTE_32F, tensor ops)";
}

VariantPlan cublas_cudnn_plan(const Idiom& idiom, const BuildFeatures& features) {
  VariantPlan plan{Variant::cublas_cudnn, true, ""};
  const bool pointwise = idiom.relu_prologue || idiom.second_matmul || idiom.gated || idiom.bias ||
                         idiom.activation != Activation::none || idiom.row != RowOp::none;
  if (!pointwise) {
    plan.how = cublas_call(idiom);
    return plan;
  }
  if (!features.cudnn) return {Variant::cublas_cudnn, false, "not built: cuDNN (cudnn.h, libcudnn) was not found"};
  if (idiom.activation == Activation::gelu)
    return {Variant::cublas_cudnn, false, "n/a: cuDNN's activations (cudnnActivationForward) have no GELU"};
  if (idiom.row == RowOp::layernorm)
    return {Variant::cublas_cudnn, false, "n/a: cuDNN's legacy API has no layer norm (the cuBLASLt variant runs one)"};
  if (idiom.row == RowOp::softmax) {
    plan.how = cublas_call(idiom) + " (C = A*B), then cudnnSoftmaxForward (ACCURATE, MODE_INSTANCE: each row)";
    return plan;
  }
  if (idiom.gated) {
    plan.how = "2x " + cublas_call(idiom) + " (G = A*B, U = A*F), then cudnnActivationForward (swish, beta 1: silu on G), "
               "then cudnnOpTensor (multiply G and U)";
    return plan;
  }
  std::vector<std::string> steps;
  if (idiom.relu_prologue) steps.push_back("cudnnActivationForward (relu on A)");
  steps.push_back(idiom.second_matmul ? "2x " + cublas_call(idiom) : cublas_call(idiom));
  if (idiom.second_matmul) steps.push_back("cudnnOpTensor (add)");
  if (idiom.bias) steps.push_back("cudnnAddTensor (bias)");
  if (idiom.activation != Activation::none)
    steps.push_back(fmt::format("cudnnActivationForward ({})", to_string(idiom.activation)));
  for (size_t i = 0; i < steps.size(); ++i) plan.how += (i == 0 ? "" : ", then ") + steps[i];
  return plan;
}

VariantPlan cublaslt_plan(const Idiom& idiom) {
  VariantPlan plan{Variant::cublaslt, true, ""};
  std::string matmul = idiom.batched ? "cublasLtMatmul (strided batch)" : "cublasLtMatmul";
  std::string epilogue = "DEFAULT";
  std::string extra;
  if (idiom.bias) {
    epilogue = "BIAS";
    if (idiom.activation == Activation::relu) epilogue = "RELU_BIAS";
    if (idiom.activation == Activation::gelu) epilogue = "GELU_BIAS (tanh approximation of GELU)";
    if (idiom.activation == Activation::tanh) extra = ", then the extra tanh kernel (NVRTC, in place on D)";
  }
  if (idiom.relu_prologue) plan.how = "the extra relu kernel (NVRTC) on A into a copy, then ";
  plan.how += fmt::format("{} epilogue {}{}", matmul, epilogue, extra);
  if (idiom.second_matmul)
    plan.how = "cublasLtMatmul D = A*B, then cublasLtMatmul D = E*F + 1.0*D (beta = 1: the add fused into the second matmul)";
  if (idiom.gated)
    plan.how = "cublasLtMatmul G = A*B, cublasLtMatmul U = A*F, then the extra silu_mul kernel (NVRTC): D = silu(G) * U";
  if (idiom.row == RowOp::softmax)
    plan.how = "cublasLtMatmul C = A*B, then the extra softmax_rows kernel (NVRTC, a block per row)";
  if (idiom.row == RowOp::layernorm)
    plan.how = "cublasLtMatmul epilogue BIAS (C = A*B + bias), then the extra layernorm_rows kernel (NVRTC, a block "
               "per row, centred variance)";
  return plan;
}

}  // namespace

std::vector<VariantPlan> variant_plans(const Idiom& idiom, const BuildFeatures& features) {
  std::vector<VariantPlan> plans;
  plans.push_back(cublas_cudnn_plan(idiom, features));
  plans.push_back(cublaslt_plan(idiom));
  plans.push_back({Variant::polyfuse_default, true,
                   idiom.row == RowOp::none
                       ? "polyfuse's fused kernel (TensorProgram::compile, NVRTC), default tile configuration"
                       : "polyfuse's plan for the def (TensorProgram::compile, NVRTC; the matmul and the row "
                         "reduction: --emit=plan says how many kernels), default tile configuration"});
  plans.push_back({Variant::polyfuse_best, true,
                   "polyfuse's fused kernel, fastest of the tile configurations below that fit the size"});
  return plans;
}

std::vector<Problem> plan_problems(const BenchOptions& options) {
  std::vector<Problem> problems;
  for (size_t s = 0; s < options.sizes.size(); ++s) {
    for (const Idiom* idiom : options.idioms) {
      for (DType dtype : options.dtypes) {
        Problem problem{static_cast<int>(s), options.sizes[s], idiom, dtype};
        if (!idiom->batched) problem.size.batch = 1;
        problems.push_back(problem);
      }
    }
  }
  return problems;
}

std::vector<ConvProblem> plan_conv_problems(const BenchOptions& options) {
  std::vector<ConvProblem> problems;
  for (size_t l = 0; l < options.conv_layers.size(); ++l)
    for (const ConvIdiom* idiom : options.conv_idioms)
      if (conv_applies(*idiom, options.conv_layers[l]))
        for (DType dtype : options.dtypes)
          problems.push_back({static_cast<int>(l), options.conv_layers[l], idiom, dtype});
  return problems;
}

std::vector<VariantPlan> conv_variant_plans(const ConvIdiom& idiom, const BuildFeatures& features) {
  const bool residual = idiom.epilogue == ConvEpilogue::bias_residual_relu;
  std::vector<VariantPlan> plans;
  const std::string not_built = "not built: cuDNN (cudnn.h, libcudnn) was not found";
  std::string conv = "cudnnConvolutionForward (NHWC, KRSC filter, cross-correlation, f32 compute, tensor-op math "
                     "allowed) with the fastest algorithm cudnnFindConvolutionForwardAlgorithmEx measures, its "
                     "workspace allocated";
  if (idiom.epilogue != ConvEpilogue::none)
    conv += std::string(", then cudnnAddTensor (bias)") + (residual ? ", cudnnOpTensor (add the residual I)" : "") +
            ", cudnnActivationForward (relu)";
  plans.push_back(features.cudnn ? VariantPlan{Variant::cudnn_conv, true, conv}
                                 : VariantPlan{Variant::cudnn_conv, false, not_built});
  if (!features.cudnn)
    plans.push_back({Variant::cudnn_fused, false, not_built});
  else if (idiom.epilogue == ConvEpilogue::none)
    plans.push_back({Variant::cudnn_fused, false, "n/a: no bias or activation to fuse (cudnn_conv is the baseline)"});
  else
    plans.push_back({Variant::cudnn_fused, true,
                     std::string("cudnnConvolutionBiasActivationForward (bias, relu; ") +
                         (residual ? "z = the input I, alpha2 = 1" : "alpha2 = 0") +
                         ") with the fastest algorithm of the search that the fused call accepts"});
  plans.push_back({Variant::polyfuse_default, true,
                   "polyfuse's kernel(s) for the def (TensorProgram::compile, NVRTC), default options; the row's "
                   "notes say how the compiler ran it (its --emit=plan)"});
  plans.push_back({Variant::polyfuse_best, true, "= polyfuse_default (no tile tuning for convolutions)"});
  return plans;
}

std::vector<TileConfig> planned_configs(const BenchOptions& options, const Problem& problem) {
  if (!options.tune) {
    if (fits(TileConfig{}, problem.size)) return {TileConfig{}};
    return {};
  }
  return fitting_configs(problem.size);
}

std::string dry_run_listing(const BenchOptions& options, const BuildFeatures& features, const std::string& device) {
  std::string text;
  auto line = [&](const std::string& s) { text += s + "\n"; };
  line("polyfuse-bench --dry-run: lists what a run would do; nothing is run and nothing is written");
  const bool gemms = !options.idioms.empty();
  if (!gemms)
    line("sizes: none (no GEMM idiom)");
  else if (options.explicit_sizes)
    line(fmt::format("sizes: {} given with --size", options.sizes.size()));
  else
    line(fmt::format("sizes: {} of the paper's protocol (random M, N, K, multiples of {} in [{}, {}], std::mt19937_64 "
                     "seed {}){}",
                     options.sizes.size(), size_step, size_step, max_dimension, options.seed,
                     options.quick ? ", --quick: the first 20" : ""));
  if (gemms) line(fmt::format("batch: {} for batched idioms", options.batch));
  std::string idioms, dtypes;
  for (const Idiom* idiom : options.idioms) idioms += (idioms.empty() ? "" : ", ") + idiom->name;
  for (const ConvIdiom* idiom : options.conv_idioms) idioms += (idioms.empty() ? "" : ", ") + idiom->name;
  for (DType dtype : options.dtypes) dtypes += (dtypes.empty() ? "" : ", ") + to_string(dtype);
  line(fmt::format("idioms: {} ({})", options.idioms.size() + options.conv_idioms.size(), idioms));
  line(fmt::format("dtypes: {} (inputs and output; f32 accumulation)", dtypes));
  line(fmt::format("method: CUDA events around each launch; {} warm-up launches, then the median of {} timed launches "
                   "per variant{}; {}; a {} ms spin kernel queued before the timed launches so host launch overhead "
                   "is not timed",
                   options.warmup, options.repeats, options.repeats < 20 ? " (fewer than issue 7's 20)" : "",
                   options.l2_flush ? "L2 flushed before every launch (cudaMemsetAsync of a buffer twice the L2 size)"
                                    : "L2 NOT flushed (--no-flush)",
                   options.spin_ms));
  line(fmt::format("checks: before timing, each variant's output is compared with a host reference on {} sampled "
                   "elements (tolerance 2x reference::tolerance_for) and, in full, with the first variant that passed "
                   "(4x); a variant that fails is not timed and the run exits 1",
                   options.samples));
  line(features.cudnn ? fmt::format("cudnn: found, version {} (cuBLAS + cuDNN baseline built)", features.cudnn_version)
                      : "cudnn: NOT found at build time (the cuBLAS + cuDNN baseline is skipped except for plain GEMM)");
  if (gemms) line("variants per idiom:");
  for (const Idiom* idiom : options.idioms) {
    line(fmt::format("  {} ({}):", idiom->name, idiom->title));
    for (const VariantPlan& plan : variant_plans(*idiom, features))
      line(fmt::format("    {:<16} {}", to_string(plan.variant), plan.available ? plan.how : "-- " + plan.how));
  }
  if (!options.conv_idioms.empty()) {
    line(fmt::format("convolution layers: {} (NHWC input, KRSC filter; ResNet-50's at batch {}{}, odd shapes and "
                     "ResNeXt-50's grouped 3x3)",
                     options.conv_layers.size(), options.conv_batch, options.quick ? ", --quick: 5 layers" : ""));
    for (const ConvIdiom* idiom : options.conv_idioms) {
      line(fmt::format("  {} ({}):", idiom->name, idiom->title));
      for (const VariantPlan& plan : conv_variant_plans(*idiom, features))
        line(fmt::format("    {:<16} {}", to_string(plan.variant), plan.available ? plan.how : "-- " + plan.how));
    }
  }
  if (gemms) line(fmt::format("polyfuse tile configurations ({}; a configuration is tried where its block tile divides M, N "
                   "and K, and skipped where the compiler rejects it for the idiom):",
                   options.tune ? "polyfuse_best is the fastest of these" : "--no-tune: the default only"));
  for (const TileConfig& config : tuning_configs()) {
    if (!gemms) break;
    line(fmt::format("  {}", to_string(config)));
    if (!options.tune) break;
  }
  if (gemms && options.autotune)
    line("polyfuse_autotuned (--autotune): the autotuner's winner for each problem (TensorProgram::autotune: its "
         "candidate set for the --arch kernel, mma.sync or the sm_90a TMA + wgmma one, pruned by ptxas's facts, timed "
         "on the GPU, checked against the default's outputs; cached per program, shapes and GPU), then timed like the "
         "others");
  line(fmt::format("outputs: CSV {}, summary {} (a dry run writes neither); plot: python3 bench/gpu/plot.py {} -o "
                   "speedup.png",
                   options.csv, options.summary, options.csv));
  line(fmt::format("device: {}", device));

  const std::vector<Problem> problems = plan_problems(options);
  size_t timings = 0, kernels = 0;
  std::string rows;
  for (const Problem& problem : problems) {
    std::string variants;
    for (const VariantPlan& plan : variant_plans(*problem.idiom, features)) {
      std::string name = to_string(plan.variant);
      if (!plan.available) {
        name += "(n/a)";
      } else if (plan.variant == Variant::polyfuse_best) {
        const size_t configs = planned_configs(options, problem).size();
        name += fmt::format("({} configs)", configs);
        kernels += configs;
        timings += configs;
      } else if (plan.variant != Variant::polyfuse_default) {
        ++timings;
      }
      variants += (variants.empty() ? "" : " ") + name;
    }
    if (options.autotune) {
      variants += " polyfuse_autotuned";
      ++timings;
    }
    rows += fmt::format("run {:>4}/{:<4} M={:<4} N={:<4} K={:<4} batch={:<3} {:<18} {:<4} : {}\n",
                        problem.size_index + 1, options.sizes.size(), problem.size.m, problem.size.n, problem.size.k,
                        problem.size.batch, problem.idiom->name, to_string(problem.dtype), variants);
  }
  if (gemms)
    line(fmt::format("problems: {} ({} sizes x {} idioms x {} dtypes); {} variant timings (each library baseline and "
                     "each polyfuse configuration; polyfuse_default is the default configuration's); {} polyfuse "
                     "kernels to compile (or to be rejected by the compiler)",
                     problems.size(), options.sizes.size(), options.idioms.size(), options.dtypes.size(), timings,
                     kernels));
  const std::vector<ConvProblem> convs = plan_conv_problems(options);
  if (!options.conv_idioms.empty())
    line(fmt::format("convolution problems: {} ({} layers x {} idioms x {} dtypes, less {} where the idiom does "
                     "not apply: the residual where K != C or on a strided / shrinking layer, the grouped idioms "
                     "but on grouped layers)",
                     convs.size(), options.conv_layers.size(), options.conv_idioms.size(), options.dtypes.size(),
                     options.conv_layers.size() * options.conv_idioms.size() * options.dtypes.size() - convs.size()));
  for (const ConvProblem& problem : convs) {
    std::string variants;
    for (const VariantPlan& plan : conv_variant_plans(*problem.idiom, features)) {
      if (plan.variant == Variant::polyfuse_best) continue;  // the default's time
      if (!variants.empty()) variants += ' ';
      variants += to_string(plan.variant);
      if (!plan.available) variants += "(n/a)";
    }
    rows += fmt::format("conv {:>4}/{:<4} {:<12} {:<30} {:<23} {:<4} : {}\n", problem.layer_index + 1,
                        options.conv_layers.size(), problem.shape.name, describe(problem.shape), problem.idiom->name,
                        to_string(problem.dtype), variants);
  }
  return text + rows;
}

}  // namespace polyfuse::bench
