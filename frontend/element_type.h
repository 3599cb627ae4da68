// Element types of tensors: f16, bf16 and f32, and how they combine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace polyfuse {

// The scalar type of a tensor's elements.
enum class ElementType { f16, bf16, f32 };

// The spelling of `type` in the language ("f16", "bf16", "f32").
std::string_view to_string(ElementType type);

// The type spelled `name`, or nullopt if `name` is not a type of the language. Tensor
// Comprehensions' names are aliases: `float` and `float32` are f32, `half` and `float16` f16.
std::optional<ElementType> parse_element_type(std::string_view name);

// The spellings parse_element_type accepts, for messages ("f16, bf16, f32, float, ...").
std::string_view element_type_names();

// Why `name`, one of Tensor Comprehensions' other type names (`double`, `float64`, `int32`,
// `int64`, `uint8`, `bool`, ...), is refused; nullopt for any other name.
std::optional<std::string> unsupported_type_reason(std::string_view name);

// Size of one element in bytes (2 or 4).
int size_in_bytes(ElementType type);

// The type both `a` and `b` convert to without loss: equal types stay, any mix of
// different types (f16 with bf16, or either with f32) gives f32.
ElementType common_type(ElementType a, ElementType b);

}  // namespace polyfuse
