#include "schedule/cpu_fold.h"

#include <algorithm>

namespace polyfuse {
namespace {

// Every access of `stage`, written or read (block-local buffers included: they ignore their
// dimensions, but an index they follow must still fold with m).
std::vector<CpuAccess*> accesses_of(CpuStage& stage) {
  std::vector<CpuAccess*> accesses;
  for (CpuMatmul& matmul : stage.matmuls)
    for (CpuAccess* access : {&matmul.a, &matmul.b, &matmul.c}) accesses.push_back(access);
  for (CpuPointwise& pointwise : stage.pointwise) {
    accesses.push_back(&pointwise.write);
    for (CpuAccess& read : pointwise.reads) accesses.push_back(&read);
  }
  return accesses;
}

int position_of(const CpuAccess& access, CpuDim dim, int batch = -1) {
  for (std::size_t d = 0; d < access.dims.size(); ++d)
    if (access.dims[d] == dim && (dim != CpuDim::batch || access.batch_positions[d] == batch))
      return static_cast<int>(d);
  return -1;
}

// Whether batch index `batch` of `stage` folds into m: every access that follows m follows
// the batch index in the dimension just outside m's (and the indices folded already), and
// those inner dimensions hold m's whole extent.
bool folds(const CpuPlan& plan, CpuStage& stage, int batch) {
  for (const CpuAccess* access : accesses_of(stage)) {
    const int m = position_of(*access, CpuDim::m);
    const int b = position_of(*access, CpuDim::batch, batch);
    if (m < 0 && b < 0) continue;  // a bias: neither
    if (m < 0) return false;
    int first = m;  // the outermost of m and the dimensions folded into it
    while (first > 0 && access->dims[static_cast<std::size_t>(first - 1)] == CpuDim::folded) --first;
    if (b != first - 1) return false;
    std::int64_t rows = 1;
    for (int d = first; d <= m; ++d) rows *= plan.tensor(access->tensor).shape[static_cast<std::size_t>(d)];
    if (rows != stage.m_extent) return false;
  }
  return true;
}

void fold(CpuStage& stage, int batch) {
  for (CpuAccess* access : accesses_of(stage))
    for (std::size_t d = 0; d < access->dims.size(); ++d) {
      if (access->dims[d] != CpuDim::batch) continue;
      if (access->batch_positions[d] == batch) {
        access->dims[d] = CpuDim::folded;
        access->batch_positions[d] = -1;
      } else if (access->batch_positions[d] > batch) {
        --access->batch_positions[d];
      }
    }
  const std::size_t i = static_cast<std::size_t>(batch);
  stage.m_extent *= stage.batch_extents[i];
  stage.m_name = stage.batch_names[i] + "_" + stage.m_name;
  stage.batch_names.erase(stage.batch_names.begin() + batch);
  stage.batch_extents.erase(stage.batch_extents.begin() + batch);
}

}  // namespace

int fold_batch_into_m(CpuPlan& plan) {
  int folded = 0;
  for (CpuStage& stage : plan.stages) {
    if (stage.matmuls.empty() || stage.m_name.empty() ||
        std::any_of(stage.matmuls.begin(), stage.matmuls.end(), [](const CpuMatmul& matmul) { return matmul.conv; }))
      continue;
    while (!stage.batch_names.empty()) {
      const int innermost = static_cast<int>(stage.batch_names.size()) - 1;
      if (!folds(plan, stage, innermost)) break;
      fold(stage, innermost);
      ++folded;
    }
  }
  return folded;
}

}  // namespace polyfuse
