// `polyfuse compile`: runs the compiler on a .tc file and prints the requested stage;
// `--cubin` also compiles the kernel with NVRTC and writes its cubin.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/cpu_contraction.h"
#include "codegen/cpu_emit.h"
#include "codegen/cpu_loop_nest.h"
#include "codegen/cuda_emitter.h"
#include "codegen/cuda_plan.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "polyfuse/compiled_kernel.h"
#include "runtime/api/compiled_kernel_factory.h"
#include "schedule/cpu_plan.h"
#include "schedule/cpu_target.h"
#include "schedule/program_plan.h"
#include "tools/autotune_flag.h"
#include "tools/command.h"
#include "tools/cpu_flags.h"
#include "tools/gpu_flags.h"
#include "tools/program_input.h"

namespace polyfuse::tools {
namespace {

const std::vector<std::string> emit_stages = {"ir", "plan", "schedule", "ast", "cuda", "cpu", "config"};

struct CompileOptions {
  GpuFlags gpu;
  CpuFlags cpu;
  std::string target = "gpu";
  std::string input;
  std::vector<std::string> defines;
  std::string emit = "ir";
  CLI::Option* emit_option = nullptr;  // to tell an explicit --emit from the default
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

// The flags that only make sense with other flags, refused with the reason.
void check_combinations(const CompileOptions& options, bool cpu) {
  if (cpu && (options.emit == "ast" || options.emit == "cuda" || options.emit == "config" || options.emit == "plan"))
    throw UserError(fmt::format("--emit={} is a stage of the GPU path; with --target=cpu use ir, schedule or cpu", options.emit));
  if (cpu) refuse_gpu_flags(options.gpu, "the CPU target (--target=cpu, --emit=cpu) has its own blocking");
  if (!cpu) refuse_cpu_flags(options.cpu, "this compiles for the GPU (add --target=cpu)");
  if (options.emit == "ir") refuse_cpu_flags(options.cpu, "--emit=ir prints the program before the CPU schedule (choose --emit=schedule or cpu)");
  if (cpu && !options.cubin.empty()) throw UserError("--cubin compiles the GPU kernel; it does not go with --target=cpu");
  if (options.emit == "plan")
    refuse_gpu_flags(options.gpu, "--emit=plan prints the partition before any GPU pass", false);
  if (options.emit == "ir" && options.cubin.empty())
    refuse_gpu_flags(options.gpu, "--emit=ir prints the program before any GPU pass (choose --emit=schedule, ast or cuda)");
}

// Refuses a def that compiles to several kernels for a stage (`what`) that shows one.
void refuse_plan(const Program& program, const std::string& what, F32Matmul f32) {
  const ProgramPlan plan = plan_program(program, recognize_idioms(program), f32);
  if (!plan.is_single_fused_kernel())
    throw UserError(fmt::format("{}, but def '{}' is a plan of {} kernel{} (--emit=plan shows it, --emit=cuda writes "
                                "its kernels)",
                                what, program.name, plan.kernels.size(), plan.kernels.size() == 1 ? "" : "s"));
}

// `--cubin OUT`: the selected def's kernel compiled by NVRTC for --arch (through the
// cache), its cubin written to OUT; the schedule trees go to `dumps`.
void write_cubin(const std::vector<const Program*>& programs, const CompileOptions& options, const PassDumps& dumps,
                 const ProgramInput& input) {
  if (programs.size() != 1) throw UserError("--cubin: the file has several defs; choose one with --def");
  CudaEmitRequest request;
  request.options = options.gpu.autotune ? autotuned_gpu_options(options.gpu, input, *programs.front(), std::cerr)
                                         : gpu_options(options.gpu);
  refuse_plan(*programs.front(), "--cubin writes the cubin of one kernel", request.options.f32_matmul);
  request.dumps = dumps;
  EmittedKernel kernel = emit_cuda(*programs.front(), request);
  const Program& program = *programs.front();
  std::map<std::string, std::int64_t> sizes(program.size_bindings.begin(), program.size_bindings.end());
  CompiledKernel compiled = api::make_compiled_kernel(Backend::cuda, kernel.source, kernel.metadata, sizes, {});
  write_file(options.cubin, compiled.cubin().data(), compiled.cubin().size());
}

// The text of the selected defs at the requested stage. CUDA: one file, the helpers
// embedded once, one kernel and launcher per def.
std::string emit_stage(const std::vector<const Program*>& programs, const CompileOptions& options, bool cpu,
                       std::vector<LaunchMetadata>& kernels, nlohmann::json& plans, const ProgramInput& input) {
  const GpuOptions flagged = options.emit == "ir" || cpu ? GpuOptions{} : gpu_options(options.gpu);
  const PassDumps dumps{options.gpu.dump_after, &std::cerr};
  const CpuScheduleOptions cpu_options = cpu_schedule_options(options.cpu);
  std::string text;
  bool first = true;
  for (const Program* program : programs) {
    // --autotune: this def's winner (its table on stderr; --emit=config adds its summary line).
    std::string autotuned;
    const bool tune = options.gpu.autotune && !cpu && options.emit != "ir" && options.emit != "plan";
    const GpuOptions gpu = tune ? autotuned_gpu_options(options.gpu, input, *program, std::cerr, &autotuned)
                                                : flagged;
    if (options.emit == "ir") {
      text += (text.empty() ? "" : "\n") + print_program(*program);
    } else if (options.emit == "schedule" && cpu) {  // the program emit_cpu compiles (cpu_program)
      const Program compiled = cpu_program(*program, cpu_options);
      if (is_cpu_contraction(compiled) && compiled.parameters.empty())
        text += cpu_contraction_schedule(compiled, cpu_options);
      else if (needs_cpu_loop_nest(compiled, recognize_idioms(compiled)))
        text += cpu_loop_nest_schedule(compiled, cpu_options, "no matmul");
      else if (has_contraction_beside_other_statements(compiled))
        text += cpu_loop_nest_schedule(compiled, cpu_options,
                                       "a general contraction beside statements that are not its epilogues");
      else
        text += to_string(plan_cpu(compiled, cpu_options));
    } else if (options.emit == "cpu") {
      text += emit_cpu(*program, cpu_options);
    } else if (options.emit == "plan") {
      text += (first ? "" : "\n") + to_string(plan_program(*program, recognize_idioms(*program), gpu.f32_matmul), *program);
    } else if (options.emit == "schedule") {
      refuse_plan(*program, "--emit=schedule prints the tree of one fused kernel", gpu.f32_matmul);
      text += emit_schedule_text(*program, gpu, dumps);
    } else if (options.emit == "ast") {
      refuse_plan(*program, "--emit=ast prints the AST of one fused kernel", gpu.f32_matmul);
      text += emit_ast_text(*program, gpu, dumps);
    } else if (options.emit == "config") {
      refuse_plan(*program, "--emit=config prints the configuration of one fused kernel", gpu.f32_matmul);
      text += (first ? "" : "\n") + emit_config_text(*program, gpu, dumps) + (autotuned.empty() ? "" : autotuned + "\n");
    } else if (options.emit == "cuda") {
      CudaEmitRequest request;
      request.options = gpu;
      request.dumps = dumps;
      request.helpers = first ? CudaEmitRequest::Helpers::embed : CudaEmitRequest::Helpers::omit;
      const ProgramPlan plan = plan_program(*program, recognize_idioms(*program), gpu.f32_matmul);
      if (!plan.is_single_fused_kernel()) {
        EmittedPlan emitted = emit_cuda_plan(*program, plan, request);
        text += (first ? "" : "\n") + emitted.source;
        kernels.insert(kernels.end(), emitted.kernels.begin(), emitted.kernels.end());
        plans.push_back(emitted.sidecar);
        first = false;
        continue;
      }
      EmittedKernel kernel = emit_cuda(*program, request);
      text += (first ? "" : "\n") + kernel.source;
      kernels.push_back(kernel.metadata);
    }
    first = false;
  }
  return text;
}

void write_output(const std::string& path, const std::string& text, const std::vector<LaunchMetadata>& kernels,
                  const nlohmann::json& plans) {
  write_file(path, text.data(), text.size());
  if (kernels.empty()) return;
  // The sidecar: out.cu -> out.json (every kernel, then each plan's launcher and workspace)
  nlohmann::json sidecar = nlohmann::json::array();
  for (const LaunchMetadata& metadata : kernels) sidecar.push_back(to_json(metadata));
  for (const nlohmann::json& plan : plans) sidecar.push_back(plan);
  std::string json = sidecar.dump(2) + "\n";
  write_file(std::filesystem::path(path).replace_extension(".json").string(), json.data(), json.size());
}

int run_compile(const CompileOptions& options) {
  ProgramInput input(options.input, options.defines);
  const bool cpu = options.target == "cpu" || options.emit == "cpu";
  try {
    check_combinations(options, cpu);
    const std::vector<const Program*> programs = input.defs(options.def);
    // With --cubin alone nothing else is printed; -o or an explicit --emit asks for the stage too
    // (which then prints the --dump-after trees).
    const bool stage_wanted = options.cubin.empty() || !options.output.empty() || options.emit_option->count() > 0;
    if (!options.cubin.empty())
      write_cubin(programs, options, stage_wanted ? PassDumps{} : PassDumps{options.gpu.dump_after, &std::cerr}, input);
    if (!stage_wanted) return exit_success;
    std::vector<LaunchMetadata> kernels;
    nlohmann::json plans = nlohmann::json::array();
    const std::string text = emit_stage(programs, options, cpu, kernels, plans, input);
    if (options.output.empty() || options.output == "-") {
      std::cout << text << std::flush;
      return exit_success;
    }
    write_output(options.output, text, kernels, plans);
    return exit_success;
  } catch (const UserError& error) {
    input.print(error);
    return exit_user_error;
  }
}

}  // namespace

Command add_compile_command(CLI::App& parent) {
  auto options = std::make_shared<CompileOptions>();
  CLI::App* app = parent.add_subcommand(
      "compile", "Compile a .tc file and print the result of a stage (--emit), and/or write the kernel's cubin (--cubin).");
  app->footer(exit_codes_help);
  app->add_option("file", options->input, "The .tc source file")->required();
  app->add_option("-D,--define", options->defines,
                  "Bind a size: -D NAME=VALUE (VALUE an integer >= 1). Repeat for several "
                  "sizes; unbound sizes stay symbolic (isl parameters). A size that no def "
                  "uses gets a warning.")
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  options->emit_option =
      app->add_option("--emit", options->emit,
                      "Stage to print: ir (polyhedral IR: domains, accesses, expression trees, dependences, idioms), plan (the "
                      "GPU path's partition into kernels, the temporaries between them and why each cut was made), "
                      "schedule (the final GPU schedule tree; --dump-after prints the trees between passes), ast "
                      "(isl's AST of the kernel), cuda (a self-contained .cu: kernel(s), host launcher), cpu (C++ "
                      "calling the kernels/cpu primitives; implies --target=cpu), config (the GPU kernel's chosen "
                      "configuration: main loop and why, tiles, stages, launch, how each parameter is passed). With "
                      "--target=cpu, schedule is the CPU loop nest.")
          ->check(CLI::IsMember(emit_stages))
          ->capture_default_str();
  app->add_option("-o,--output", options->output,
                  "Write the stage to this file instead of stdout; with --emit=cuda also the JSON sidecar "
                  "(OUT with .json: kernels, grid, block, dynamic shared memory, parameters; a plan's launcher and workspace "
                  "bytes)");
  app->add_option("--cubin", options->cubin,
                  "Compile the kernel with NVRTC for --arch (through the cache) and write its cubin to this file; "
                  "with -o (or --emit) the stage is written too")
      ->type_name("OUT");
  app->add_option("--def", options->def,
                  "Print only the def with this name (default: every def of the file, in order)");
  app->add_option("--target", options->target, "gpu (CUDA on tensor cores) or cpu (BRGEMM-based C++)")
      ->check(CLI::IsMember({"gpu", "cpu"}))
      ->capture_default_str();
  add_gpu_flags(app, options->gpu);
  add_cpu_flags(app, options->cpu);
  return Command{app, [options] { return run_compile(*options); }};
}

}  // namespace polyfuse::tools
