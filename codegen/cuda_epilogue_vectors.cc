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
      v.along_n = along_n;
      v.elements = along_n ? o.block.n : o.block.m;
      v.offset = (layout.shared_bytes + 15) / 16 * 16;
      layout.shared_bytes = v.offset + 4 * v.elements;
      layout.staged_vectors.push_back(v);
    }
}

std::string print_vector_staging(const Program& program, const CudaKernelLayout& layout, const KernelGrid& grid) {
  std::string text;
  for (const StagedVector& v : layout.staged_vectors) {
    const int block = v.along_n ? grid.block_n : grid.block_m;
    PF_INTERNAL_CHECK(block == v.elements, "staged vector " + v.tensor + " is not one block tile long");
    const std::string tile = grid.group > 1 ? (v.along_n ? "tile.col" : "tile.row") : (v.along_n ? "blockIdx.x" : "blockIdx.y");
    const std::string origin = fmt::format("{} * {}", block, tile);
    const Size extent = bound_size(program, program.find_tensor(v.tensor)->dims[0]);
    // a bound extent of whole block tiles: no block's slice is cut
    const bool whole = !extent.is_symbolic() && extent.value % block == 0;
    text += fmt::format("  // {}({}) of this block's {} {}, once, as f32 in shared memory (the epilogue reads it after the "
                        "main loop's first barrier)\n",
                        v.tensor, v.along_n ? "n" : "m", block, v.along_n ? "columns" : "rows");
    text += fmt::format("  pf::stage_vector<{}, {}, {}>(smem + {}, {}, {}, threadIdx.x);\n", block,
                        layout.threads, whole ? "pf::Check::none" : "pf::Check::cols", v.offset,
                        address(v.tensor, origin), remaining(extent.to_string(), origin));
  }
  return text;
}

}  // namespace polyfuse
