// Prints an isl AST as C/CUDA source: for loops, ifs, blocks, marks as stage comments,
// and user statements through a callback that turns each statement instance into
// helper calls. Loop iterators get readable names from the mark that encloses them
// (`k_step`, `k_slice`, `tile_m`, `tile_n`, ...) instead of isl's c0, c1, ...
// isl's floor division, min and max print as pf::floordiv, pf::imin, pf::imax
// (kernels/cuda/pf_base.cuh).
#pragma once

#include <isl/cpp.h>

#include <functional>
#include <optional>
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

  // Software-pipelined fragments (codegen/fragment_pipeline.h): when set, each k-step loop
  // directly below a "prefetch" mark is printed with two fragment register sets. Before the
  // loop, the ring's wait (with its barrier) and k-step 0's first k-slice fragments into set
  // 0; in the loop, the wait moves from the k-step's top to just before its last k-slice, and
  // the k-slice loop below the "warp" mark loads the next k-slice's fragments (k-slice j+1 of
  // the k-step, or k-slice 0 of the next after the last) into set (j+1) % 2 before the MMAs
  // of k-slice j read set j % 2.
  // Statements outside a pipelined loop (a K-tail k-step after it, or every k-step when
  // `loops` is false: the edge blocks) load into and read set 0, one k-slice at a time.
  struct FragmentPipeline {
    int slices = 2;     // k-slices of a k-step (even: the sets alternate across k-steps too)
    int stages = 2;     // of the ring: k-step i reads buffer i % stages (a load's first argument)
    bool loops = true;  // pipeline the k-step loops (else set 0 everywhere)
    std::function<bool(const std::string& name)> is_wait;            // the ring's wait + barrier
    std::function<bool(const std::string& name)> is_fragment_load;   // a k-slice's fragment loads
    // C text of a statement instance (as `statement`) whose fragments are set `set`.
    std::function<std::string(const std::string& name, const std::vector<std::string>& args, const std::string& set)>
        statement;
    // C text of the ring's wait: moved before a k-step's last k-slice it covers the next k-step
    // (its arguments printed with the k-step iterator advanced by one), which exists only
    // `if (guard)` (the loop's condition on that k-step; "" elsewhere). `after_loop`: the first
    // wait after a pipelined loop, whose last k-slice loaded (unused) fragments of the next
    // k-step's stage: a wait that writes that stage (a landed prologue) needs a barrier first.
    std::function<std::string(const std::string& name, const std::vector<std::string>& args, const std::string& guard,
                               bool after_loop)>
        wait;
  };
  std::optional<FragmentPipeline> fragment_pipeline;
};

// The C text of `node`, indented by `indent` levels of two spaces.
std::string print_c_ast(const isl::ast_node& node, const AstPrintHooks& hooks, int indent);

// The C text of `expr`; `name_of` maps identifiers (iterators and parameters) to C names.
std::string print_c_expr(const isl::ast_expr& expr, const std::function<std::string(const std::string&)>& name_of);

}  // namespace polyfuse
