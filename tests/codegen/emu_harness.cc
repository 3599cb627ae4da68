#include "emu_harness.h"

#include "codegen/cuda_emitter.h"
#include "polyfuse_emu/module.h"
#include "support/emu_schedules.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/tensor_data.h"

#include <regex>
#include <stdexcept>

namespace polyfuse::testing {
using namespace polyfuse::reference;

// Evaluates a grid expression of the emitter — "X" or "(X - 1) / T + 1" (ceil(X / T)) —
// for `program`'s sizes; anything else is a test failure, not a guess.
static unsigned grid_value(const GridDimension& g, const Program& program) {
  if (g.value > 0) return static_cast<unsigned>(g.value);
  const std::string& e = g.expression;
  if (program.size_bindings.count(e)) return static_cast<unsigned>(program.size_bindings.at(e));
  std::smatch m;
  static const std::regex ceil_div(R"(\((\w+) - 1\) / (\d+) \+ 1)");
  if (!std::regex_match(e, m, ceil_div)) throw std::runtime_error("emu harness: unexpected grid expression " + e);
  std::int64_t tile = std::stoll(m[2].str());
  return static_cast<unsigned>((program.size_bindings.at(m[1].str()) + tile - 1) / tile);
}

EmuRun run_on_emulator(const Program& program, const GpuOptions& options, std::uint64_t seed,
                       const Program* kernel_program) {
  EmuRunOptions run;
  run.seed = seed;
  run.kernel_program = kernel_program;
  return run_on_emulator(program, options, run);
}

EmuRun run_on_emulator(const Program& program, const GpuOptions& options, const EmuRunOptions& how) {
  CudaEmitRequest request;
  request.options = options;
  EmittedKernel kernel = emit_cuda(how.kernel_program ? *how.kernel_program : program, request);
  const LaunchMetadata& md = kernel.metadata;
  emu::Module module = emu::Module::compile(how.edit ? how.edit(kernel.source) : kernel.source, {}, {md.kernel});
  emu::ScopedSchedule schedule(how.schedule ? *how.schedule : next_emu_schedule());

  TensorData inputs = random_tensors(program, how.seed);

  // Device-side storage: 16-bit patterns for f16/bf16, floats for f32.
  std::vector<std::vector<unsigned char>> storage;
  std::vector<std::unique_ptr<emu::ScopedBuffer>> registered;
  std::vector<emu::KernelArg> args;
  for (const KernelParameter& p : md.parameters) {
    if (p.kind == KernelParameter::Kind::size) {
      args.push_back(emu::KernelArg::i32(static_cast<std::int32_t>(program.size_bindings.at(p.name))));
      continue;
    }
    storage.push_back(encode_tensor(p.element, inputs.at(p.name)));
    unsigned char* data = storage.back().data();
    registered.push_back(std::make_unique<emu::ScopedBuffer>(data, storage.back().size(), p.name));
    args.push_back(emu::KernelArg::pointer(data));
  }
  EmuRun run;
  run.stats = module.launch(md.kernel,
                            dim3(grid_value(md.grid[0], program), grid_value(md.grid[1], program),
                                 grid_value(md.grid[2], program)),
                            dim3(md.block[0]), md.dynamic_shared_bytes, args);
  TensorData actual = inputs;
  size_t buffer = 0;
  for (const KernelParameter& p : md.parameters) {
    if (p.kind == KernelParameter::Kind::size) continue;
    const std::vector<unsigned char>& data = storage[buffer++];
    if (p.kind != KernelParameter::Kind::output) continue;
    decode_tensor(p.element, data, actual.at(p.name));
  }
  run.check = check_outputs(program, inputs, actual);
  run.outputs = std::move(actual);
  return run;
}

}  // namespace polyfuse::testing
