#include "runtime/api/tensor_map_arguments.h"

#include "codegen/main_loop_choice.h"
#include "frontend/diagnostics.h"

namespace polyfuse::api {

tma::TensorMapBytes tensor_map_argument(const KernelParameter& p, const ParameterValue& v, tma::Target target) {
  PF_INTERNAL_CHECK(p.tma_box.size() == 2 && v.extents.size() >= 2, "tensor map of a parameter that is not a TMA input");
  const tma::DataType type = tma_data_type(p.element);
  const std::size_t rank = v.extents.size();
  const std::uint64_t rows = v.extents[rank - 2], cols = v.extents[rank - 1];
  tma::TiledMapRequest request = tma::tiled_2d(type, v.pointer, cols, rows, cols * size_in_bytes(p.element),
                                               static_cast<std::uint32_t>(p.tma_box[0]),
                                               static_cast<std::uint32_t>(p.tma_box[1]), tma::Swizzle::b128);
  if (rank > 2) {  // a batch of matrices: dimension 2 the linearised batch, boxes of one matrix
    std::uint64_t batches = 1;
    for (std::size_t d = 0; d + 2 < rank; ++d) batches *= v.extents[d];
    request.rank = 3;
    request.global_dim[2] = batches;
    request.global_strides[1] = rows * request.global_strides[0];
    request.box_dim[2] = 1;
  }
  return tma::encode_tiled(request, target);
}

}  // namespace polyfuse::api
