#include "runtime/api/run_program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "codegen/cpu_emit.h"
#include "codegen/cuda_emitter.h"
#include "codegen/cuda_plan.h"
#include "frontend/diagnostics.h"
#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "runtime/api/compiled_kernel_factory.h"
#include "runtime/api/generate.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/flops.h"

namespace polyfuse {
namespace {

using reference::TensorData;

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

// The source to build: the generated one, or the request's edited copy of it, which must
// be code for the request's target, define `entry` and be for the same launch configuration
// (CUDA: its "// Launch:" line) or thread count (CPU: its "// Threads:" line); then the
// request's edit, if any.
std::string source_to_run(const RunRequest& request, const std::string& generated, const std::string& entry) {
  std::string source = generated;
  if (!request.kernel_source.empty()) {
    const std::string& name =
        request.kernel_source_name.empty() ? std::string("the kernel source") : request.kernel_source_name;
    const bool cuda = request.kernel_source.find("__global__") != std::string::npos;
    if (request.target == Target::cpu && cuda)
      throw UserError(fmt::format("{} is a CUDA kernel; the CPU target runs the C++ of `emit=cpu`", name));
    if (request.target == Target::gpu && !cuda)
      throw UserError(fmt::format("{} defines no __global__ kernel; the GPU target runs the CUDA of `emit=cuda`", name));
    const std::string launch = line_starting(generated, "// Launch:");
    const std::string given = line_starting(request.kernel_source, "// Launch:");
    if (!given.empty() && given != launch)
      throw UserError(fmt::format("{} was generated for another launch configuration:\n  it says   {}\n  this run: {}\n"
                                  "compile and run with the same sizes and tile options",
                                  name, given, launch));
    // The CPU target's thread count is in the code (num_threads clauses, blocks evened out over
    // the threads): a file made for another count would run on it, not on this run's.
    const std::string threads = line_starting(generated, "// Threads:");
    const std::string given_threads = line_starting(request.kernel_source, "// Threads:");
    if (request.target == Target::cpu && !given_threads.empty() && given_threads != threads)
      throw UserError(fmt::format("{} was generated for another thread count:\n  it says   {}\n  this run: {}\n"
                                  "compile and run with the same --threads",
                                  name, given_threads, threads));
    if (request.kernel_source.find(" " + entry + "(") == std::string::npos)
      throw UserError(fmt::format("{} defines no kernel '{}' (the def's kernel)", name, entry));
    source = request.kernel_source;
  }
  return request.edit_kernel_source ? request.edit_kernel_source(source) : source;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

// Milliseconds `body` takes.
template <class F> double milliseconds(F&& body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// What running one target's code gave, before the check.
struct Execution {
  TensorData outputs;  // every tensor: the inputs, and the outputs as the code left them
  LaunchStats stats;
  std::vector<double> times_ms;
  std::string library;
  bool cached = false;
};

// The CompiledKernel of `program` through the public API: one fused kernel (generated from
// request.kernel_program when given), or the kernels of its plan.
CompiledKernel build_gpu(const Program& program, const ProgramPlan& plan, const RunRequest& request) {
  CudaEmitRequest emit;
  emit.options = request.options;
  emit.dumps = request.dumps;
  CompileOptions compile;
  compile.backend = request.backend;
  if (!plan.is_single_fused_kernel()) {
    const EmittedPlan emitted = emit_cuda_plan(program, plan, emit);
    const std::map<std::string, std::int64_t> sizes(program.size_bindings.begin(), program.size_bindings.end());
    return api::make_compiled_plan(request.backend,
                                   source_to_run(request, emitted.source, emitted.kernels.front().kernel),
                                   api::plan_parts(program, plan, emitted), sizes, compile);
  }
  const Program& generated = request.kernel_program ? *request.kernel_program : program;
  const std::shared_ptr<EmittedKernel> memo = request.kernel_program ? request.kernel_program_emitted : nullptr;
  if (memo && memo->source.empty()) *memo = emit_cuda(generated, emit);
  const EmittedKernel emitted = memo ? *memo : emit_cuda(generated, emit);
  std::map<std::string, std::int64_t> sizes(generated.size_bindings.begin(), generated.size_bindings.end());
  const std::string source = source_to_run(request, emitted.source, emitted.metadata.kernel);
  return api::make_compiled_kernel(request.backend, source, emitted.metadata, sizes, compile);
}

// The generated CUDA kernel (or a plan's kernels, for a def that is not one fused kernel) on
// the emulator or a GPU, through the public API.
Execution run_gpu(const Program& program, const RunRequest& request, const TensorData& inputs) {
  const ProgramPlan plan = plan_program(program, recognize_idioms(program), request.options.f32_matmul);
  const CompiledKernel kernel = build_gpu(program, plan, request);
  const std::vector<KernelParameter> parameters =
      kernel_parameters(request.kernel_program && plan.is_single_fused_kernel() ? *request.kernel_program : program);

  // Tensors in signature order (their encoded bytes), then the sizes left unbound.
  std::vector<const KernelParameter*> tensors;
  std::vector<Arg> size_args;
  for (const KernelParameter& p : parameters) {
    if (p.kind == KernelParameter::Kind::size) size_args.emplace_back(program.size_bindings.at(p.name));
    else tensors.push_back(&p);
  }
  std::vector<std::vector<unsigned char>> storage;
  for (const KernelParameter* p : tensors) storage.push_back(reference::encode_tensor(p->element, inputs.at(p->name)));

  Execution run;
  run.cached = kernel.cache_status() == CacheStatus::memory_hit || kernel.cache_status() == CacheStatus::disk_hit;
  if (request.backend == Backend::emu) {
    std::vector<Arg> args;
    for (auto& buffer : storage) args.push_back(Arg::buffer(buffer.data(), buffer.size()));
    args.insert(args.end(), size_args.begin(), size_args.end());
    run.stats = kernel.run_on_host(args);
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
    for (int r = 0; r < request.repeats; ++r)
      run.times_ms.push_back(milliseconds([&] {
        kernel.launch(args);
        synchronize();
      }));
  }
  run.outputs = inputs;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i]->kind == KernelParameter::Kind::output)
      reference::decode_tensor(tensors[i]->element, storage[i], run.outputs.at(tensors[i]->name));
  return run;
}

// The CPU target's C++, built into a shared object (runtime/cpu) and called on the
// tensors in the order of the def's signature.
Execution run_cpu(const Program& program, const RunRequest& request, const TensorData& inputs) {
  const std::string entry = cpu_entry_name(program.name);
  const cpu_runtime::CpuModule module = cpu_runtime::CpuModule::load(
      source_to_run(request, emit_cpu(program, request.cpu_schedule), entry), entry, request.cpu_build);
  std::vector<std::vector<unsigned char>> buffers;  // each tensor in its element type
  std::vector<void*> pointers;
  std::vector<const Tensor*> parameters;
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role == TensorRole::temporary) continue;
    parameters.push_back(&tensor);
    buffers.push_back(reference::encode_tensor(tensor.type, inputs.at(tensor.name)));
  }
  for (std::vector<unsigned char>& buffer : buffers) pointers.push_back(buffer.data());

  Execution run;
  module(pointers.data());  // the checked run
  run.outputs = inputs;
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i]->role == TensorRole::output)
      reference::decode_tensor(parameters[i]->type, buffers[i], run.outputs.at(parameters[i]->name));
  for (int r = 0; r < request.repeats; ++r) run.times_ms.push_back(milliseconds([&] { module(pointers.data()); }));
  run.library = module.library_path();
  run.cached = module.from_cache();
  return run;
}

}  // namespace

const char* to_string(Target target) { return target == Target::gpu ? "gpu" : "cpu"; }

RunReport run_program(const Program& program, const RunRequest& request) {
  if (!program.parameters.empty())
    throw UserError(fmt::format("def '{}': run needs every size bound; add `sizes` for {}", program.name,
                                fmt::join(program.parameters, ", ")));
  const TensorData inputs = reference::random_tensors(program, request.seed, request.input_ranges);
  Execution run = request.target == Target::cpu ? run_cpu(program, request, inputs) : run_gpu(program, request, inputs);
  RunReport report;
  report.stats = std::move(run.stats);
  report.median_ms = median(run.times_ms);
  report.timed_runs = static_cast<int>(run.times_ms.size());
  report.flops = reference::reduction_flops(program);
  report.library = std::move(run.library);
  report.cached = run.cached;
  // The GPU path may run f32 matmuls on tensor cores (TF32, 3xTF32): the check bounds that mode.
  const F32Matmul f32 = request.target == Target::gpu ? request.options.f32_matmul : F32Matmul::f32;
  // FP8 wgmma on a real Hopper accumulates with fewer bits than f32 (error_bound.h); the
  // emulator's sums are f32.
  const reference::Fp8Accumulation fp8 = request.target == Target::gpu && request.backend == Backend::cuda
                                              ? reference::Fp8Accumulation::hopper
                                              : reference::Fp8Accumulation::f32;
  if (request.evaluate_reference) report.check = reference::check_outputs(program, inputs, run.outputs, f32, fp8);
  report.outputs = std::move(run.outputs);
  return report;
}

}  // namespace polyfuse
