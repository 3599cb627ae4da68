#include "runtime/cpu/run_on_cpu.h"

#include <chrono>
#include <cstdio>
#include <cstring>

#include "codegen/cpu_emit.h"
#include "runtime/reference/element_rounding.h"

namespace polyfuse::cpu_runtime {
namespace {

// A tensor's storage as the generated code takes it: float, or 16-bit patterns.
double reduction_flops(const Program& program) {
  double flops = 0;
  for (const Statement& statement : program.statements) {
    if (!statement.is_reduction()) continue;
    double points = 1;
    for (const IterationIndex& index : statement.indices)
      points *= static_cast<double>(reference::bound_extent(program, index.extent));
    flops += 2 * points;
  }
  return flops;
}

}  // namespace

std::string RunReport::to_string() const {
  char time[96];
  if (flops > 0)
    std::snprintf(time, sizeof time, "time: %.3f ms (%.2f GFLOP/s)", seconds * 1e3, gflops());
  else
    std::snprintf(time, sizeof time, "time: %.3f ms", seconds * 1e3);
  return check.to_string() + "\n" + time;
}

RunReport run_on_cpu(const Program& program, std::uint64_t seed, const CpuRunOptions& options) {
  return run_source_on_cpu(program, emit_cpu(program, options.schedule), seed, options);
}

RunReport run_source_on_cpu(const Program& program, const std::string& source,
                            std::uint64_t seed, const CpuRunOptions& options) {
  const CpuModule module = CpuModule::load(source, cpu_entry_name(program.name), options.build);

  const reference::TensorData inputs = reference::random_tensors(program, seed);
  std::vector<std::vector<unsigned char>> buffers;  // each tensor in its element type
  std::vector<void*> pointers;
  std::vector<const Tensor*> parameters;
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role == TensorRole::temporary) continue;
    parameters.push_back(&tensor);
    buffers.push_back(reference::encode_tensor(tensor.type, inputs.at(tensor.name)));
  }
  for (std::vector<unsigned char>& buffer : buffers) pointers.push_back(buffer.data());

  const auto timed = [&] {
    const auto start = std::chrono::steady_clock::now();
    module(pointers.data());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  RunReport report;
  report.seconds = timed();
  reference::TensorData actual;
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i]->role == TensorRole::output) {
      std::vector<float>& values = actual[parameters[i]->name];
      values.resize(inputs.at(parameters[i]->name).size());
      reference::decode_tensor(parameters[i]->type, buffers[i], values);
    }
  report.check = reference::check_outputs(program, inputs, actual);
  for (int run = 0; run < options.timed_runs; ++run) {
    const double seconds = timed();
    report.seconds = run == 0 ? seconds : std::min(report.seconds, seconds);
  }
  report.flops = reduction_flops(program);
  report.library = module.library_path();
  report.cached = module.from_cache();
  report.build_seconds = module.build_seconds();
  return report;
}

}  // namespace polyfuse::cpu_runtime
