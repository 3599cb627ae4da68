// CUDA's vector types needed by the emulator API and by emulated kernels (no macros here,
// so host code may include it freely).
#pragma once

// A program that also uses the CUDA runtime (tests/gpu) includes <cuda_runtime.h> first and
// gets CUDA's own definitions, which have the same layout.
#if !defined(__VECTOR_TYPES_H__)

struct uint3 {
  unsigned x, y, z;
};

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

struct __attribute__((aligned(8))) float2 {
  float x, y;
};
struct __attribute__((aligned(16))) float4 {
  float x, y, z, w;
};
struct __attribute__((aligned(16))) uint4 {
  unsigned x, y, z, w;
};
struct __attribute__((aligned(16))) int4 {
  int x, y, z, w;
};
#endif
