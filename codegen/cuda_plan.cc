#include "codegen/cuda_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/attention_kernel.h"
#include "codegen/back_to_back_kernel.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/cuda_memory_kernel.h"
#include "codegen/implicit_gemm_kernel.h"
#include "codegen/tensor_identifiers.h"
#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

// `text` with every line a `// ` comment.
std::string commented(const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += "// " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// The C type of a pointer to `tensor` as the plan's launcher takes it.
std::string pointer_type(const Tensor& tensor) {
  return (tensor.role == TensorRole::input ? "const " : "") + cuda_type(tensor.type) + "*";
}

// The host launcher of the whole plan: each kernel in order on `stream`.
std::string plan_launcher(const Program& program, const ProgramPlan& plan, const std::vector<LaunchMetadata>& kernels) {
  for (const LaunchMetadata& m : kernels)
    if (m.launcher.empty())
      return fmt::format("// No host launcher for the plan: kernel {} takes tensor maps that the polyfuse runtime "
                         "encodes (runtime/tma).\n",
                         m.kernel);
  std::vector<std::string> parameters;
  for (const Tensor& t : program.tensors)
    if (t.role != TensorRole::temporary) parameters.push_back(pointer_type(t) + " " + t.name);
  std::string text = "#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)\n";
  text += fmt::format("// Host launcher of the plan: {} kernels in order on `stream`; `workspace` holds {} bytes of "
                      "temporaries.\n",
                      kernels.size(), plan.workspace_bytes);
  text += fmt::format("extern \"C\" cudaError_t polyfuse_launch_{}({}, void* workspace, cudaStream_t stream) {{\n",
                      program.name, fmt::join(parameters, ", "));
  text += "  char* const bytes = static_cast<char*>(workspace);\n";
  if (plan.temporaries.empty()) text += "  (void)bytes;\n";
  for (const PlanTemporary& t : plan.temporaries)
    text += fmt::format("  {0}* const {1} = reinterpret_cast<{0}*>(bytes + {2});\n", cuda_type(t.type), t.tensor,
                        t.offset);
  text += "  cudaError_t status = cudaSuccess;\n";
  for (const LaunchMetadata& m : kernels) {
    std::vector<std::string> arguments;
    for (const KernelParameter& p : m.parameters) arguments.push_back(p.name);
    text += fmt::format("  status = {}({}, stream);\n", m.launcher, fmt::join(arguments, ", "));
    text += "  if (status != cudaSuccess) return status;\n";
  }
  text += "  return cudaSuccess;\n}\n#endif\n";
  return text;
}

// The host launcher of one memory-bound kernel.
std::string memory_kernel_launcher(const LaunchMetadata& m) {
  std::vector<std::string> parameters, names;
  for (const KernelParameter& p : m.parameters) {
    parameters.push_back(p.c_type + " " + p.name);
    names.push_back(p.name);
  }
  return fmt::format("#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)\n"
                     "extern \"C\" cudaError_t {}({}, cudaStream_t stream) {{\n"
                     "  {}<<<dim3({}), dim3({}), {}, stream>>>({});\n"
                     "  return cudaGetLastError();\n}}\n#endif\n",
                     m.launcher, fmt::join(parameters, ", "), m.kernel, m.grid[0].expression, m.block[0],
                     m.dynamic_shared_bytes, fmt::join(names, ", "));
}

}  // namespace

EmittedPlan emit_cuda_plan(const Program& program, const ProgramPlan& plan, const CudaEmitRequest& request) {
  PF_INTERNAL_CHECK(!plan.is_single_fused_kernel(), "a single fused kernel is emit_cuda's");
  EmittedPlan emitted;
  std::string kernels_text;
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const Program reduced = kernel_program(program, plan, k);
    EmittedKernel kernel;
    if (plan.kernels[k].kind == PlannedKernelKind::fused_matmul) {
      CudaEmitRequest fused = request;
      fused.helpers = CudaEmitRequest::Helpers::omit;
      kernel = emit_cuda(reduced, fused);
    } else if (plan.kernels[k].kind == PlannedKernelKind::implicit_gemm) {
      // renames clashing tensors itself, in the program and in the plan's view alike
      kernel = emit_implicit_gemm_kernel(program, plan.kernels[k], request.options);
    } else if (plan.kernels[k].kind == PlannedKernelKind::back_to_back) {
      kernel = emit_with_distinct_tensor_names(reduced, "", [&](const Program& p) {
        return emit_back_to_back_kernel(p, plan.kernels[k].name, plan.kernels[k].statements, request.options);
      });
    } else if (plan.kernels[k].kind == PlannedKernelKind::attention) {
      kernel = emit_with_distinct_tensor_names(reduced, "", [&](const Program& p) {
        return emit_attention_kernel(p, plan.kernels[k].name, plan.kernels[k].statements, request.options);
      });
    } else {
      kernel = emit_memory_kernel(reduced, plan.kernels[k].kind, program.name, request.options.arch);
      kernel.source += '\n';
      kernel.source += memory_kernel_launcher(kernel.metadata);
    }
    kernels_text += fmt::format("// ==== kernel {} of {}: {} ({}) ====\n", k, plan.kernels.size(), kernel.metadata.kernel,
                                to_string(plan.kernels[k].kind));
    kernels_text += kernel.source + "\n";
    emitted.kernels.push_back(kernel.metadata);
  }
  std::string& s = emitted.source;
  s += fmt::format("// Generated by polyfuse from def '{}' ({}): a plan of {} kernels. Do not edit.\n", program.name,
                   program.file, plan.kernels.size());
  s += commented(to_string(plan, program));
  s += '\n';
  s += cuda_helpers_text(request.helpers);
  s += kernels_text;
  s += plan_launcher(program, plan, emitted.kernels);
  nlohmann::json& j = emitted.sidecar;
  j["plan"] = program.name;
  j["launcher"] = s.find("cudaError_t polyfuse_launch_" + program.name + "(") != std::string::npos
                      ? "polyfuse_launch_" + program.name
                      : "";
  j["kernels"] = nlohmann::json::array();
  for (const LaunchMetadata& m : emitted.kernels) j["kernels"].push_back(m.kernel);
  j["workspace_bytes"] = plan.workspace_bytes;
  j["temporaries"] = nlohmann::json::array();
  for (const PlanTemporary& t : plan.temporaries)
    j["temporaries"].push_back({{"name", t.tensor}, {"offset", t.offset}, {"bytes", t.bytes}});
  return emitted;
}

}  // namespace polyfuse
