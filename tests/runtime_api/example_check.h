// Shared helper of the runtime API tests: an example of examples/ compiled through the API,
// run on host buffers (emu or cpu backend) and checked against the exact reference.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "polyfuse/polyfuse.h"
#include "runtime/reference/compare.h"
#include "runtime/reference/element_rounding.h"
#include "runtime/reference/tensor_data.h"
#include "support/golden.h"

namespace pf_api_test {

using Sizes = std::map<std::string, std::int64_t>;

// examples/<name>.tc from the source tree or a relocated data root (the GPU check kit's).
inline std::string example_text(const std::string& name) {
  const std::string path = polyfuse::testing::source_path("examples/" + name + ".tc");
  std::string text = polyfuse::testing::read_text_file(path);
  if (text.empty()) throw std::runtime_error("cannot read " + path);
  return text;
}

// Options compiling for `backend`, the rest default.
inline polyfuse::CompileOptions options_for(polyfuse::Backend backend) {
  polyfuse::CompileOptions options;
  options.backend = backend;
  return options;
}

// examples/<name>.tc with `sizes` bound, through the API.
inline polyfuse::TensorProgram example_program(const std::string& name, const Sizes& sizes) {
  auto program = polyfuse::TensorProgram::parse(example_text(name), name + ".tc");
  program.bind(sizes);
  return program;
}

// The def of `name` with `sizes`, as the reference sees it.
inline polyfuse::Program reference_program(const std::string& name, const Sizes& sizes) {
  polyfuse::SizeBindings bindings(sizes.begin(), sizes.end());
  return polyfuse::compile_source(polyfuse::SourceFile{name + ".tc", example_text(name)}, bindings).programs.front();
}

// Launches `kernel` on random inputs of `program` (one host buffer per tensor in signature
// order, `workspace` as given) and checks every output against the reference, bounding f32
// matmuls (convolutions' implicit GEMMs too) by `f32_matmul`: the GPU path's default, TF32, where
// the kernel was compiled with default options; the CPU target computes them exactly.
inline void expect_matches_reference(const polyfuse::CompiledKernel& kernel, const polyfuse::Program& program,
                              void* workspace = nullptr,
                              polyfuse::F32Matmul f32_matmul = polyfuse::F32Matmul::tf32) {
  const polyfuse::reference::TensorData inputs = polyfuse::reference::random_tensors(program, 7);
  std::vector<std::vector<unsigned char>> buffers;
  std::vector<polyfuse::Arg> args;
  std::vector<const polyfuse::Tensor*> tensors;
  for (const polyfuse::ParameterInfo& p : kernel.info().parameters) {
    ASSERT_NE(p.kind, polyfuse::ParameterInfo::Kind::size);
    for (const polyfuse::Tensor& t : program.tensors)
      if (t.name == p.name) tensors.push_back(&t);
    buffers.push_back(polyfuse::reference::encode_tensor(tensors.back()->type, inputs.at(p.name)));
  }
  for (auto& buffer : buffers) args.push_back(polyfuse::Arg::buffer(buffer.data(), buffer.size()));
  const polyfuse::LaunchStats stats = kernel.launch(args, nullptr, workspace);
  EXPECT_EQ(stats.emulated, kernel.backend() == polyfuse::Backend::emu);
  polyfuse::reference::TensorData outputs = inputs;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i]->role == polyfuse::TensorRole::output)
      polyfuse::reference::decode_tensor(tensors[i]->type, buffers[i], outputs.at(tensors[i]->name));
  const polyfuse::reference::CheckReport check = polyfuse::reference::check_outputs(
      program, inputs, outputs, kernel.backend() == polyfuse::Backend::cpu ? polyfuse::F32Matmul::f32 : f32_matmul);
  EXPECT_TRUE(check.ok) << check.to_string() << " " << check.first_failure;
}

}  // namespace pf_api_test
