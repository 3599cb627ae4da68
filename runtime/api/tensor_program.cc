#include "polyfuse/tensor_program.h"

#include <fstream>
#include <sstream>

#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "runtime/api/autotune.h"
#include "runtime/api/compiled_kernel_factory.h"
#include "runtime/api/generate.h"

namespace polyfuse {

struct TensorProgram::Impl {
  std::string text;
  std::string name;
  std::map<std::string, std::int64_t> sizes;
  std::vector<std::string> defs;
};

TensorProgram TensorProgram::parse(std::string text, std::string name) {
  auto impl = std::make_shared<Impl>();
  impl->text = std::move(text);
  impl->name = std::move(name);
  impl->defs = api::summarize_source(impl->text, impl->name, {}).defs;
  return TensorProgram(std::move(impl));
}

TensorProgram TensorProgram::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SourceError("polyfuse: error: cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(std::move(text).str(), path);
}

TensorProgram& TensorProgram::bind(const std::string& size, std::int64_t value) {
  if (value < 1) throw SourceError("polyfuse: error: size " + size + " = " + std::to_string(value) + " must be at least 1");
  // Copy on write: programs copied before binding keep their sizes.
  if (impl_.use_count() > 1) impl_ = std::make_shared<Impl>(*impl_);
  impl_->sizes[size] = value;
  return *this;
}

TensorProgram& TensorProgram::bind(const std::map<std::string, std::int64_t>& sizes) {
  for (const auto& [name, value] : sizes) bind(name, value);
  return *this;
}

const std::map<std::string, std::int64_t>& TensorProgram::sizes() const { return impl_->sizes; }

std::vector<std::string> TensorProgram::defs() const { return impl_->defs; }

std::vector<std::string> TensorProgram::unbound_sizes(const std::string& def) const {
  return api::unbound_sizes(impl_->text, impl_->name, impl_->sizes, def);
}

std::vector<ParameterInfo> TensorProgram::signature(const std::string& def) const {
  std::vector<ParameterInfo> parameters;
  for (const KernelParameter& p : api::def_parameters(impl_->text, impl_->name, impl_->sizes, def))
    parameters.push_back(api::parameter_info(p));
  return parameters;
}

std::string TensorProgram::cuda_source(const CompileOptions& options, const std::string& def) const {
  return api::generate_cuda(impl_->text, impl_->name, impl_->sizes, def, options).source;
}

AutotuneReport TensorProgram::autotune(const CompileOptions& options, const std::string& def) const {
  const std::unique_ptr<api::CandidateTimer> timer = api::gpu_timer();
  return api::autotune(api::AutotuneRequest{impl_->text, impl_->name, impl_->sizes, def, options}, *timer,
                       cache::ArtifactCache::global());
}

CompiledKernel TensorProgram::compile(const CompileOptions& options, const std::string& def) const {
  if (options.autotune) return compile(autotune(options, def).chosen, def);
  if (options.backend == Backend::cpu) {
    api::GeneratedKernel generated = api::generate_cpu(impl_->text, impl_->name, impl_->sizes, def, options);
    return api::make_compiled_cpu(generated.source, std::move(generated.metadata), impl_->sizes);
  }
  api::GeneratedKernel generated = api::generate_cuda(impl_->text, impl_->name, impl_->sizes, def, options);
  if (generated.plan)
    return api::make_compiled_plan(options.backend, generated.source, std::move(*generated.plan), impl_->sizes, options);
  return api::make_compiled_kernel(options.backend, std::move(generated.source), std::move(generated.metadata),
                                   impl_->sizes, options, std::move(generated.plan_text));
}

}  // namespace polyfuse
