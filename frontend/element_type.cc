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
  if (name == "f32" || name == "float") return ElementType::f32;
  if (name == "half") return ElementType::f16;
  return std::nullopt;
}

std::string_view element_type_names() { return "f16, bf16, f32, float or half"; }

int size_in_bytes(ElementType type) { return type == ElementType::f32 ? 4 : 2; }

ElementType common_type(ElementType a, ElementType b) { return a == b ? a : ElementType::f32; }

}  // namespace polyfuse
