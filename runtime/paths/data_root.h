// Where polyfuse finds its data files at run time: the emulator's headers, the kernels/cuda
// helpers, the kernels/cpu headers and archive, and (in tests) examples and golden files.
// They lie under one folder, the data root, laid out as in the source tree (examples/,
// kernels/cuda/, runtime/emu/include/, ...). It is, in this order:
//   1. $POLYFUSE_DATA_DIR, when set and not empty;
//   2. <folder of the binary>/../share/polyfuse, when that folder exists: a relocated copy
//      such as the GPU check kit (scripts/gpu-kit), whose bin/ and lib/ lie beside share/;
//   3. the source tree the build was configured from.
//
//   const DataRoot root = data_root(reinterpret_cast<const void*>(&some_function), POLYFUSE_SOURCE_ROOT);
//   root.path / "kernels" / "cuda"
#pragma once

#include <filesystem>

namespace polyfuse::paths {

// Which rule chose the data root.
enum class DataRootOrigin { environment, relocated, source_tree };

struct DataRoot {
  std::filesystem::path path;
  DataRootOrigin origin = DataRootOrigin::source_tree;
};

// The data root as seen from the binary (executable or shared library) that holds
// `anchor`, the address of any of its functions; `source_tree` is rule 3's folder (the
// build's POLYFUSE_SOURCE_ROOT). Step 2 looks beside that binary and beside the running
// executable (/proc/self/exe).
DataRoot data_root(const void* anchor, const std::filesystem::path& source_tree);

}  // namespace polyfuse::paths
