#include "precompiled_header.h"

#include <cstdlib>
#include <filesystem>

#include "runtime/cache/precompiled_header.h"

namespace polyfuse::emu {

PrecompiledHeader precompiled_emulation_header(cache::ArtifactCache& store, const std::string& compiler,
                                               const std::string& flags, const std::string& emu_include,
                                               const std::string& helpers_include, bool wanted) {
  const std::string header = "polyfuse_emu/cuda_emulation.h";
  const PrecompiledHeader none{header, "pch none"};
  const char* env = std::getenv("POLYFUSE_EMU_PCH");
  if (!wanted || (env && std::string(env) == "0")) return none;
  // Every header the emulation header can reach in the project: the emulation headers and the
  // kernels/cuda ones.
  const std::string headers =
      cache::hash_of_headers({(std::filesystem::path(emu_include) / "polyfuse_emu").string(), helpers_include});
  const cache::PrecompiledHeader pch =
      cache::precompiled_header(store, "emu", compiler, flags, "#include \"" + header + "\"\n", headers);
  return pch.stub.empty() ? none : PrecompiledHeader{pch.stub, pch.key};
}

}  // namespace polyfuse::emu
