// The Hopper layout oracle's probe kernels compiled as C++ for the emulator.
#include "polyfuse_emu/cuda_emulation.h"
#include "layout_oracle_sm90_kernels.cu"
