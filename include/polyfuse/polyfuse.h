// polyfuse: compile tensor programs (.tc) to fused tensor-core CUDA kernels at run time,
// cache them, and launch them on a GPU or on the CPU emulator.
//
//   #include <polyfuse/polyfuse.h>
//   auto program = polyfuse::TensorProgram::from_file("gemm_bias_relu.tc");
//   program.bind({{"M", 256}, {"N", 256}, {"K", 128}});
//   polyfuse::CompileOptions options;
//   options.backend = polyfuse::cuda_device_available() ? polyfuse::Backend::cuda : polyfuse::Backend::emu;
//   polyfuse::CompiledKernel kernel = program.compile(options);
//   kernel.launch({A, B, bias, D}, stream);   // device pointers (cuda) or host vectors (emu)
#pragma once

#include "polyfuse/arguments.h"
#include "polyfuse/autotune.h"
#include "polyfuse/compiled_kernel.h"
#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "polyfuse/kernel_info.h"
#include "polyfuse/launch_stats.h"
#include "polyfuse/options.h"
#include "polyfuse/tensor_program.h"
#include "polyfuse/version.h"
