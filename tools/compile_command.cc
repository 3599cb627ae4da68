// `polyfuse compile`: runs the compiler on a .tc file and prints the requested stage.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "frontend/dependences.h"
#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "frontend/idioms.h"
#include "frontend/ir_printer.h"
#include "codegen/cpu_emit.h"
#include "codegen/cuda_emitter.h"
#include "schedule/cpu_plan.h"
#include "schedule/cpu_target.h"
#include "polyfuse/compiled_kernel.h"
#include "runtime/api/compiled_kernel_factory.h"
#include "tools/cli_spelling.h"
#include "tools/command.h"
#include "tools/gpu_flags.h"

namespace polyfuse::tools {
namespace {

// Every stage --emit documents; only those in `implemented` work yet.
const std::vector<std::string> emit_stages = {"ir", "schedule", "ast", "cuda", "cpu"};
const std::vector<std::string> implemented = {"ir", "schedule", "ast", "cuda", "cpu"};

struct CompileOptions {
  GpuFlags gpu;
  std::string target = "gpu";
  std::string input;
  std::vector<std::string> defines;
  std::string emit = "ir";
  std::string output;
  std::string cubin;
  std::string def;
};

// Writes `bytes` to `path` (UserError if it cannot).
void write_file(const std::string& path, const void* bytes, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
  out.close();
  if (!out) throw UserError(fmt::format("cannot write {}", quote_name(path)));
}

// `--cubin OUT`: the selected def's kernel compiled by NVRTC for --arch (through the
// cache), its cubin written to OUT.
void write_cubin(const FrontendResult& result, const CompileOptions& options) {
  const Program* program = nullptr;
  for (const Program& p : result.programs)
    if (options.def.empty() || p.name == options.def) {
      if (program != nullptr) throw UserError("--cubin: the file has several defs; choose one with --def");
      program = &p;
    }
  CudaEmitRequest request;
  request.options = gpu_options(options.gpu);
  EmittedKernel kernel = emit_cuda(*program, request);
  std::map<std::string, std::int64_t> sizes(program->size_bindings.begin(), program->size_bindings.end());
  CompiledKernel compiled = api::make_compiled_kernel(Backend::cuda, kernel.source, kernel.metadata, sizes, {});
  write_file(options.cubin, compiled.cubin().data(), compiled.cubin().size());
}

// The text of the selected defs at the requested stage. CUDA: one file, the helpers
// embedded once, one kernel and launcher per def.
std::string emit_stage(const FrontendResult& result, const CompileOptions& options,
                       std::vector<LaunchMetadata>& kernels) {
  bool cpu = options.target == "cpu" || options.emit == "cpu";
  if (cpu && (options.emit == "ast" || options.emit == "cuda"))
    throw UserError(fmt::format("--emit={} is a stage of the GPU path; with --target=cpu use ir, schedule or cpu", options.emit));
  GpuOptions gpu = options.emit == "ir" || cpu ? GpuOptions{} : gpu_options(options.gpu);
  CpuScheduleOptions cpu_options;
  cpu_options.target = detect_cpu_target();
  std::string text;
  bool first = true;
  for (const Program& program : result.programs) {
    if (!options.def.empty() && program.name != options.def) continue;
    if (options.emit == "ir") {
      text += (text.empty() ? "" : "\n") + print_program(program);
    } else if (options.emit == "schedule" && cpu) {
      text += to_string(plan_cpu(program, cpu_options));
    } else if (options.emit == "cpu") {
      text += emit_cpu(program, cpu_options);
    } else if (options.emit == "schedule") {
      text += emit_schedule_text(program, gpu);
    } else if (options.emit == "ast") {
      text += emit_ast_text(program, gpu);
    } else if (options.emit == "cuda") {
      CudaEmitRequest request;
      request.options = gpu;
      request.dumps = PassDumps{options.gpu.dump_after, &std::cerr};
      request.helpers = first ? CudaEmitRequest::Helpers::embed : CudaEmitRequest::Helpers::omit;
      EmittedKernel kernel = emit_cuda(program, request);
      text += (first ? "" : "\n") + kernel.source;
      kernels.push_back(kernel.metadata);
    }
    first = false;
  }
  return text;
}

int run_compile(const CompileOptions& options) {
  if (std::find(implemented.begin(), implemented.end(), options.emit) == implemented.end())
    throw UserError(fmt::format("--emit={} is not implemented yet (available: ir, schedule, ast, cuda, cpu)", options.emit));
  SizeBindings sizes;
  for (const std::string& define : options.defines) add_size_binding(sizes, define);
  SourceFile source = read_source_file(options.input);
  FrontendResult result;
  try {
    result = compile_source(source, sizes);
  } catch (const UserError& error) {
    std::cerr << render_diagnostics(error.diagnostics(), source.text, cli_spelling);
    return exit_user_error;
  }
  std::cerr << render_diagnostics(result.warnings, source.text, cli_spelling);
  if (!options.def.empty()) {
    std::vector<std::string> names;
    for (const Program& program : result.programs) names.push_back(program.name);
    if (std::find(names.begin(), names.end(), options.def) == names.end())
      throw UserError(fmt::format("--def {}: {} has no def of that name (it has: {})",
                                  options.def, source.name, fmt::join(names, ", ")));
  }
  std::string text;
  std::vector<LaunchMetadata> kernels;
  try {
    if (!options.cubin.empty()) {
      write_cubin(result, options);
      return exit_success;
    }
    text = emit_stage(result, options, kernels);
  } catch (const UserError& error) {
    std::cerr << render_diagnostics(error.diagnostics(), source.text, cli_spelling);
    return exit_user_error;
  }
  if (options.output.empty() || options.output == "-") {
    std::cout << text << std::flush;
    return exit_success;
  }
  write_file(options.output, text.data(), text.size());
  if (!kernels.empty()) {  // the sidecar: out.cu -> out.json
    nlohmann::json sidecar = nlohmann::json::array();
    for (const LaunchMetadata& metadata : kernels) sidecar.push_back(to_json(metadata));
    std::string json = sidecar.dump(2) + "\n";
    std::string path = std::filesystem::path(options.output).replace_extension(".json").string();
    write_file(path, json.data(), json.size());
  }
  return exit_success;
}

}  // namespace

Command add_compile_command(CLI::App& parent) {
  auto options = std::make_shared<CompileOptions>();
  CLI::App* app = parent.add_subcommand(
      "compile", "Compile a .tc file and print the result of a stage (--emit).");
  app->add_option("file", options->input, "The .tc source file")->required();
  app->add_option("-D,--define", options->defines,
                  "Bind a size: -D NAME=VALUE (VALUE an integer >= 1). Repeat for several "
                  "sizes; unbound sizes stay symbolic (isl parameters). A size that no def "
                  "uses gets a warning.")
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  app->add_option("--emit", options->emit,
                  "Stage to print: ir (polyhedral IR: domains, accesses, expression trees, "
                  "dependences, idioms), schedule (the GPU schedule tree after every pass), ast "
                  "(isl's AST of the kernel), cuda (a self-contained .cu: kernel, host launcher), cpu (C++ "
                  "calling the kernels/cpu primitives; implies --target=cpu). With --target=cpu, schedule is "
                  "the CPU loop nest.")
      ->check(CLI::IsMember(emit_stages))
      ->capture_default_str();
  app->add_option("-o,--output", options->output,
                  "Write the output to this file instead of stdout; with --emit=cuda also the JSON sidecar "
                  "(OUT with .json: kernels, grid, block, dynamic shared memory, parameters)");
  app->add_option("--cubin", options->cubin,
                  "Compile the kernel with NVRTC for --arch (through the cache) and write its cubin to this file")
      ->type_name("OUT");
  app->add_option("--def", options->def,
                  "Print only the def with this name (default: every def of the file, in order)");
  app->add_option("--target", options->target, "gpu (CUDA on tensor cores) or cpu (BRGEMM-based C++)")
      ->check(CLI::IsMember({"gpu", "cpu"}))
      ->capture_default_str();
  add_gpu_flags(app, options->gpu);
  return Command{app, [options] { return run_compile(*options); }};
}

}  // namespace polyfuse::tools
