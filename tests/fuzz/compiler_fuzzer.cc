// libFuzzer target: one input = one `.tc` file, compiled as far as `polyfuse compile`
// goes — the front end (and --emit=ir), then for every def the GPU path with the default
// options (plan, schedule, AST, CUDA text; the partition into kernels and a multi-kernel
// plan's source) and the CPU target (loop nest, C++ text).
//
// Sizes: every size name the file declares is bound to a value taken from a hash of the
// input and the name: mostly 1 to 40 (odd and tiny shapes, one partial block tile), one
// in eight 129 to 300 (full and partial tiles of the default 128x128 blocks). One input
// in eight leaves them unbound (isl parameters), as `compile` without -D does.
//
// A UserError at any stage is a good outcome (the input is wrong or not supported yet).
// Anything else — InternalError, an isl::exception that escaped, another exception, a
// crash, a sanitizer report — is a finding: the target prints it and aborts, and
// libFuzzer writes the reproducer. Run: scripts/test.d/40-fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include <isl/cpp.h>

#include "codegen/cpu_emit.h"
#include "codegen/cuda_emitter.h"
#include "codegen/cuda_plan.h"
#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "frontend/ir_printer.h"
#include "frontend/parser.h"
#include "schedule/cpu_plan.h"
#include "schedule/gpu_options.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

// FNV-1a with a final mix (its low bits alone are weak): the same on every machine, so
// reproducers replay anywhere.
std::uint64_t stable_hash(std::string_view bytes, std::uint64_t seed = 14695981039346656037ull) {
  std::uint64_t h = seed;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

// 1..40 for seven hashes in eight, else 129..300.
std::int64_t small_size(std::uint64_t hash) {
  return static_cast<std::int64_t>(hash % 8 != 0 ? 1 + (hash >> 3) % 40 : 129 + (hash >> 3) % 172);
}

// A small value for every size name declared in `text` (none when the input hash says
// "leave them symbolic", or when it does not parse: the front end reports that).
SizeBindings small_sizes(const std::string& text) {
  SizeBindings sizes;
  const std::uint64_t input_hash = stable_hash(text);
  if (input_hash % 8 == 0) return sizes;
  DiagnosticSink sink("fuzz.tc");
  ast::File file = parse(text, sink);
  for (const ast::Def& def : file.defs)
    for (const auto* params : {&def.inputs, &def.outputs})
      for (const ast::Param& param : *params)
        for (const ast::SizeRef& size : param.dims)
          if (!size.name.empty()) sizes[size.name] = small_size(stable_hash(size.name, input_hash));
  return sizes;
}

[[noreturn]] void finding(const char* stage, const char* kind, const char* what) {
  std::fprintf(stderr, "compiler_fuzzer: %s: %s: %s\n", stage, kind, what);
  std::abort();
}

// Runs one stage; true when it produced its output, false on a UserError (which must
// carry at least one non-empty message). Everything else is a finding.
template <typename Stage>
bool run_stage(const char* name, const std::string& text, Stage&& stage) {
  try {
    stage();
    return true;
  } catch (const UserError& error) {
    if (error.diagnostics().empty()) finding(name, "UserError", "no diagnostics");
    for (const Diagnostic& d : error.diagnostics())
      if (d.message.empty()) finding(name, "UserError", "empty diagnostic message");
    render_diagnostics(error.diagnostics(), text);
    return false;
  } catch (const InternalError& error) {
    finding(name, "InternalError", error.what());
  } catch (const isl::exception& error) {
    finding(name, "isl::exception", error.what());
  } catch (const std::exception& error) {
    finding(name, "exception", error.what());
  } catch (...) {
    finding(name, "exception", "not derived from std::exception");
  }
}

}  // namespace
}  // namespace polyfuse

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace polyfuse;
  const std::string text(reinterpret_cast<const char*>(data), size);
  FrontendResult result;
  if (!run_stage("frontend", text, [&] { result = compile_source(SourceFile{"fuzz.tc", text}, small_sizes(text)); }))
    return 0;
  render_diagnostics(result.warnings, text);
  const GpuOptions gpu = gpu_options_from_choices(GpuChoices{});
  const CpuScheduleOptions cpu;  // the fixed default target: findings replay on any machine
  for (const Program& program : result.programs) {
    run_stage("ir", text, [&] { print_program(program); });
    run_stage("gpu", text, [&] {
      CudaEmitRequest request;
      request.options = gpu;
      emit_cuda(program, request);
    });
    run_stage("gpu plan", text, [&] {  // the partition, and a plan of several kernels' source
      const ProgramPlan plan = plan_program(program, recognize_idioms(program));
      to_string(plan, program);
      CudaEmitRequest request;
      request.options = gpu;
      if (!plan.is_single_fused_kernel()) emit_cuda_plan(program, plan, request);
    });
    run_stage("cpu", text, [&] {
      to_string(plan_cpu(program, cpu));
      emit_cpu(program, cpu);
    });
  }
  return 0;
}
