#include "runtime/api/generate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <isl/cpp.h>

#include "codegen/cuda_emitter.h"
#include "schedule/program_plan.h"
#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "polyfuse/device.h"
#include "polyfuse/errors.h"
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

GpuOptions gpu_options(const CompileOptions& options) {
  return gpu_options_from_choices(GpuChoices{options.arch.value_or(default_arch()), options.block, options.warp,
                                             options.mma, options.split_k, options.stages, options.group,
                                             options.consumer_schedule});
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
    const FrontendResult result = compile_source(SourceFile{name, text}, to_bindings(sizes));
    SourceSummary summary;
    for (const Program& p : result.programs) {
      summary.defs.push_back(p.name);
    }
    return summary;
  });
}

std::vector<std::string> unbound_sizes(const std::string& text, const std::string& name, const Sizes& sizes,
                                       const std::string& def) {
  return translating_errors(text, [&] {
    const FrontendResult result = compile_source(SourceFile{name, text}, to_bindings(sizes));
    return select_def(result, def, name).parameters;
  });
}

GeneratedKernel generate_cuda(const std::string& text, const std::string& name, const Sizes& sizes,
                              const std::string& def, const CompileOptions& options) {
  return translating_errors(text, [&] {
    const FrontendResult result = compile_source(SourceFile{name, text}, to_bindings(sizes));
    const Program& program = select_def(result, def, name);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program));
    if (!plan.is_single_fused_kernel())
      throw UserError(fmt::format("def '{}' is not one fused kernel but a plan of {} kernel{} (polyfuse compile "
                                  "--emit=plan shows it); the runtime API compiles and launches one fused kernel so "
                                  "far: polyfuse run and polyfuse compile --emit=cuda handle plans",
                                  program.name, plan.kernels.size(), plan.kernels.size() == 1 ? "" : "s"));
    CudaEmitRequest request;
    request.options = gpu_options(options);
    EmittedKernel emitted = emit_cuda(program, request);
    return GeneratedKernel{std::move(emitted.source), std::move(emitted.metadata)};
  });
}

int element_bytes(const LaunchMetadata& metadata, std::size_t index) {
  return size_in_bytes(metadata.parameters.at(index).element);
}

}  // namespace polyfuse::api
