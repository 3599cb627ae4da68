// How the command line spells the options that messages of the inner layers name by their
// C++ API names (frontend/diagnostics.h: options in messages): `split_k` is --split-k,
// `sizes` is -D, and so on.
#pragma once

#include <string>
#include <string_view>

namespace polyfuse::tools {

// The flag of the option the API calls `name` ("split_k" -> "--split-k"); an option the
// command line does not have keeps its API name.
std::string cli_spelling(std::string_view name);

}  // namespace polyfuse::tools
