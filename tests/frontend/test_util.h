// Helpers shared by the front-end tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/frontend.h"
#include "frontend/program.h"

namespace polyfuse::testing {

// Every diagnostic of compiling `source` as "line:col: error: message" (empty when the
// source compiles). Only UserError is caught: anything else fails the calling test.
std::vector<std::string> errors_of(std::string_view source, const SizeBindings& sizes = {});

// The first entry of errors_of, or "" when the source compiles.
std::string first_error(std::string_view source, const SizeBindings& sizes = {});

// Compiles `source` (which must be valid) and returns its first program.
Program compile_one(std::string_view source, const SizeBindings& sizes = {});

}  // namespace polyfuse::testing
