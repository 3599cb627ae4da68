#include "frontend/tensor.h"

namespace polyfuse {

std::string Size::to_string() const { return is_symbolic() ? symbol : std::to_string(value); }

std::string_view to_string(TensorRole role) {
  switch (role) {
    case TensorRole::input: return "input";
    case TensorRole::output: return "output";
    case TensorRole::temporary: return "temporary";
  }
  return "?";
}

}  // namespace polyfuse
