// Prints an isl AST as C/CUDA source: for loops, ifs, blocks, marks as stage comments,
// and user statements through a callback that turns each statement instance into
// helper calls. Loop iterators get readable names from the mark that encloses them
// (`k_step`, `k_slice`, `tile_m`, `tile_n`, ...) instead of isl's c0, c1, ...
// isl's floor division, min and max print as pf::floordiv, pf::imin, pf::imax
// (kernels/cuda/pf_base.cuh).
#pragma once

#include <isl/cpp.h>

#include <functional>
#include <string>
#include <vector>

namespace polyfuse {

// What the printer cannot know by itself.
struct AstPrintHooks {
  // C text of one user statement instance: `name` is the statement (e.g. "S0" or
  // "S0_A_to_shared"), `args` its arguments already printed as C expressions. The text
  // may span several lines; the printer indents it.
  std::function<std::string(const std::string& name, const std::vector<std::string>& args)> statement;
  // C name of an isl identifier that is not a loop iterator (a parameter such as
  // "blockIdx_y" or "M"); identity by default.
  std::function<std::string(const std::string& id)> identifier;
  // Comment for a mark node ("" prints no comment).
  std::function<std::string(const std::string& mark)> mark_comment;
  // The pragma printed before each loop directly below `mark` ("" for none), e.g.
  // "#pragma unroll" for loops that index register fragments (or the fragments spill to
  // memory), "#pragma unroll 1" for loops that must stay loops.
  std::function<std::string(const std::string& mark)> loop_pragma;
};

// The C text of `node`, indented by `indent` levels of two spaces.
std::string print_c_ast(const isl::ast_node& node, const AstPrintHooks& hooks, int indent);

// The C text of `expr`; `name_of` maps identifiers (iterators and parameters) to C names.
std::string print_c_expr(const isl::ast_expr& expr, const std::function<std::string(const std::string&)>& name_of);

}  // namespace polyfuse
