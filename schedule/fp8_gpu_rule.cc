#include "schedule/fp8_gpu_rule.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"

namespace polyfuse {

void refuse_fp8_on_gpu(const Program& program) {
  for (const Tensor& tensor : program.tensors) {
    if (!is_fp8(tensor.type)) continue;
    throw UserError({Diagnostic{
        program.file, tensor.location.line, tensor.location.col,
        fmt::format("tensor {} of def '{}' is {}: the GPU path has no FP8 main loop yet (FP8 tensor cores are "
                    "wgmma's .{} form on sm_90a, not emitted yet; sm_80's mma.sync has no FP8 form); run it on "
                    "the CPU target (--target=cpu)",
                    quote_name(tensor.name), program.name, to_string(tensor.type), to_string(tensor.type))}});
  }
}

}  // namespace polyfuse
