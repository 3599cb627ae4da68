// Spelling things in the generated C++ of the CPU target: identifiers that cannot clash
// with C++ keywords or the names the generated code uses itself, literals, types.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/element_type.h"
#include "frontend/expr.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// C++ identifiers of a plan's tensors and of a stage's loop variables.
class CpuNames {
 public:
  // Names every tensor of `plan`: its own name, with '_' appended while it is a C++
  // keyword, one of the generated code's own names, or taken.
  explicit CpuNames(const CpuPlan& plan);

  // The identifier of tensor `tensor`.
  const std::string& tensor(const std::string& tensor) const;
  // A local name `wanted`, or that with '_' appended while it clashes with a tensor's
  // identifier or a reserved name.
  std::string variable(std::string wanted) const;
  // A loop variable for index `index` (or `index` + "0"): variable(), and prefixed with
  // "i_" if it looks like a name the generated code makes from statement ids.
  std::string loop_variable(const std::string& index) const;

 private:
  bool taken(const std::string& name) const;
  std::map<std::string, std::string> tensors_;
};

// The element type of a buffer of `type` in generated code ("float", "uint16_t").
std::string cxx_element_type(ElementType type);
// The kernels/cpu dtype ("DType::f16").
std::string cxx_dtype(ElementType type);
// The kernels/cpu UnaryOp or BinaryOp name of `function` ("relu", "max", ...; GELU's exact
// form, the language's gelu_erf, is kernels/cpu's "gelu").
std::string cpu_op_name(Function function);
// A float literal that round-trips ("2.0f", "0.1f", "1e-05f").
std::string float_literal(double value);
// "a + b * 64 + c" from the terms, dropping empty ones; "0" if none.
std::string sum_text(const std::vector<std::string>& terms);
// The OpenMP pragma (and its newline) of `depth` nested parallel loops, collapsed, with `plan`'s
// thread count; `in_region`: the loops of an enclosing parallel region (cpu_omp_parallel).
std::string cpu_omp_for(const CpuPlan& plan, int depth, bool in_region = false);
// The same for `threads` (0: OpenMP's default, no num_threads clause).
std::string cpu_omp_for(int threads, int depth, bool in_region = false);
std::string cpu_omp_parallel(const CpuPlan& plan);

// The comment line of a generated file that says on how many threads it runs: "// Threads: 1
// (num_threads clauses)" for `threads` > 0, "// Threads: OpenMP's default ..." for 0. `polyfuse run
// --kernel-source` refuses a file whose line differs from its own run's (runtime/api/run_program.cc).
std::string cpu_threads_line(int threads);

// The comment lines of a generated file that say how to build it (what runtime/cpu does), the
// flags every build gets included (runtime/cpu/cpu_module.cc: required_flags).
std::string cpu_build_comment();

}  // namespace polyfuse
