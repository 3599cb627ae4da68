// Evaluates the C expressions of launch metadata (grid sizes such as "(M + 127) / 128")
// over size values: integers, size names, + - * / %, unary minus and parentheses.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace polyfuse::api {

// The value of `expression`; std::invalid_argument naming the problem (an unknown
// name, a syntax error, division by zero).
std::int64_t evaluate_size_expression(const std::string& expression, const std::map<std::string, std::int64_t>& sizes);

}  // namespace polyfuse::api
