// Size bindings: `-D NAME=VALUE` on the command line (TensorProgram::bind in the API)
// fixes a size.
//
// A bound size becomes a constant in every domain; an unbound one stays an isl
// parameter. Values must be integers from 1 to limits::max_size_value.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace polyfuse {

// Size name -> value.
using SizeBindings = std::map<std::string, std::int64_t, std::less<>>;

// Parses "NAME=VALUE" and adds it to `bindings`. Throws UserError (no location) for a
// malformed text, a value out of range, or a name already bound to another value.
void add_size_binding(SizeBindings& bindings, std::string_view text);

}  // namespace polyfuse
