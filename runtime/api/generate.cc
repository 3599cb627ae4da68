#include "runtime/api/generate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <isl/cpp.h>

#include <algorithm>
#include <optional>

#include "codegen/cpu_emit.h"
#include "codegen/cpu_names.h"
#include "codegen/cuda_emitter.h"
#include "schedule/program_plan.h"
#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "frontend/parser.h"
#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "schedule/cpu_target.h"
#include "schedule/gpu_options.h"

namespace polyfuse::api {
namespace {

SizeBindings to_bindings(const Sizes& sizes) {
  SizeBindings bindings;
  for (const auto& [name, value] : sizes) bindings.emplace(name, value);
  return bindings;
}

// Runs `body`, turning compiler exceptions into public ones (rendered against `text`).
template <class F> auto translating_errors(const std::string& text, F&& body) {
  try {
    return body();
  } catch (const UserError& e) {
    throw SourceError(render_diagnostics(e.diagnostics(), text));
  } catch (const InternalError& e) {
    throw Error(std::string("polyfuse: internal error: ") + e.what());
  } catch (const isl::exception& e) {
    throw Error(std::string("polyfuse: internal error (isl): ") + e.what());
  }
}

// Whether every diagnostic of `e` says that sizes must be bound: a size used as a value
// (`x(m, n) / N`) that is unbound, or an index range inferred from several sizes (`h + r`
// inside I: 0..H - R). The def is fine until the sizes are bound (TensorProgram::bind, or by a
// caller from the arrays it is given), and its declarations say what it takes.
bool only_unbound_value_sizes(const UserError& e) {
  for (const Diagnostic& d : e.diagnostics())
    if (d.message.find("is used as a value, which needs its value at compile time") == std::string::npos &&
        d.message.find("(bind the sizes it depends on") == std::string::npos)
      return false;
  return true;
}

// The parameters of `def` read from its declarations alone (the parser's syntax tree):
// tensors in signature order, a dimension bound in `sizes` as its value, then the sizes left
// unbound in order of appearance. nullopt when an output takes its shape from its first write.
std::optional<std::vector<KernelParameter>> declared_parameters(const std::string& text, const std::string& name,
                                                               const Sizes& sizes, const std::string& def) {
  DiagnosticSink sink(name);
  const ast::File file = parse(text, sink);
  for (const ast::Def& d : file.defs) {
    if (!def.empty() && d.name != def) continue;
    std::vector<KernelParameter> parameters;
    std::vector<std::string> unbound;
    const auto add = [&](const std::vector<ast::Param>& params, KernelParameter::Kind kind) {
      for (const ast::Param& param : params) {
        KernelParameter p;
        p.name = param.name;
        p.kind = kind;
        p.element = param.type;
        for (const ast::SizeRef& size : param.dims) {
          const auto bound = sizes.find(size.name);
          if (size.name.empty()) p.shape.push_back(std::to_string(size.value));
          else if (bound != sizes.end()) p.shape.push_back(std::to_string(bound->second));
          else p.shape.push_back(size.name);
          if (!size.name.empty() && bound == sizes.end() &&
              std::find(unbound.begin(), unbound.end(), size.name) == unbound.end())
            unbound.push_back(size.name);
        }
        parameters.push_back(std::move(p));
        if (param.inferred) return false;
      }
      return true;
    };
    if (!add(d.inputs, KernelParameter::Kind::input) || !add(d.outputs, KernelParameter::Kind::output)) return std::nullopt;
    for (const std::string& size : unbound) parameters.push_back(KernelParameter{size, KernelParameter::Kind::size, {}, {}, "int", {}});
    return parameters;
  }
  return std::nullopt;
}

// Refuses the options that only the GPU path has, naming the first one set.
void refuse_gpu_options(const CompileOptions& options) {
  const std::pair<bool, const char*> set[] = {
      {options.arch.has_value(), "arch"},    {options.block.has_value(), "block"}, {options.warp.has_value(), "warp"},
      {options.mma.has_value(), "mma"},      {options.split_k != 0, "split_k"},    {options.stages != 0, "stages"},
      {options.group.has_value(), "group"},  {options.fast_math, "fast_math"},     {options.line_info, "line_info"},
      {options.f32_matmul.has_value(), "f32_matmul"}, {options.cluster.has_value(), "cluster"},
      {options.consumer_schedule.has_value(), "consumer_schedule"}};
  for (const auto& [is_set, option] : set)
    if (is_set)
      throw UserError(fmt::format("CompileOptions::{} has no meaning for Backend::cpu (the CPU target has its own "
                                  "blocking and builds with the system compiler)",
                                  option));
}

GpuOptions gpu_options(const CompileOptions& options) {
  return gpu_options_from_choices(GpuChoices{options.arch.value_or(default_arch()), options.block, options.warp,
                                             options.mma, options.split_k, options.stages, options.group,
                                             options.consumer_schedule, options.f32_matmul.value_or(F32Matmul::tf32),
                                             options.cluster.value_or(ClusterShape{})});
}

}  // namespace

const Program& select_def(const FrontendResult& result, const std::string& def, const std::string& source_name) {
  if (result.programs.empty()) throw UserError(source_name + ": the source defines no def");
  if (def.empty()) return result.programs.front();
  std::vector<std::string> names;
  for (const Program& p : result.programs) {
    if (p.name == def) return p;
    names.push_back(p.name);
  }
  throw UserError(fmt::format("`def` {}: {} has no def of that name (it has: {})", def, source_name, fmt::join(names, ", ")));
}

SourceSummary summarize_source(const std::string& text, const std::string& name, const Sizes& sizes) {
  return translating_errors(text, [&] {
    SourceSummary summary;
    try {
      for (const Program& p : compile_source(SourceFile{name, text}, to_bindings(sizes)).programs)
        summary.defs.push_back(p.name);
    } catch (const UserError& e) {
      if (!only_unbound_value_sizes(e)) throw;
      DiagnosticSink sink(name);
      for (const ast::Def& d : parse(text, sink).defs) summary.defs.push_back(d.name);
    }
    return summary;
  });
}

std::vector<std::string> unbound_sizes(const std::string& text, const std::string& name, const Sizes& sizes,
                                       const std::string& def) {
  std::vector<std::string> names;
  for (const KernelParameter& p : def_parameters(text, name, sizes, def))
    if (p.kind == KernelParameter::Kind::size) names.push_back(p.name);
  return names;
}

std::vector<KernelParameter> def_parameters(const std::string& text, const std::string& name, const Sizes& sizes,
                                            const std::string& def) {
  return translating_errors(text, [&] {
    try {
      const FrontendResult result = compile_source(SourceFile{name, text}, to_bindings(sizes));
      return kernel_parameters(select_def(result, def, name));
    } catch (const UserError& e) {
      if (!only_unbound_value_sizes(e)) throw;
      std::optional<std::vector<KernelParameter>> declared = declared_parameters(text, name, sizes, def);
      if (!declared) throw;
      return *declared;
    }
  });
}

PlanParts plan_parts(const Program& program, const ProgramPlan& plan, const EmittedPlan& emitted) {
  PlanParts parts;
  parts.signature.kernel = emitted.sidecar.at("launcher").get<std::string>();
  parts.signature.launcher = parts.signature.kernel;
  parts.signature.arch = emitted.kernels.front().arch;
  parts.signature.parameters = kernel_parameters(program);
  for (GridDimension& g : parts.signature.grid) g = GridDimension{1, "1"};
  parts.kernels = emitted.kernels;
  parts.temporaries = plan.temporaries;
  parts.workspace_bytes = plan.workspace_bytes;
  parts.text = to_string(plan, program);
  parts.sidecar = emitted.sidecar;
  return parts;
}

GeneratedKernel generate_cuda(const std::string& text, const std::string& name, const Sizes& sizes,
                              const std::string& def, const CompileOptions& options) {
  return translating_errors(text, [&] {
    if (options.threads)
      throw UserError(fmt::format("CompileOptions::threads is an option of the CPU target (Backend::cpu), not of "
                                  "Backend::{}",
                                  to_string(options.backend)));
    if (!options.constant_inputs.empty())
      throw UserError(fmt::format("CompileOptions::constant_inputs is an option of the CPU target (Backend::cpu), "
                                  "not of Backend::{}",
                                  to_string(options.backend)));
    if (options.cpu_block)
      throw UserError(fmt::format("CompileOptions::cpu_block is an option of the CPU target (Backend::cpu), not of "
                                  "Backend::{}",
                                  to_string(options.backend)));
    if (options.min_parallel_flops)
      throw UserError(fmt::format("CompileOptions::min_parallel_flops is an option of the CPU target (Backend::cpu), "
                                  "not of Backend::{}",
                                  to_string(options.backend)));
    const FrontendResult result = compile_source(SourceFile{name, text}, to_bindings(sizes));
    const Program& program = select_def(result, def, name);
    CudaEmitRequest request;
    request.options = gpu_options(options);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program), request.options.f32_matmul);
    GeneratedKernel generated;
    generated.plan_text = to_string(plan, program);
    if (!plan.is_single_fused_kernel()) {
      EmittedPlan emitted = emit_cuda_plan(program, plan, request);
      generated.plan = plan_parts(program, plan, emitted);
      generated.source = std::move(emitted.source);
      return generated;
    }
    EmittedKernel emitted = emit_cuda(program, request);
    generated.source = std::move(emitted.source);
    generated.metadata = std::move(emitted.metadata);
    return generated;
  });
}

GeneratedKernel generate_cpu(const std::string& text, const std::string& name, const Sizes& sizes,
                             const std::string& def, const CompileOptions& options) {
  return translating_errors(text, [&] {
    refuse_gpu_options(options);
    if (options.threads && *options.threads < 1)
      throw UserError(fmt::format("CompileOptions::threads = {} must be at least 1 (unset: every core)",
                                  *options.threads));
    if (options.cpu_block && (options.cpu_block->m < 1 || options.cpu_block->n < 1 || options.cpu_block->k < 1))
      throw UserError(fmt::format("CompileOptions::cpu_block = {} must be three positive integers (unset: from the caches)",
                                  to_string(*options.cpu_block)));
    if (options.min_parallel_flops && *options.min_parallel_flops < 0)
      throw UserError(fmt::format("CompileOptions::min_parallel_flops = {} must be at least 0 (unset: 2^23)",
                                  *options.min_parallel_flops));
    CpuScheduleOptions schedule{.target = detect_cpu_target(),
                                .blocking = {},
                                .threads = options.threads.value_or(0),
                                .constant_inputs = options.constant_inputs};
    if (options.cpu_block) schedule.blocking = CpuBlocking{options.cpu_block->m, options.cpu_block->n, options.cpu_block->k};
    if (options.min_parallel_flops) schedule.min_parallel_flops = *options.min_parallel_flops;
    const FrontendResult result = compile_source(SourceFile{name, text}, to_bindings(sizes));
    const Program& program = select_def(result, def, name);
    GeneratedKernel generated;
    generated.source = emit_cpu(program, schedule);
    generated.metadata.kernel = cpu_entry_name(program.name);
    generated.metadata.arch = "cpu";
    generated.metadata.parameters = kernel_parameters(program);
    for (KernelParameter& p : generated.metadata.parameters)
      p.c_type = (p.kind == KernelParameter::Kind::input ? "const " : "") +
                 cxx_element_type(p.element) + "*";
    for (GridDimension& g : generated.metadata.grid) g = GridDimension{1, "1"};
    return generated;
  });
}

int element_bytes(const LaunchMetadata& metadata, std::size_t index) {
  return size_in_bytes(metadata.parameters.at(index).element);
}

}  // namespace polyfuse::api
