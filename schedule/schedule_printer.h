// Readable dumps of schedule trees: isl's block-style YAML, one node per line, the
// format of the golden files in tests/golden/schedule/.
#pragma once

#include <isl/cpp.h>

#include <string>

namespace polyfuse {

// The whole tree of `schedule` as block-style YAML (the only raw isl printer calls).
std::string schedule_to_text(const isl::schedule& schedule);

}  // namespace polyfuse
