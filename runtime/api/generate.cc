#include "runtime/api/generate.h"

#include <isl/cpp.h>

#include "codegen/cuda_emitter.h"
#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
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

const Program& find_def(const FrontendResult& result, const std::string& def, const std::string& name) {
  if (result.programs.empty()) throw SourceError(name + ": the source defines no def");
  if (def.empty()) return result.programs.front();
  for (const Program& p : result.programs)
    if (p.name == def) return p;
  std::string known;
  for (const Program& p : result.programs) known += (known.empty() ? "'" : ", '") + p.name + "'";
  throw SourceError(name + ": no def '" + def + "' (the file defines " + known + ")");
}

GpuOptions gpu_options(const std::string& arch, const CompileOptions& options) {
  return gpu_options_from_text(GpuOptionText{arch, options.block, options.warp, options.mma, options.split_k, options.stages});
}

}  // namespace

SourceSummary summarize_source(const std::string& text, const std::string& name, const Sizes& sizes) {
  return translating_errors(text, [&] {
    const FrontendResult result = compile_source(SourceFile{name, text}, to_bindings(sizes));
    SourceSummary summary;
    for (const Program& p : result.programs) {
      summary.defs.push_back(p.name);
      summary.unbound_sizes[p.name] = p.parameters;
    }
    return summary;
  });
}

GeneratedKernel generate_cuda(const std::string& text, const std::string& name, const Sizes& sizes,
                              const std::string& def, const std::string& arch, const CompileOptions& options) {
  return translating_errors(text, [&] {
    const FrontendResult result = compile_source(SourceFile{name, text}, to_bindings(sizes));
    const Program& program = find_def(result, def, name);
    CudaEmitRequest request;
    request.options = gpu_options(arch, options);
    EmittedKernel emitted = emit_cuda(program, request);
    return GeneratedKernel{std::move(emitted.source), std::move(emitted.metadata)};
  });
}

int element_bytes(const LaunchMetadata& metadata, std::size_t index) {
  return size_in_bytes(metadata.parameters.at(index).element);
}

}  // namespace polyfuse::api
