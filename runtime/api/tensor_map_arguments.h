// The tensor maps of a launch (issue 17): an input whose KernelParameter has a tma_box reaches
// the kernel as a CUtensorMap (`const __grid_constant__ pf::sm90::TensorMap`), encoded here
// from the pointer and the tensor's extents: 2-d, dimension 0 the contiguous one, rows
// extents[1] * element bytes apart, boxes of tma_box[0] x tma_box[1], 128-byte swizzle,
// zero fill outside (runtime/tma: the emulator's encoding, or cuTensorMapEncodeTiled). A tensor
// of more than two extents is a batch of matrices: a 3-d map whose dimension 2 linearises the
// leading extents (boxes of one matrix: {tma_box[0], tma_box[1], 1}).
#pragma once

#include "codegen/launch_metadata.h"
#include "runtime/api/launch_arguments.h"
#include "runtime/tma/tensor_map.h"

namespace polyfuse::api {

// The map of parameter `p` with value `v` (v.extents: the tensor's, outermost first) for
// `target`. tma::TensorMapError when the driver's rules refuse it (the code generator checked
// them for the bound sizes; a buffer that is not 16-byte aligned is refused earlier).
tma::TensorMapBytes tensor_map_argument(const KernelParameter& p, const ParameterValue& v, tma::Target target);

}  // namespace polyfuse::api
