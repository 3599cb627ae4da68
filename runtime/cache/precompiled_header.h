// A precompiled include block for the code polyfuse builds at run time (the emulator's kernels,
// runtime/emu; the CPU target's generated C++, runtime/cpu): GCC's precompiled form of a few
// #include lines, built once per compiler, flags, lines and header contents into the artefact
// cache (atomic writes, checksummed like the objects) and used from then on. Parsing the
// headers (the C++ standard library's above all) is most of a small generated file's build.
//
// A build force-includes a stub, <root>/<kind>/<hash>.h, holding the include lines; GCC takes
// <hash>.h.gch beside it when it is valid for the build's flags and otherwise reads the stub's
// text: the same declarations either way. None (an empty stub) when the compiler is not GCC,
// the cache is off, or building it failed: the caller then builds without it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/cache/artifact_cache.h"

namespace polyfuse::cache {

struct PrecompiledHeader {
  std::string stub;  // what to force-include (-include); empty: no precompiled header
  std::string key;   // for the objects' cache keys: "pch <hash>", or "pch none"
};

// `flags`: every flag of the compiles that will use it, but -include and what only the link
// takes (-shared); `include_lines`: the stub's text, #include lines; `headers_hash`: a hash of
// the project's headers those lines can reach (the standard library's are the compiler's,
// named by its identity). Looked up once per process and argument set.
PrecompiledHeader precompiled_header(ArtifactCache& store, std::string_view kind, const std::string& compiler,
                                     const std::string& flags, const std::string& include_lines,
                                     const std::string& headers_hash);

// A hash of every regular file's name and contents directly in each of `dirs` (sorted by path):
// the `headers_hash` of a header folder. A missing folder counts as empty.
std::string hash_of_headers(const std::vector<std::string>& dirs);

// `word` quoted for the shell (single quotes).
std::string shell_quote(std::string_view word);

}  // namespace polyfuse::cache
