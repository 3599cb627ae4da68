// Declarations of the kernels in emu_strict_kernels.cc.
#pragma once

extern "C" {
void async_shift(const unsigned short* in, unsigned short* out, int mode);
void async_groups(const unsigned short* in, unsigned short* out, int mode);
void async_landing(const unsigned short* in, unsigned short* early, unsigned short* out);
void async_unwaited(const unsigned short* in, int mode);
void async_misaligned(const unsigned short* in, int mode);
void shared_race(float* out, int mode);
void global_race(float* out, int mode);
void schedule_trace(int* trace, float* scratch, int accesses);
}
