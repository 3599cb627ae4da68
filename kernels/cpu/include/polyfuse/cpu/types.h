// Basic vocabulary of the CPU primitives: element types, matrix layouts, instruction
// sets, the configuration error, and scalar f16/bf16/FP8 conversions.
//
// Conventions (the seeds' column-major view): a matrix X of R rows and C columns with
// leading dimension ld holds element (r, c) at
//   col_major: x[r + c * ld]        row_major: x[r * ld + c]
// Every size, leading dimension and stride is counted in elements, never bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>


namespace polyfuse::cpu {

// Element type of a primitive's inputs. BRGEMM always accumulates (and stores C) in f32.
// e4m3 and e5m2 are the OCP FP8 formats of fp8.h (one byte), decoded exactly to f32 where
// they are read (BRGEMM: in its packing).
enum class DType { f32, f16, bf16, e4m3, e5m2 };

// Storage order of one matrix operand (see the file comment).
enum class Layout { col_major, row_major };

// Instruction-set path of a kernel. `native` means "the best this CPU runs" (after the
// POLYFUSE_CPU_ISA environment cap, see isa.h); the others force one path.
enum class Isa { native, generic, avx2, avx512, neon };

// Bytes of one element of `type`.
int64_t dtype_size(DType type);
// "f32", "f16", "bf16" (and the same style for the other enums).
const char* to_string(DType type);
const char* to_string(Layout layout);
const char* to_string(Isa isa);

// A kernel or tensor-operation configuration broke a rule. what() names the field and
// the rule, e.g. "BrgemmConfig.m: must be > 0 (got 0)".
class ConfigError : public std::invalid_argument {
 public:
  explicit ConfigError(const std::string& message) : std::invalid_argument(message) {}
};

// --- scalar conversions (round to nearest even; NaN stays NaN; f16 -> f32 makes it quiet,
// keeping its payload, as vcvtph2ps does; bf16 -> f32 is the exact 16-bit shift) ---------
inline float bf16_to_f32(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

inline uint16_t f32_to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

float f16_to_f32(uint16_t bits);
uint16_t f32_to_f16(float value);

// f16_to_f32 for the scalar loops of generated code, inline: F16C's vcvtph2ps where the
// translation unit is compiled for it (the CPU target's -march=native; exact, NaNs quieted as
// above: the same bits), else the function above. Internal linkage: translation units built
// with and without F16C each keep their own.
//
// vcvtph2ps is spelt as <immintrin.h>'s _cvtsh_ss spells it, by the builtin GCC and clang share:
// that header (60,000 lines of declarations) was most of the parsing of every generated module.
static inline float f16_to_f32_inline(uint16_t bits) {
#if defined(__F16C__)
  typedef short halves __attribute__((vector_size(16)));
  const halves h = {static_cast<short>(bits), 0, 0, 0, 0, 0, 0, 0};
  return __builtin_ia32_vcvtph2ps(h)[0];
#else
  return f16_to_f32(bits);
#endif
}

// f16_to_f32 again, in integer and f32 operations with no branch and no select: for loops the
// compiler vectorises (generated code's reduce_terms, 32 terms a loop), where vcvtph2ps is one
// element a conversion: an f16 layer norm's mean(m) +=! X(m, n) / N at 1024 x 1024 on one AVX-512
// core 0.37 -> 0.13 ms. (Masks, not `?:`: generated code is built with -fno-tree-loop-if-convert.)
// Normal: the exponent rebiased by 112; subnormal (exponent 0, zero too): the mantissa converted
// exactly and scaled by 2^-24 (no subnormal f32 operand, so DAZ cannot change it); infinity and
// NaN: quieted as above. Checked against f16_to_f32 for all 65,536 patterns (tests/kernels_cpu).
static inline float f16_to_f32_lanes(uint16_t bits) {
  const uint32_t h = bits, sign = (h & 0x8000u) << 16, magnitude = h & 0x7fffu, exponent = magnitude >> 10;
  const uint32_t normal = (magnitude << 13) + (112u << 23);
  const float subnormal = static_cast<float>(static_cast<int32_t>(magnitude)) * 0x1p-24f;
  uint32_t subnormal_bits;
  std::memcpy(&subnormal_bits, &subnormal, sizeof subnormal_bits);
  const uint32_t special = (magnitude << 13) | 0x7f800000u | (static_cast<uint32_t>((magnitude & 0x3ffu) != 0) << 22);
  const uint32_t is_subnormal = 0u - static_cast<uint32_t>(exponent == 0);
  const uint32_t is_special = 0u - static_cast<uint32_t>(exponent == 31);
  const uint32_t out =
      (subnormal_bits & is_subnormal) | (special & is_special) | (normal & ~(is_subnormal | is_special)) | sign;
  float value;
  std::memcpy(&value, &out, sizeof value);
  return value;
}

// FP8 -> f32, exact (fp8.h's to_f32, by a 256-entry table); f32 -> FP8 as fp8.h's from_f32
// (cvt.rn.satfinite: nearest even, saturating at the largest finite value).
float e4m3_to_f32(uint8_t code);
float e5m2_to_f32(uint8_t code);
uint8_t f32_to_e4m3(float value);
uint8_t f32_to_e5m2(float value);

// --- bulk widening of `n` contiguous values (the packing routines' conversions) --------
// Bit-identical to the scalar conversions above; F16C (f16) and AVX2 (bf16) where this
// CPU has them and the ISA cap (isa.h: POLYFUSE_CPU_ISA) allows AVX2, else scalar.
void f16_to_f32(const uint16_t* src, int64_t n, float* dst);
void bf16_to_f32(const uint16_t* src, int64_t n, float* dst);
// ... and narrowing (elementwise.h's stores), bit-identical to f32_to_f16 / f32_to_bf16 above:
// F16C's vcvtps2ph with its NaNs made the scalar conversion's (the sign and 0x7e00), and AVX2.
void f32_to_f16(const float* src, int64_t n, uint16_t* dst);
void f32_to_bf16(const float* src, int64_t n, uint16_t* dst);

// True when the bulk conversions take the vector path on this CPU.
bool bulk_conversions_vectorised();

}  // namespace polyfuse::cpu
