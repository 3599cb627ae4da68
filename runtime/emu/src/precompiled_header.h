// The emulator's precompiled header (module.cc): GCC's precompiled form of
// polyfuse_emu/cuda_emulation.h, which every run-time kernel build force-includes. Parsing
// it (the C++ standard headers it brings) is most of a small kernel's build; the
// precompiled form is built once per compiler, flags and header content into the artefact
// cache (kind "emu", atomic writes, checksummed like the objects) and used from then on.
//
// The build force-includes a stub, <root>/emu/<hash>.h, whose only line includes
// polyfuse_emu/cuda_emulation.h; GCC takes <hash>.h.gch beside it when it is valid for the
// build's flags and otherwise reads the stub's text: the same declarations either way.
// No precompiled header (the plain -include) when the compiler is not GCC, the cache is
// off, $POLYFUSE_EMU_PCH is 0, or building it failed.
#pragma once

#include <string>

#include "runtime/cache/artifact_cache.h"

namespace polyfuse::emu {

struct PrecompiledHeader {
  std::string include;  // what to force-include: the stub, or polyfuse_emu/cuda_emulation.h
  std::string key;      // for the objects' cache key: "pch <hash>", or "pch none"
};

// `flags`: the build's own flags (without the force-include); the headers are read from
// `emu_include`/polyfuse_emu and `helpers_include` (kernels/cuda). Looked up once per
// process and argument set; `wanted` false: none.
PrecompiledHeader precompiled_emulation_header(cache::ArtifactCache& store, const std::string& compiler,
                                               const std::string& flags, const std::string& emu_include,
                                               const std::string& helpers_include, bool wanted);

// The quoting module.cc uses for shell words.
std::string shell_quote(const std::string& s);

}  // namespace polyfuse::emu
