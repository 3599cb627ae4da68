// Building generated C++ (codegen/cpu_emit.h) into a shared object with the system
// compiler, caching it on disk, and loading it.
//
// Command: <compiler> -std=c++20 -O3 -march=native -fopenmp -ffp-contract=off [-fno-tree-loop-if-convert: GCC]
//          -shared -fPIC -I<kernels/cpu/include> source.cpp <libpolyfuse_kernels_cpu.a> [-lmvec: x86-64]
//          -Wl,--exclude-libs,ALL -o <entry>.so
// The kernels are linked statically into every shared object (the archive is built
// with -fPIC) and kept private to it (--exclude-libs), so a generated library needs
// nothing from the build tree at run time and exports only its entry points.
//
// With GCC a file that starts with its #include lines is compiled with every header the
// generated code may include precompiled (kPrecompiledIncludes; runtime/cache/
// precompiled_header.h, kind "cpu": one per compiler, flags and kernels/cpu headers) and
// force-included (-include <stub>): declarations only, so the file means what it means alone,
// without parsing the standard library again for every file (about 0.35 s of a 0.6 s build).
// POLYFUSE_CPU_PCH=0: never.
//
// Cache: the artefact cache (runtime/cache/artifact_cache.h), kind "cpu": keyed by the
// source, the compiler (path and `--version`), the flags and the kernels library's and
// public headers' contents; checksummed and written atomically; the .cpp kept beside each object to be
// read. POLYFUSE_DISABLE_CACHE=1 builds into a temporary file every time. Loaded
// libraries stay loaded for the life of the process (the kernels keep thread-local
// scratch, whose destructors must outlive every thread).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace polyfuse::cpu_runtime {

// The #include lines precompiled for generated code (one line each).
extern const char* const kPrecompiledIncludes;

// How generated code is compiled.
struct CpuBuildOptions {
  std::string compiler;             // empty: the C++ compiler polyfuse was built with
  std::vector<std::string> flags = {"-std=c++20", "-O3", "-march=native", "-fopenmp"};
};

// A loaded generated library and its array-form entry point.
class CpuModule {
 public:
  // Compiles `source` (or finds it in the cache) and loads `<entry>_buffers`. Throws
  // std::runtime_error with the compiler's output when the build fails.
  static CpuModule load(const std::string& source, const std::string& entry,
                        const CpuBuildOptions& options = {});

  // Calls the entry point with one pointer per tensor in signature order.
  void operator()(void* const* buffers) const { entry_(buffers); }
  // Drops the packed copies of the constant inputs (CpuScheduleOptions::constant_inputs) after
  // their values changed behind the same pointers: <entry>_forget_constants(). A library
  // without constant inputs keeps nothing: nothing to do.
  void forget_constants() const {
    if (forget_constants_) forget_constants_();
  }

  // The shared object on disk.
  const std::string& library_path() const { return path_; }
  // True when no compiler ran for this load (disk or process cache).
  bool from_cache() const { return from_cache_; }
  // Seconds spent compiling (0 when cached).
  double build_seconds() const { return build_seconds_; }

 private:
  void (*entry_)(void* const*) = nullptr;
  void (*forget_constants_)() = nullptr;
  std::string path_;
  bool from_cache_ = false;
  double build_seconds_ = 0;
};

}  // namespace polyfuse::cpu_runtime
