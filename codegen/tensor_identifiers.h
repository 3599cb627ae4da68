// Tensor names in a generated kernel that cannot clash with the kernel's own identifiers.
//
// A tensor may be called like a variable the code generator declares (`acc`, `warp`, `smem`,
// `full`, `tile`, `c`, ...): the kernel's parameter would then be shadowed by it — a compile
// error at best, a read of the wrong object at worst. emit_with_distinct_tensor_names emits the
// kernel once more with every tensor named by a placeholder no generator writes
// (`pf_tensor3_`): the two texts are the same but for the tensors' names, so in the kernel's
// code (comments, literals, qualified and member names left out) each tensor's name must occur
// exactly as often as its placeholder does. A name that occurs more often is also one of the
// kernel's own identifiers; that tensor is spelled `name_` (`name__`, ...) in the kernel, and
// the launch metadata keeps the program's name. A tensor whose placeholder the code never
// writes (a temporary kept in registers) cannot clash and keeps its name.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "codegen/cuda_emitter.h"
#include "frontend/program.h"

namespace polyfuse {

// How often each identifier occurs in the C++ `code`, leaving out comments, string and
// character literals, numbers, preprocessor lines, and names after `::`, `.` or `->`.
std::map<std::string, int> code_identifier_counts(std::string_view code);

// `program` with the tensors of `names` (old -> new) renamed everywhere: the tensors, their
// extents, and every statement's accesses and access relations.
Program with_tensor_names(const Program& program, const std::map<std::string, std::string>& names);

// emit(program), or emit of `program` with the tensors whose names clash renamed (see above);
// `helpers` is the helper text emit writes into the source (left out of the comparison).
EmittedKernel emit_with_distinct_tensor_names(const Program& program, const std::string& helpers,
                                              const std::function<EmittedKernel(const Program&)>& emit);

}  // namespace polyfuse
