// The polyfuse version.
#pragma once

#define POLYFUSE_VERSION_MAJOR 0
#define POLYFUSE_VERSION_MINOR 1
#define POLYFUSE_VERSION_PATCH 0

namespace polyfuse {
// "0.1.0"
inline const char* version() { return "0.1.0"; }
}  // namespace polyfuse
