#include "frontend/size_bindings.h"

#include <charconv>
#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "frontend/limits.h"

namespace polyfuse {

static bool is_name(std::string_view text) {
  if (text.empty()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

void add_size_binding(SizeBindings& bindings, std::string_view text) {
  std::string shown = quote_name(text);
  std::size_t equals = text.find('=');
  if (equals == std::string_view::npos)
    throw UserError(fmt::format("`sizes` {}: expected NAME=VALUE, e.g. M=1024", shown));
  std::string_view name = text.substr(0, equals);
  std::string_view value_text = text.substr(equals + 1);
  if (!is_name(name))
    throw UserError(fmt::format("`sizes` {}: {} is not a size name", shown, quote_name(name)));
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
  bool digits_only = !value_text.empty() &&
                     value_text.find_first_not_of("0123456789-") == std::string_view::npos;
  if (ec == std::errc::result_out_of_range && digits_only)
    throw UserError(fmt::format("`sizes` {}: value is too large (the limit is {})", shown,
                                limits::max_size_value));
  if (ec != std::errc() || ptr != value_text.data() + value_text.size())
    throw UserError(fmt::format("`sizes` {}: the value must be an integer", shown));
  if (value < 1) throw UserError(fmt::format("`sizes` {}: sizes must be at least 1", shown));
  if (value > limits::max_size_value)
    throw UserError(fmt::format("`sizes` {}: value is too large (the limit is {})", shown,
                                limits::max_size_value));
  auto [it, inserted] = bindings.emplace(std::string(name), value);
  if (!inserted && it->second != value)
    throw UserError(fmt::format("`sizes` {}: size {} is already bound to {}", shown, quote_name(name),
                                it->second));
}

}  // namespace polyfuse
