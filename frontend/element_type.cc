#include "frontend/element_type.h"

namespace polyfuse {

std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::f16: return "f16";
    case ElementType::bf16: return "bf16";
    case ElementType::f32: return "f32";
    case ElementType::i32: return "int32";
    case ElementType::i64: return "int64";
    case ElementType::u8: return "uint8";
    case ElementType::e4m3: return "e4m3";
    case ElementType::e5m2: return "e5m2";
  }
  return "?";
}

bool is_fp8(ElementType type) { return type == ElementType::e4m3 || type == ElementType::e5m2; }

ElementType computed_type(ElementType type) { return is_fp8(type) ? ElementType::f32 : type; }

std::optional<std::string> output_type_rule(ElementType type) {
  if (!is_fp8(type)) return std::nullopt;
  return std::string("FP8 tensors are inputs only (no backend stores ") + std::string(to_string(type)) +
         "): declare the output f16, bf16 or f32";
}

bool is_integer(ElementType type) {
  return type == ElementType::i32 || type == ElementType::i64 || type == ElementType::u8;
}

std::optional<ElementType> parse_element_type(std::string_view name) {
  if (name == "f16") return ElementType::f16;
  if (name == "bf16") return ElementType::bf16;
  if (name == "f32" || name == "float" || name == "float32") return ElementType::f32;
  if (name == "half" || name == "float16") return ElementType::f16;
  if (name == "int32") return ElementType::i32;
  if (name == "int64") return ElementType::i64;
  if (name == "uint8") return ElementType::u8;
  if (name == "e4m3") return ElementType::e4m3;
  if (name == "e5m2") return ElementType::e5m2;
  return std::nullopt;
}

std::string_view element_type_names() { return "f16, bf16, f32, float, float32, half, float16, e4m3, e5m2, int32, int64 or uint8"; }

std::optional<std::string> unsupported_type_reason(std::string_view name) {
  if (name == "double" || name == "float64")
    return "f64 is not supported: every backend computes in f32 (declare the tensor 'float')";
  static constexpr std::string_view integers[] = {"int8", "int16", "uint16", "uint32", "uint64", "bool"};
  for (std::string_view integer : integers)
    if (name == integer) return "the integer types are int32, int64 and uint8";
  return std::nullopt;
}

int size_in_bytes(ElementType type) {
  switch (type) {
    case ElementType::f16:
    case ElementType::bf16: return 2;
    case ElementType::f32:
    case ElementType::i32: return 4;
    case ElementType::i64: return 8;
    case ElementType::u8:
    case ElementType::e4m3:
    case ElementType::e5m2: return 1;
  }
  return 4;
}

ElementType common_type(ElementType a, ElementType b) {
  if (a == b) return a;
  if (is_integer(a) && is_integer(b))
    return a == ElementType::i64 || b == ElementType::i64 ? ElementType::i64 : ElementType::i32;
  return ElementType::f32;
}

}  // namespace polyfuse
