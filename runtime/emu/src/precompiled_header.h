// The emulator's precompiled header (module.cc): GCC's precompiled form of
// polyfuse_emu/cuda_emulation.h, which every run-time kernel build force-includes
// (runtime/cache/precompiled_header.h, kind "emu": a stub <root>/emu/<hash>.h and its .gch).
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

}  // namespace polyfuse::emu
