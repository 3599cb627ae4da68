#include "codegen/cuda_epilogue_vectors.h"

#include <fmt/format.h>

#include "codegen/cuda_addressing.h"
#include "frontend/diagnostics.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

void stage_epilogue_vectors(const Program& program, const KernelPlan& plan, const GpuOptions& o, CudaKernelLayout& layout) {
  for (const PointwiseStage& stage : plan.epilogue)
    for (const Access& access : program.find_statement(stage.dims.statement)->reads) {
      if (layout.registers.storage.count(access.tensor) || access.indices.size() != 1) continue;
      const ElementType type = program.find_tensor(access.tensor)->type;
      if (type != ElementType::f16 && type != ElementType::bf16 && type != ElementType::f32) continue;  // integers: per fragment
      const bool along_n = access.indices[0] == stage.dims.n;
      if ((!along_n && access.indices[0] != stage.dims.m) || layout.staged_vector(access.tensor, along_n)) continue;
      StagedVector v;
      v.tensor = access.tensor;
      v.index = access.indices[0];
      v.along_n = along_n;
      v.elements = along_n ? o.block.n : o.block.m;
      v.offset = (layout.shared_bytes + 15) / 16 * 16;
      layout.shared_bytes = v.offset + 4 * v.elements;
      layout.staged_vectors.push_back(v);
    }
}

std::string print_vector_staging(const Program& program, const CudaKernelLayout& layout, const std::string& row0,
                                 const std::string& col0, const std::string& indent) {
  std::string text;
  for (const StagedVector& v : layout.staged_vectors) {
    const std::string& origin = v.along_n ? col0 : row0;
    const Size extent = bound_size(program, program.find_tensor(v.tensor)->dims[0]);
    // a bound extent of whole block tiles: no block's slice is cut
    const bool whole = !extent.is_symbolic() && extent.value % v.elements == 0;
    text += indent + fmt::format("// {}({}) of this block's {} {}, once, as f32 in shared memory (the epilogue reads "
                                 "it after the main loop's first barrier)\n",
                                 v.tensor, v.index, v.elements, v.along_n ? "columns" : "rows");
    text += indent + fmt::format("pf::stage_vector<{}, {}, {}>(smem + {}, {}, {}, threadIdx.x);\n", v.elements,
                                 layout.threads, whole ? "pf::Check::none" : "pf::Check::cols", v.offset,
                                 address(v.tensor, origin), remaining(extent.to_string(), origin));
  }
  return text;
}

}  // namespace polyfuse
