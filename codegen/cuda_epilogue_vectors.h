// Epilogue vectors staged once per block (issue 19 item 4): an input an epilogue statement
// reads by the result's column index alone (bias(n)) or its row index alone (scale(m)) is
// loaded by the block's threads at the kernel's start, 16 bytes per thread (128-bit loads
// where whole and aligned), converted to f32 into shared memory past the main loop's tiles
// and the accumulator scratch; the main loop's first barrier makes it visible, and the
// epilogue reads each fragment's values from there (pf_epilogue_vector.cuh).
#pragma once

#include <string>

#include "codegen/cuda_kernel_layout.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

// Adds `program`'s epilogue vectors (1-D f16, bf16 or f32 inputs read as v(n) or v(m), each
// once) to `layout.staged_vectors`, and their bytes to its shared memory.
void stage_epilogue_vectors(const Program& program, const KernelPlan& plan, const GpuOptions& options,
                            CudaKernelLayout& layout);

// The lines that load the staged vectors of the block tile whose first row and column are
// `row0` and `col0` (C expressions), by all `layout.threads` threads; each line starts with `indent`.
std::string print_vector_staging(const Program& program, const CudaKernelLayout& layout, const std::string& row0,
                                 const std::string& col0, const std::string& indent);

}  // namespace polyfuse
