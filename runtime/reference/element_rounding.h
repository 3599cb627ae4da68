// Rounding between f32 and the 16-bit element types, as every backend's reference uses it.
//
// Values of every tensor are held as f32 (`float`); a tensor of type f16 or bf16 holds
// only values representable in that type. Conversions round to nearest, ties to even;
// values beyond the largest finite f16 become +-inf, NaN stays NaN. bf16 has the range
// of f32, so only its precision is reduced. The bit patterns are IEEE binary16 (f16)
// and the upper half of an IEEE binary32 (bf16), as generated code stores them. A value
// stored to an integer type (int32, int64, uint8) rounds to the nearest integer (ties to
// even) and saturates at the type's range, NaN giving 0 (PTX's cvt.rni.sat); an integer
// element is held as the float of its value (exact up to 2^24). The FP8 types (e4m3, e5m2:
// one byte) round as polyfuse/cpu/fp8.h defines (cvt.rn.satfinite: nearest even, saturating
// at the largest finite value).
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/element_type.h"
#include "polyfuse/cpu/fp8.h"

namespace polyfuse::reference {

// f32 -> IEEE binary16 bits, round to nearest even (subnormals, overflow to inf).
std::uint16_t f32_to_f16_bits(float value);
// IEEE binary16 bits -> f32 (exact).
float f16_bits_to_f32(std::uint16_t bits);
// f32 -> bfloat16 bits, round to nearest even.
std::uint16_t f32_to_bf16_bits(float value);
// bfloat16 bits -> f32 (exact).
float bf16_bits_to_f32(std::uint16_t bits);

// The fp8.h format of the FP8 type `type` (checked).
fp8::Format fp8_format(ElementType type);

// `value` rounded to the nearest value of `type` (identity for f32; FP8 saturates).
float round_to(ElementType type, float value);
// `value` stored to the integer type `type`: nearest integer (ties to even), saturated at the
// type's range, 0 for NaN.
double integer_stored(ElementType type, double value);

// Bits of `value` stored as `type` (f16/bf16 only; checked).
std::uint16_t to_bits(ElementType type, float value);
// Value of the `type` bits `bits` (f16/bf16 only; checked).
float from_bits(ElementType type, std::uint16_t bits);

// `values` as a backend stores a tensor of `type`: 16-bit patterns for f16/bf16, bytes for FP8, the
// floats themselves for f32, the integers for int32/int64/uint8 (host byte order).
std::vector<unsigned char> encode_tensor(ElementType type, const std::vector<float>& values);
// The inverse of encode_tensor: `bytes` holds values.size() elements of `type`.
void decode_tensor(ElementType type, const std::vector<unsigned char>& bytes, std::vector<float>& values);

// Unit roundoff of `type`: half the distance from 1 to the next value
// (f16 2^-11, bf16 2^-8, f32 2^-24, e4m3 2^-4, e5m2 2^-3; 0 for the integer types, which
// hold exact values).
double unit_roundoff(ElementType type);

}  // namespace polyfuse::reference
