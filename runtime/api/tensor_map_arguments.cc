#include "runtime/api/tensor_map_arguments.h"

#include "codegen/main_loop_choice.h"
#include "frontend/diagnostics.h"

namespace polyfuse::api {

tma::TensorMapBytes tensor_map_argument(const KernelParameter& p, const ParameterValue& v, tma::Target target) {
  PF_INTERNAL_CHECK(p.tma_box.size() == 2 && v.extents.size() == 2, "tensor map of a parameter that is not a 2-d TMA input");
  const tma::DataType type = tma_data_type(p.element);
  const std::uint64_t rows = v.extents[0], cols = v.extents[1];
  return tma::encode_tiled(tma::tiled_2d(type, v.pointer, cols, rows, cols * size_in_bytes(p.element),
                                         static_cast<std::uint32_t>(p.tma_box[0]), static_cast<std::uint32_t>(p.tma_box[1]),
                                         tma::Swizzle::b128),
                           target);
}

}  // namespace polyfuse::api
