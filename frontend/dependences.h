// Dependences between statement instances, from isl's dataflow analysis
// (isl::union_access_info::compute_flow) on the program-order schedule
// (Program::program_order).
//
// Reductions read the element they update: a `+=` instance reads its target, and a
// `+=!` instance reads it except at the first reduction point of each element (where
// the value starts at zero). These accumulator reads take part in the analysis, so the
// loop-carried dependence of a reduction shows as a RAW from S[.., k] to S[.., k + 1].
// Relations are simplified under Program::assumptions() (every size is at least 1).
#pragma once

#include <isl/cpp.h>

#include <string>
#include <utility>
#include <vector>

#include "frontend/isl_context.h"
#include "frontend/program.h"

namespace polyfuse {

// The three dependence relations of a program, each a union of maps from the earlier
// statement instance to the later one.
class Dependences {
  IslContextHandle context_;  // owner of the maps below (first: destroyed last)

 public:
  // Flow (read after write): write instance -> instance reading the value it wrote
  // (exact last-writer dataflow).
  isl::union_map raw;
  // Anti (write after read): read instance -> later instance overwriting the element,
  // with no write in between.
  isl::union_map war;
  // Output (write after write): write instance -> next instance writing the element.
  isl::union_map waw;

  // Empty relations in `context`.
  explicit Dependences(const IslContextHandle& context);
  Dependences(const Dependences&) = default;
  // Assignment releases the old maps before the old context (see keep_alive_).
  Dependences& operator=(const Dependences&) = default;

  // raw ∪ war ∪ waw.
  isl::union_map all() const;

 private:
  IslContextHandle keep_alive_;  // second reference, replaced last on assignment
};

// Computes the dependences of `program`. Throws InternalError if isl fails.
Dependences compute_dependences(const Program& program);

// Every read of `program` including the accumulator reads of reductions (see above).
isl::union_map reads_with_accumulators(const Program& program);

// The statement-level pairs (source id, sink id) of `relation`, sorted by program order
// of source then sink, without duplicates; `include_self` keeps pairs like (S0, S0).
std::vector<std::pair<std::string, std::string>> statement_pairs(const Program& program,
                                                                 const isl::union_map& relation,
                                                                 bool include_self = false);

// statement_pairs(program, compute_dependences(program).raw): the statement-level flow
// dependences alone (what idiom recognition needs), computed without the anti and output
// relations and remembered by the analysis's inputs (the program-order schedule, the writes,
// the reads with the accumulators', the assumptions, the statements' order): the planner asks
// for them many times over the same programs. Throws InternalError if isl fails.
std::vector<std::pair<std::string, std::string>> flow_statement_pairs(const Program& program);

}  // namespace polyfuse
