#include "bench/gpu/conv_run.h"

#include <fmt/format.h>

#include <memory>

#include "bench/gpu/baselines_cudnn_conv.h"
#include "bench/gpu/conv_reference.h"
#include "bench/gpu/polyfuse_path.h"
#include "bench/gpu/variant_checks.h"

namespace polyfuse::bench {

std::vector<CompileJob> conv_compile_jobs(const std::vector<ConvProblem>& problems, const std::string& arch) {
  std::vector<CompileJob> jobs;
  for (const ConvProblem& problem : problems) {
    CompileJob job;
    job.dtype = problem.dtype;
    job.size = problem.shape.gemm();
    job.arch = arch;
    job.name = problem.idiom->name;
    job.source = conv_source(*problem.idiom, problem.shape, problem.dtype);
    job.bindings = conv_size_bindings(problem.shape, job.source);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

ResultRow measure_conv_problem(const ConvProblem& problem, const CompileJob& job, RunContext& context) {
  const ConvIdiom& idiom = *problem.idiom;
  const ConvShape& shape = problem.shape;
  const DType dtype = problem.dtype;
  ResultRow row;
  row.idiom = idiom.name;
  row.dtype = dtype;
  row.size = shape.gemm();
  row.layer = shape.name + ": " + describe(shape);

  const std::uint64_t seed = static_cast<std::uint64_t>(problem.layer_index) + 1;
  const HostProblem host = make_conv_problem(idiom, shape, dtype, seed);
  DeviceProblem device(host);
  const std::vector<std::int64_t> indices = sample_indices(device.output_elements(), context.options.samples, seed);
  std::vector<float> expected;
  for (std::int64_t index : indices) expected.push_back(conv_reference_element(idiom, shape, dtype, host, index));
  VariantChecks checks(
      device, context.stream, context.timer,
      [&](const std::vector<std::uint16_t>& bits) {
        return check_conv_against_reference(shape, dtype, bits, indices, expected);
      },
      [&](const std::vector<std::uint16_t>& bits, const std::vector<std::uint16_t>& other) {
        return check_conv_against_variant(shape, dtype, bits, other);
      });

  std::vector<std::string> notes;
  const void* input = device.pointer("I");
  const void* filter = device.pointer("F");
  void* output = device.pointer("O");
  const bool epilogue = idiom.epilogue != ConvEpilogue::none;
  const bool residual = idiom.epilogue == ConvEpilogue::bias_residual_relu;
  const void* bias = epilogue ? device.pointer("bias") : nullptr;

  std::unique_ptr<CudnnConv> cudnn;
  try {
    cudnn = std::make_unique<CudnnConv>(shape, dtype);
    cudnn->find_algorithm(input, filter, output);
    notes.push_back("cudnn_conv: " + cudnn->algorithm());
  } catch (const Unsupported& why) {
    notes.push_back(std::string("cuDNN not measured: ") + why.what());
    cudnn.reset();
  }
  if (cudnn) {
    Cudnn* pointwise = context.libraries.cudnn.get();
    const std::int64_t rows = shape.n * shape.p() * shape.q();
    const Enqueue unfused = [&, pointwise, rows](cudaStream_t stream) {
      cudnn->forward(stream, input, filter, output);
      if (!epilogue) return;
      pointwise->add_bias(stream, dtype, rows, shape.k, bias, output);
      if (residual) pointwise->add(stream, dtype, rows, shape.k, output, input, output);
      pointwise->activation(stream, dtype, Activation::relu, rows, shape.k, output, output);
    };
    try {
      row.cudnn_conv_ms = checks.measure(to_string(Variant::cudnn_conv), unfused);
    } catch (const Unsupported& why) {
      notes.push_back(std::string("cudnn_conv not measured: ") + why.what());
    }
    if (epilogue) {
      const Enqueue fused = [&](cudaStream_t stream) {
        cudnn->forward_fused(stream, input, filter, bias, residual ? input : nullptr, output);
      };
      try {
        row.cudnn_fused_ms = checks.measure(to_string(Variant::cudnn_fused), fused);
        notes.push_back("cudnn_fused: " + cudnn->fused_algorithm());
      } catch (const Unsupported& why) {
        notes.push_back(std::string("cudnn_fused not measured: ") + why.what());
      }
    }
  }

  if (!job.kernel) {
    notes.push_back("polyfuse rejected by the compiler: " + job.error);
  } else {
    const CompiledKernel& kernel = *job.kernel;
    notes.push_back("polyfuse: " + polyfuse_path(kernel.plan()));
    const Enqueue enqueue = [&kernel, &device](cudaStream_t stream) {
      launch_polyfuse(kernel, [&device](const std::string& tensor) { return device.pointer(tensor); }, stream);
    };
    row.polyfuse_default_ms = checks.measure("polyfuse", enqueue);
    row.polyfuse_best_ms = row.polyfuse_default_ms;
    if (row.polyfuse_best_ms) row.polyfuse_best_config = to_string(TileConfig{});
  }
  row.check = checks.failures().empty() ? "ok" : join_notes(checks.failures());
  row.notes = join_notes(notes);
  return row;
}

std::string conv_progress_line(const ConvProblem& problem, size_t layers, const ResultRow& row) {
  auto time = [](std::optional<double> ms) { return ms ? fmt::format("{:.4f} ms", *ms) : std::string("-"); };
  std::string line = fmt::format("[conv {:>2}/{}] {:<23} {:<4} {} ({}): cudnn_conv {}, cudnn_fused {}, polyfuse {}",
                                 problem.layer_index + 1, layers, row.idiom, to_string(row.dtype), problem.shape.name,
                                 describe(problem.shape), time(row.cudnn_conv_ms), time(row.cudnn_fused_ms),
                                 time(row.polyfuse_default_ms));
  if (row.check != "ok") line += " CHECK FAILED: " + row.check;
  return line;
}

}  // namespace polyfuse::bench
