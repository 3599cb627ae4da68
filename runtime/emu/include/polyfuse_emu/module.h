// Run-time builds for the emulator: a .cu text is compiled as C++ by the system compiler
// (g++ -O2 -g1 -shared -fPIC, with polyfuse_emu/cuda_emulation.h force-included and the
// kernels/cuda helpers on the include path, both from the data root of runtime/paths, or
// $POLYFUSE_EMU_INCLUDE_DIR and $POLYFUSE_CUDA_HELPERS_DIR) into a shared object kept in the
// artefact cache (runtime/cache, kind "emu": keyed by the source, the compiler, the flags
// and the emulation headers; checksummed), with the source beside it (<hash>.cu); the
// object is dlopen'ed and resolves the emulator's hooks from libpolyfuse_emu.so, which it
// links against.
//
//   auto m = polyfuse::emu::Module::compile(source_text);          // kernels found by scan
//   m.launch("gemm", dim3(2, 2), dim3(128), 32768, {KernelArg::pointer(a), KernelArg::i32(n)});
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "polyfuse_emu/emulator.h"

namespace polyfuse::emu {

// One kernel argument by value ('p' pointer, 'i' int32, 'l' int64, 'f' float, 'm' tensor map).
struct KernelArg {
  char kind = 'p';
  union {
    const void* p;
    std::int32_t i;
    std::int64_t l;
    float f;
  } value{};
  static KernelArg pointer(const void* p) { KernelArg a; a.kind = 'p'; a.value.p = p; return a; }
  static KernelArg i32(std::int32_t v) { KernelArg a; a.kind = 'i'; a.value.i = v; return a; }
  static KernelArg i64(std::int64_t v) { KernelArg a; a.kind = 'l'; a.value.l = v; return a; }
  static KernelArg f32(float v) { KernelArg a; a.kind = 'f'; a.value.f = v; return a; }
  // A tensor map by value: `bytes` (128, 64-byte aligned: runtime/tma's TensorMapBytes) must
  // outlive the launch.
  static KernelArg tensor_map(const void* bytes) { KernelArg a; a.kind = 'm'; a.value.p = bytes; return a; }
};

struct BuildOptions {
  std::string compiler;                   // default: $POLYFUSE_EMU_CXX, else $CXX, else "c++"
  std::vector<std::string> extra_flags;   // e.g. {"-DTILE=64"}; $POLYFUSE_EMU_CXXFLAGS adds more to every build
  std::string cache_dir;                  // the artefact cache's root (objects go to <root>/emu);
                                          // default: $POLYFUSE_EMU_CACHE_DIR, else <build>/emu-cache
                                          // (not from a relocated copy), else the user's cache
                                          // (runtime/cache/artifact_cache.h)
  bool precompiled_header = true;         // cuda_emulation.h precompiled when the compiler is GCC
                                          // (runtime/emu/src/precompiled_header.h); $POLYFUSE_EMU_PCH=0: never
  bool poison_registers = true;           // built with -ftrivial-auto-var-init=pattern (GCC 12, clang 8):
                                          // a register (local variable) read before it is written holds
                                          // 0xfe bytes (f16 NaN, f32 -1.7e38), not what the fiber's stack
                                          // held (often zeros, which hid a split-K accumulator never
                                          // initialised); $POLYFUSE_EMU_POISON_REGISTERS=0: never
};

class Module {
 public:
  // Builds (or reuses from the cache) the kernels of `source`. `kernel_names` are the
  // extern "C" __global__ functions to export; empty: every `__global__ void NAME(` found.
  static Module compile(std::string_view source, const BuildOptions& options = {},
                        std::vector<std::string> kernel_names = {});
  static Module compile_file(const std::string& path, const BuildOptions& options = {},
                             std::vector<std::string> kernel_names = {});

  // Launches `kernel`; the argument kinds must match its parameters.
  // `cluster`: the thread-block cluster's dimension (launch_body).
  Stats launch(std::string_view kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
               const std::vector<KernelArg>& args, dim3 cluster = dim3(1, 1, 1)) const;
  // cuLaunchKernel-style: params[i] points at the value of parameter i.
  Stats launch_raw(std::string_view kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                   void* const* params, dim3 cluster = dim3(1, 1, 1)) const;

  const std::vector<std::string>& kernels() const { return kernels_; }
  // Parameter kinds of a kernel, e.g. "ppi".
  std::string signature(std::string_view kernel) const;
  const std::string& shared_object() const { return path_; }
  bool from_cache() const { return from_cache_; }

 private:
  struct Handle;
  std::shared_ptr<Handle> handle_;
  std::vector<std::string> kernels_;
  std::string path_;
  bool from_cache_ = false;
  void* symbol(const std::string& name) const;
};

// The source scan used when no kernel names are given.
std::vector<std::string> find_kernel_names(std::string_view source);

}  // namespace polyfuse::emu
