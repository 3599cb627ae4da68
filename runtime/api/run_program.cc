#include "runtime/api/run_program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "codegen/cuda_emitter.h"
#include "frontend/diagnostics.h"
#include "polyfuse/device.h"
#include "polyfuse_emu/emulator.h"
#include "runtime/api/compiled_kernel_factory.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/tensor_data.h"

namespace polyfuse {
namespace {

using reference::TensorData;

// 2 × the instances of every reduction statement (one multiply-add each).
std::int64_t matmul_flops(const Program& program) {
  std::int64_t flops = 0;
  for (const Statement& statement : program.statements) {
    if (!statement.is_reduction()) continue;
    std::int64_t instances = 1;
    for (const IterationIndex& index : statement.indices) instances *= reference::bound_extent(program, index.extent);
    flops += 2 * instances;
  }
  return flops;
}

// The first line of `source` that starts with `prefix`, or "".
std::string line_starting(const std::string& source, const std::string& prefix) {
  for (std::size_t start = 0; start < source.size();) {
    std::size_t end = source.find('\n', start);
    if (end == std::string::npos) end = source.size();
    if (source.compare(start, prefix.size(), prefix) == 0) return source.substr(start, end - start);
    start = end + 1;
  }
  return "";
}

// The kernel source to run: the generated one, or the request's edited copy of it, which
// must define the same kernel for the same launch configuration.
std::string kernel_to_run(const RunRequest& request, const EmittedKernel& emitted) {
  if (request.kernel_source.empty()) return emitted.source;
  const std::string& name = request.kernel_source_name.empty() ? std::string("the kernel source") : request.kernel_source_name;
  const std::string launch = line_starting(emitted.source, "// Launch:");
  const std::string given = line_starting(request.kernel_source, "// Launch:");
  if (!given.empty() && given != launch)
    throw UserError(fmt::format("{} was generated for another launch configuration:\n  it says   {}\n  this run: {}\n"
                                "compile and run with the same sizes and tile options",
                                name, given, launch));
  const std::string kernel = emitted.metadata.kernel;
  if (request.kernel_source.find(" " + kernel + "(") == std::string::npos)
    throw UserError(fmt::format("{} defines no kernel '{}' (the def's kernel)", name, kernel));
  return request.kernel_source;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

}  // namespace

RunReport run_program(const Program& program, const RunRequest& request) {
  if (!program.parameters.empty())
    throw UserError(fmt::format("def '{}': run needs every size bound; add `sizes` for {}", program.name,
                                fmt::join(program.parameters, ", ")));
  const Program& generated = request.kernel_program ? *request.kernel_program : program;
  CudaEmitRequest emit;
  emit.options = request.options;
  EmittedKernel emitted = emit_cuda(generated, emit);
  CompileOptions compile;
  compile.backend = request.backend;
  std::map<std::string, std::int64_t> sizes(generated.size_bindings.begin(), generated.size_bindings.end());
  LaunchMetadata metadata = emitted.metadata;
  CompiledKernel kernel = api::make_compiled_kernel(request.backend, kernel_to_run(request, emitted), metadata, sizes, compile);

  TensorData inputs = reference::random_tensors(program, request.seed);

  // Tensors in signature order (their encoded bytes), then the sizes left unbound.
  std::vector<const KernelParameter*> tensors;
  std::vector<Arg> size_args;
  for (const KernelParameter& p : metadata.parameters) {
    if (p.kind == KernelParameter::Kind::size) size_args.emplace_back(program.size_bindings.at(p.name));
    else tensors.push_back(&p);
  }
  std::vector<std::vector<unsigned char>> storage;
  for (const KernelParameter* p : tensors) storage.push_back(reference::encode_tensor(p->element, inputs.at(p->name)));

  RunReport report;
  report.flops = matmul_flops(program);
  if (request.backend == Backend::emu) {
    std::vector<Arg> args;
    for (auto& buffer : storage) args.push_back(Arg::buffer(buffer.data(), buffer.size()));
    args.insert(args.end(), size_args.begin(), size_args.end());
    kernel.run_on_host(args);
    const emu::Stats& stats = emu::last_stats();
    report.stats = stats.summary() + "\n" + stats.details();
  } else {
    std::vector<DeviceBuffer> device;
    std::vector<Arg> args;
    for (auto& buffer : storage) {
      device.emplace_back(buffer.size());
      device.back().upload(buffer.data(), buffer.size());
    }
    for (auto& buffer : device) args.push_back(Arg(buffer.data()));
    args.insert(args.end(), size_args.begin(), size_args.end());
    kernel.launch(args);  // warm-up, and the results checked below
    synchronize();
    for (size_t i = 0; i < storage.size(); ++i) device[i].download(storage[i].data(), storage[i].size());
    std::vector<double> times;
    for (int r = 0; r < request.repeats; ++r) {
      auto start = std::chrono::steady_clock::now();
      kernel.launch(args);
      synchronize();
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    report.median_ms = median(times);
    report.tflops = report.median_ms > 0 ? report.flops / (report.median_ms * 1e9) : 0;
  }
  TensorData actual = inputs;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i]->kind == KernelParameter::Kind::output)
      reference::decode_tensor(tensors[i]->element, storage[i], actual.at(tensors[i]->name));
  if (request.evaluate_reference) report.check = reference::check_outputs(program, inputs, actual);
  report.outputs = std::move(actual);
  return report;
}

}  // namespace polyfuse
