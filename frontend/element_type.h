// Element types of tensors: f16, bf16 and f32, the FP8 types e4m3 and e5m2 (inputs only), the
// integer types i32, i64 and u8 (TC's int32, int64 and uint8), and how they combine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace polyfuse {

// The scalar type of a tensor's elements. Integer tensors hold index tensors (gathers) and
// integer data; every expression computes in f32, where an integer's value is exact up to 2^24.
// e4m3 and e5m2 are the OCP FP8 formats (kernels/cpu/include/polyfuse/cpu/fp8.h): a program's
// inputs may have them, every value computed from them is f32 (computed_type).
enum class ElementType { f16, bf16, f32, i32, i64, u8, e4m3, e5m2 };

// True for i32, i64 and u8.
bool is_integer(ElementType type);

// True for e4m3 and e5m2.
bool is_fp8(ElementType type);

// The type of a value computed from (or copied out of) a tensor of `type`, for the tensors a
// program declares by inference: `type` itself, except f32 for the FP8 types (no backend
// stores FP8; they are inputs only).
ElementType computed_type(ElementType type);

// The spelling of `type` in the language ("f16", "bf16", "f32", "int32", "int64", "uint8",
// "e4m3", "e5m2").
std::string_view to_string(ElementType type);

// The type spelled `name`, or nullopt if `name` is not a type of the language. Tensor
// Comprehensions' names are aliases: `float` and `float32` are f32, `half` and `float16` f16;
// `int32`, `int64` and `uint8` (TC's spellings) are the integer types.
std::optional<ElementType> parse_element_type(std::string_view name);

// The spellings parse_element_type accepts, for messages ("f16, bf16, f32, float, ...").
std::string_view element_type_names();

// Why `name`, one of Tensor Comprehensions' other type names (`double`, `float64`, `int8`,
// `int16`, `uint32`, `bool`, ...), is refused; nullopt for any other name.
std::optional<std::string> unsupported_type_reason(std::string_view name);

// Why a tensor of `type` cannot be declared an output, nullopt when it can: FP8 tensors are
// inputs only.
std::optional<std::string> output_type_rule(ElementType type);

// Size of one element in bytes (1, 2, 4 or 8).
int size_in_bytes(ElementType type);

// The type of a value computed from `a` and `b`: equal types stay, two different integer
// types give the wider (i64 with anything, else i32), any other mix (f16 with bf16, a float
// type with an integer type, either with f32) gives f32.
ElementType common_type(ElementType a, ElementType b);

}  // namespace polyfuse
