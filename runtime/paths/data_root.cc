#include "runtime/paths/data_root.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace polyfuse::paths {
namespace fs = std::filesystem;

namespace {

// The folders of the binary holding `anchor` and of the running executable.
std::vector<fs::path> binary_folders(const void* anchor) {
  std::vector<fs::path> folders;
  Dl_info info{};
  if (anchor && dladdr(anchor, &info) && info.dli_fname && info.dli_fname[0] == '/')
    folders.push_back(fs::path(info.dli_fname).parent_path());
  std::error_code ec;
  const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) folders.push_back(executable.parent_path());
  return folders;
}

}  // namespace

DataRoot data_root(const void* anchor, const fs::path& source_tree) {
  if (const char* dir = std::getenv("POLYFUSE_DATA_DIR"); dir && *dir) return {dir, DataRootOrigin::environment};
  for (const fs::path& folder : binary_folders(anchor)) {
    const fs::path share = folder.parent_path() / "share" / "polyfuse";
    std::error_code ec;
    if (fs::is_directory(share, ec)) return {share.lexically_normal(), DataRootOrigin::relocated};
  }
  return {source_tree, DataRootOrigin::source_tree};
}

}  // namespace polyfuse::paths
