// The one place where the runtime API meets the compiler: .tc text → checked defs →
// CUDA source and launch metadata. Only generate.cc includes front-end and codegen
// headers (the compiler's IR class is also called polyfuse::Program), and every compiler
// exception is turned into a public polyfuse::Error here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/launch_metadata.h"
#include "polyfuse/options.h"

namespace polyfuse::api {

using Sizes = std::map<std::string, std::int64_t>;

// What a source holds: its defs in order, and each def's unbound sizes.
struct SourceSummary {
  std::vector<std::string> defs;
  std::map<std::string, std::vector<std::string>> unbound_sizes;  // by def
};

// Parses and checks `text` with `sizes` bound. Throws SourceError.
SourceSummary summarize_source(const std::string& text, const std::string& name, const Sizes& sizes);

// A generated kernel.
struct GeneratedKernel {
  std::string source;
  LaunchMetadata metadata;
};

// Generates the CUDA kernel of `def` ("" = the first def) for `arch` with the tile
// choices of `options`. Throws SourceError (program, options), Error (internal).
GeneratedKernel generate_cuda(const std::string& text, const std::string& name, const Sizes& sizes,
                              const std::string& def, const std::string& arch, const CompileOptions& options);

// Bytes of one element of `metadata`'s tensor parameter `index`.
int element_bytes(const LaunchMetadata& metadata, std::size_t index);

}  // namespace polyfuse::api
