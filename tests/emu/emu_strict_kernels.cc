// Kernels for the tests of the emulator's strict checks (asynchronous copies, races, thread
// schedules, cp.async alignment): each has a correct mode 0 and planted bugs in the others.
#include "polyfuse_emu/cuda_emulation.h"
#include "polyfuse_cuda.cuh"

// ---- cp.async ----------------------------------------------------------------------------
// Thread t copies the 16-byte chunk t of `in` into shared chunk t, then reads chunk t - 1
// (thread 0 reads nothing) and stores it to out chunk t.
//   mode 0: commit, wait, __syncthreads, read              (correct)
//   mode 1: commit, __syncthreads, read                    (no wait: the copy is pending)
//   mode 2: commit, wait, read                             (no barrier: the neighbour's
//           copy, landed at its wait, is unordered with the read)
extern "C" __global__ void async_shift(const unsigned short* in, unsigned short* out, int mode) {
  PF_DYNAMIC_SHARED(smem);
  const int t = threadIdx.x;
  pf::cp_async16(smem + 16 * t, in + 8 * t, 16);
  pf::cp_async_commit();
  if (mode != 1) pf::cp_async_wait<0>();
  if (mode != 2) __syncthreads();
  pf::Chunk16 c = {{0u, 0u, 0u, 0u}};
  if (t > 0) c = pf::lds128(smem + 16 * (t - 1));
  pf::stg128(out + 8 * t, c);
}

// Three copies per thread: chunk 3t (group 1), 3t + 1 (group 2), 3t + 2 (not committed);
// then mode 0: wait_group 1 and read the first two; mode 1: wait_group 0 and read all
// three; mode 2: wait_all and read all three (correct). Each thread reads its own chunks.
extern "C" __global__ void async_groups(const unsigned short* in, unsigned short* out, int mode) {
  PF_DYNAMIC_SHARED(smem);
  const int t = threadIdx.x;
  for (int g = 0; g < 3; ++g) {
    pf::cp_async16(smem + 16 * (3 * t + g), in + 8 * (3 * t + g), 16);
    if (g < 2) pf::cp_async_commit();
  }
  if (mode == 0) pf::cp_async_wait<1>();
  if (mode == 1) pf::cp_async_wait<0>();
  if (mode == 2) pf::cp_async_wait_all();
  for (int g = 0; g < (mode == 0 ? 2 : 3); ++g) pf::stg128(out + 8 * (3 * t + g), pf::lds128(smem + 16 * (3 * t + g)));
}

// Thread t copies chunk t; before its wait it peeks at the destination with a plain
// (unchecked) read into early[t] (the poison 0xffff unless the data landed early), after
// it reads it with a checked load into out.
extern "C" __global__ void async_landing(const unsigned short* in, unsigned short* early, unsigned short* out) {
  PF_DYNAMIC_SHARED(smem);
  const int t = threadIdx.x;
  pf::cp_async16(smem + 16 * t, in + 8 * t, 16);
  pf::cp_async_commit();
  early[t] = *reinterpret_cast<const unsigned short*>(smem + 16 * t);
  pf::cp_async_wait<0>();
  pf::stg128(out + 8 * t, pf::lds128(smem + 16 * t));
}

// Copies that are never waited for (legal: nothing reads them), or (mode 1) two copies to
// the same destination in one group (undefined: no order between them), or (mode 2) thread
// 1 reading the copy of thread 0, which exited without waiting (the copy never completes).
extern "C" __global__ void async_unwaited(const unsigned short* in, int mode) {
  PF_DYNAMIC_SHARED(smem);
  const int t = threadIdx.x;
  if (mode == 2 && t > 0) {
    if (t == 1) pf::lds128(smem);
    return;
  }
  pf::cp_async16(smem + 16 * t, in + 8 * t, 16);
  if (mode == 1) pf::cp_async16(smem + 16 * t, in + 8 * t + 8, 16);
  pf::cp_async_commit();
}

// cp.async operands: mode 0 a zero-fill cp.async16 whose source is 2-byte aligned;
// mode 1 an 8-byte cp.async to a destination 4 bytes off; mode 2 the 8-byte copy from a
// 4-byte aligned source reading 4 bytes; mode 3 the same from an aligned source (correct).
extern "C" __global__ void async_misaligned(const unsigned short* in, int mode) {
  PF_DYNAMIC_SHARED(smem);
  if (mode == 0) pf::cp_async16(smem, in + 1, 0);
  if (mode == 1) pf::cp_async_small<8>(smem + 4, in, 8);
  if (mode == 2) pf::cp_async_small<8>(smem + 8, in + 2, 4);
  if (mode == 3) pf::cp_async_small<8>(smem + 8, in + 4, 4);
  pf::cp_async_wait_all();
}

// ---- shared-memory races (64 threads: warps 0 and 1) --------------------------------------
//   mode 0: write s[t]; barrier; read s[(t + 1) % 64]; barrier; write s[t]    (correct)
//   mode 1: write s[t]; threads >= 32 read s[t - 32]                  (read-after-write)
//   mode 2: threads < 32 read s[t + 32]; write s[t]                   (write-after-read)
//   mode 3: write s[t % 32]                                           (write-after-write)
//   mode 4: write s[t]; read s[t ^ 1]          (lanes of one warp, no __syncwarp: race)
//   mode 5: write s[t]; __syncwarp; read s[t ^ 1]; __syncwarp; write s[t]     (correct)
extern "C" __global__ void shared_race(float* out, int mode) {
  PF_DYNAMIC_SHARED(smem);
  float* s = reinterpret_cast<float*>(smem);
  const int t = threadIdx.x;
  float v = 0.f;
  if (mode == 0) {
    pf::sts(s + t, 1.f * t);
    __syncthreads();
    v = pf::lds(s + (t + 1) % 64);
    __syncthreads();
    pf::sts(s + t, v);
  } else if (mode == 1) {
    pf::sts(s + t, 1.f * t);
    if (t >= 32) v = pf::lds(s + t - 32);
  } else if (mode == 2) {
    if (t < 32) v = pf::lds(s + t + 32);
    pf::sts(s + t, 1.f * t);
  } else if (mode == 3) {
    pf::sts(s + t % 32, 1.f * t);
  } else if (mode == 4) {
    pf::sts(s + t, 1.f * t);
    v = pf::lds(s + (t ^ 1));
  } else if (mode == 5) {
    pf::sts(s + t, 1.f * t);
    __syncwarp();
    v = pf::lds(s + (t ^ 1));
    __syncwarp();
    pf::sts(s + t, v);
  }
  pf::stg(out + t, v);
}

// ---- global-memory races between blocks (2 blocks of 32 threads) ---------------------------
//   mode 0: block b writes out[32b + t]                     (correct)
//   mode 1: both blocks write out[t]                        (write-after-write)
//   mode 2: block 0 writes out[t], block 1 reads it         (read-after-write)
//   mode 3: block 0 reads out[t], block 1 writes it         (write-after-read)
//   mode 4: both blocks atomicAdd 1 to out[t]               (correct: atomics)
extern "C" __global__ void global_race(float* out, int mode) {
  const int t = threadIdx.x, b = blockIdx.x;
  if (mode == 0) pf::stg(out + 32 * b + t, 1.f);
  if (mode == 1) pf::stg(out + t, 1.f * b);
  if (mode == 2 || mode == 3) {
    if ((b == 0) == (mode == 2)) pf::stg(out + t, 1.f);
    else pf::stg(out + 32 + t, pf::ldg(out + t));
  }
  if (mode == 4) atomicAdd(out + t, 1.f);
}

// ---- schedules -----------------------------------------------------------------------------
// Each thread appends its index to trace (trace[0] counts, plain unchecked accesses) when it
// starts, after `accesses` checked stores of its own, and after a __syncthreads.
extern "C" __global__ void schedule_trace(int* trace, float* scratch, int accesses) {
  const int t = threadIdx.x;
  trace[++trace[0]] = t;
  for (int i = 0; i < accesses; ++i) pf::stg(scratch + t, 1.f * i);
  trace[++trace[0]] = t;
  __syncthreads();
  trace[++trace[0]] = t;
}
