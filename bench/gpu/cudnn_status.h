// What the cuDNN baselines share (only with cuDNN: POLYFUSE_BENCH_HAVE_CUDNN): status
// checks and the data type of an element type.
#pragma once

#include <cudnn.h>

#include "bench/gpu/idioms.h"

namespace polyfuse::bench {

// Throws Unsupported for cuDNN's NOT_SUPPORTED family and BAD_PARAM (the problem is not
// one cuDNN takes), else BenchError, naming `call`; nothing on success.
void check_cudnn(cudnnStatus_t status, const char* call);

// CUDNN_DATA_HALF or CUDNN_DATA_BFLOAT16.
cudnnDataType_t cudnn_data_type(DType dtype);

}  // namespace polyfuse::bench
