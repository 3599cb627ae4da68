// A tensor program (.tc text) with its sizes bound, compiled to a kernel at run time.
//
//   auto program = polyfuse::TensorProgram::from_file("gemm.tc");
//   program.bind("M", 1024).bind("N", 1024).bind("K", 512);
//   polyfuse::CompiledKernel kernel = program.compile({.backend = polyfuse::Backend::emu});
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "polyfuse/autotune.h"
#include "polyfuse/compiled_kernel.h"
#include "polyfuse/kernel_info.h"
#include "polyfuse/options.h"

namespace polyfuse {

class TensorProgram {
 public:
  // Parses and checks `text` (reported under `name`). Throws SourceError.
  static TensorProgram parse(std::string text, std::string name = "<text>");
  // Reads and parses the file at `path`. Throws SourceError.
  static TensorProgram from_file(const std::string& path);

  // Binds a size (e.g. "M") to a value from 1 up; a size not used by any def is ignored.
  TensorProgram& bind(const std::string& size, std::int64_t value);
  TensorProgram& bind(const std::map<std::string, std::int64_t>& sizes);
  // The sizes bound so far.
  const std::map<std::string, std::int64_t>& sizes() const;

  // The defs of the file in order.
  std::vector<std::string> defs() const;
  // The size names a def uses that are still unbound (they become kernel parameters).
  std::vector<std::string> unbound_sizes(const std::string& def = "") const;
  // The tensors of a def in signature order (inputs, then outputs; a dimension is a number,
  // or the name of a size still unbound), then its unbound sizes: what a launch of its
  // compiled kernel takes, known before anything is compiled. Throws SourceError.
  std::vector<ParameterInfo> signature(const std::string& def = "") const;

  // Generates the kernel of `def` (empty: the only/first def), or the kernels of its plan
  // when it is not one fused kernel (see compiled_kernel.h; a plan needs every size bound),
  // and compiles it for options.backend. Throws SourceError (program or options),
  // CompileError.
  CompiledKernel compile(const CompileOptions& options = {}, const std::string& def = "") const;
  // Chooses the tile options of `def`'s kernel for its bound sizes (polyfuse/autotune.h):
  // from the winner cache, else by timing candidates on the GPU, or without one by the static
  // ranking. `options` gives the arch and the other non-tile options. Throws SourceError
  // (tile options set, unbound sizes, a plan, Backend::cpu), CompileError.
  AutotuneReport autotune(const CompileOptions& options = {}, const std::string& def = "") const;
  // Only generates the CUDA source (no NVRTC); a plan's holds every kernel.
  std::string cuda_source(const CompileOptions& options = {}, const std::string& def = "") const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  explicit TensorProgram(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
};

}  // namespace polyfuse
