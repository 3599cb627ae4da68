#include "frontend/element_type.h"

namespace polyfuse {

std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::f16: return "f16";
    case ElementType::bf16: return "bf16";
    case ElementType::f32: return "f32";
  }
  return "?";
}

std::optional<ElementType> parse_element_type(std::string_view name) {
  if (name == "f16") return ElementType::f16;
  if (name == "bf16") return ElementType::bf16;
  if (name == "f32" || name == "float" || name == "float32") return ElementType::f32;
  if (name == "half" || name == "float16") return ElementType::f16;
  return std::nullopt;
}

std::string_view element_type_names() { return "f16, bf16, f32, float, float32, half or float16"; }

std::optional<std::string> unsupported_type_reason(std::string_view name) {
  if (name == "double" || name == "float64")
    return "f64 is not supported: every backend computes in f32 (declare the tensor 'float')";
  static constexpr std::string_view integers[] = {"int8", "int16", "int32", "int64", "uint8",
                                                  "uint16", "uint32", "uint64", "bool"};
  for (std::string_view integer : integers)
    if (name == integer)
      return "integer tensors are not supported yet (index tensors for gathers, such as an embedding lookup's, "
             "wait for issue 23 item 3)";
  return std::nullopt;
}

int size_in_bytes(ElementType type) { return type == ElementType::f32 ? 4 : 2; }

ElementType common_type(ElementType a, ElementType b) { return a == b ? a : ElementType::f32; }

}  // namespace polyfuse
