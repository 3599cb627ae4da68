// The test kernels compiled as C++ for the emulator.
#include "polyfuse_emu/cuda_emulation.h"
#include "test_kernels.cu"
