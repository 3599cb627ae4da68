#include "schedule/cpu_filter_panels.h"

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"

namespace polyfuse {

void finish_filter_panels(CpuPlan& plan) {
  for (CpuStage& stage : plan.stages)
    for (CpuMatmul& matmul : stage.matmuls) {
      if (!matmul.conv || !matmul.conv->filter_packed) continue;
      CpuConvTaps& conv = *matmul.conv;
      const std::int64_t panel = std::min(stage.blocking.nc, stage.n_extent);
      conv.filter_panel = panel;
      // The taps' strides in a panel [taps.., c][panel].
      std::int64_t stride = matmul.k * panel;
      for (std::size_t t = conv.taps.size(); t-- > 0;) {
        conv.taps[t].b_stride = stride;
        stride *= conv.taps[t].extent;
      }
      if (conv.panel_per_block) continue;
      CpuPermuteCopy* copy = nullptr;
      for (CpuStage& other : plan.stages)
        if (other.permute && other.permute->to == matmul.b.tensor) copy = &*other.permute;
      PF_INTERNAL_CHECK(copy != nullptr, "cpu plan: no packing copy writes " + matmul.b.tensor);
      CpuTensor* packed = nullptr;
      for (CpuTensor& t : plan.tensors)
        if (t.name == copy->to) packed = &t;
      PF_INTERNAL_CHECK(packed != nullptr && !packed->shape.empty(), "cpu plan: no tensor " + copy->to);
      std::vector<std::int64_t> shape = packed->shape;  // [batch.., taps.., c, k]
      const std::int64_t k = shape.back();
      shape.back() = panel;
      shape.insert(shape.begin(), (k + panel - 1) / panel);
      packed->shape = shape;
      copy->panel = panel;
      const auto list = [](const std::vector<std::string>& indices) {
        std::string text;
        for (const std::string& index : indices) text += (text.empty() ? "" : ", ") + index;
        return text;
      };
      std::vector<std::string> from_indices(copy->indices.size());
      for (std::size_t d = 0; d < copy->indices.size(); ++d) from_indices[copy->from_dim[d]] = copy->indices[d];
      std::vector<std::string> to_indices = copy->indices;
      const std::string n = to_indices.back();
      to_indices.back() = n + " % " + std::to_string(panel);
      to_indices.insert(to_indices.begin(), n + " / " + std::to_string(panel));
      copy->source = copy->to + "(" + list(to_indices) + ") = " + copy->from + "(" + list(from_indices) + ")";
      copy->why = "the filter packed as the BRGEMM's B, in panels of " + std::to_string(panel) + " output channels";
    }
}

}  // namespace polyfuse
