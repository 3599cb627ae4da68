// Every GPU example (examples/*.tc) at sizes that take each kernel its rules give: tile-friendly
// sizes, odd sizes whose operands TMA can load (edge tiles, K tails) and odd sizes it cannot;
// the convolutions in f16 (the sm_90a implicit GEMM) and as written (f32). Shared by the
// emulator's sweep (Sm90aExamplesEmu) and the GPU's (CudaExamples).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "frontend/program.h"
#include "frontend/size_bindings.h"

namespace polyfuse::testing {

struct ExampleShape {
  std::string example;
  SizeBindings sizes;
  std::string type;  // "" as written, else its f32 tensors made this type (the convolutions)
};

// Every example at each of its shapes; `one_each`: one odd TMA-loadable shape per example and
// type (the GPU's shorter sweep).
std::vector<ExampleShape> example_shapes(bool one_each = false);

// "conv2d_f16 C=16 H=9 ..." (and a gtest-friendly name: letters, digits and '_').
std::string example_label(const ExampleShape& e);
std::string example_test_name(const ExampleShape& e);

// The example's program with its sizes bound (and its type made e.type).
Program example_program(const ExampleShape& e);

// gtest's printer of a parameter: its label.
inline void PrintTo(const ExampleShape& e, std::ostream* out) { *out << example_label(e); }

}  // namespace polyfuse::testing
