#include "schedule/cpu_first_touch.h"

#include <algorithm>
#include <set>

namespace polyfuse {
namespace {

// Whether `write` (of `stage`'s output space) reaches every element of `tensor` once: each of its
// dimensions is a distinct index of the space (batch, m or n) of the same extent, and the space
// has no other.
bool writes_every_element(const CpuStage& stage, const CpuAccess& write, const CpuTensor& tensor) {
  const std::size_t space = stage.batch_extents.size() + (stage.m_name.empty() ? 0 : 1) + (stage.n_name.empty() ? 0 : 1);
  if (write.dims.size() != tensor.shape.size() || write.dims.size() != space) return false;
  std::set<int> seen;  // batch positions, m as -1, n as -2
  for (std::size_t d = 0; d < write.dims.size(); ++d) {
    const CpuDim dim = write.dims[d];
    const int key = dim == CpuDim::m ? -1 : dim == CpuDim::n ? -2 : dim == CpuDim::batch ? write.batch_positions.at(d) : -3;
    if (key == -3 || !seen.insert(key).second) return false;
    const std::int64_t extent = dim == CpuDim::m   ? stage.m_extent
                                : dim == CpuDim::n ? stage.n_extent
                                                   : stage.batch_extents.at(static_cast<std::size_t>(key));
    if (extent != tensor.shape[d]) return false;
  }
  return true;
}

}  // namespace

bool stage_touches(const CpuStage& stage, const std::string& tensor) {
  bool touches = (stage.pad && (stage.pad->from == tensor || stage.pad->to == tensor)) ||
                 (stage.permute && (stage.permute->from == tensor || stage.permute->to == tensor)) ||
                 (stage.loop_nest && (stage.loop_nest->write == tensor ||
                                      std::count(stage.loop_nest->reads.begin(), stage.loop_nest->reads.end(), tensor)));
  for (const CpuMatmul& matmul : stage.matmuls)
    touches = touches || matmul.a.tensor == tensor || matmul.b.tensor == tensor || matmul.c.tensor == tensor;
  for (const CpuPointwise& pointwise : stage.pointwise) {
    touches = touches || pointwise.write.tensor == tensor;
    for (const CpuAccess& read : pointwise.reads) touches = touches || read.tensor == tensor;
  }
  return touches;
}

bool first_touch_writes_all(const CpuPlan& plan, const CpuTensor& tensor) {
  std::int64_t elements = 1;
  for (std::int64_t extent : tensor.shape) elements *= extent;
  for (const CpuStage& stage : plan.stages) {
    if (stage.permute && stage.permute->to == tensor.name) return true;
    if (!stage_touches(stage, tensor.name)) continue;
    if (!stage.pad && !stage.permute && !stage.loop_nest && stage.matmuls.empty()) {
      for (const CpuPointwise& pointwise : stage.pointwise) {
        const bool reads = std::any_of(pointwise.reads.begin(), pointwise.reads.end(),
                                       [&](const CpuAccess& read) { return read.tensor == tensor.name; });
        if (pointwise.write.tensor == tensor.name) return !reads && writes_every_element(stage, pointwise.write, tensor);
        if (reads) return false;
      }
      return false;
    }
    if (stage.pad || stage.permute || stage.loop_nest || stage.matmuls.empty()) return false;
    const CpuMatmul& first = stage.matmuls.front();
    std::int64_t covered = stage.m_extent * stage.n_extent;
    for (std::int64_t extent : stage.batch_extents) covered *= extent;
    return first.c.tensor == tensor.name && first.zero_init && first.a.tensor != tensor.name &&
           first.b.tensor != tensor.name && covered == elements;
  }
  return false;
}


}  // namespace polyfuse
