// Declarations of the kernels in emu_kernels.cc.
#pragma once

extern "C" {
void planted_global_oob(const float* in, float* out, int n);
void planted_shared_oob(float* out);
void planted_misaligned_load(const unsigned short* in, unsigned short* out);
void planted_divergent_barrier(float* out);
void planted_early_exit(float* out);
void planted_warp_divergence(float* out);
void strided_copy(const float* in, float* out, int stride);
void shared_pattern(float* out, int word_stride, int width);
void warp_ops(float* out);
}
