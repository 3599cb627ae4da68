// Rewrites the arguments of user statements during AST generation (as PPCG does): an
// instance S0(m, n, k) of a contracted macro-MMA is printed with the indices the code
// needs — e.g. its fragment coordinates within the warp tile, S0(tile_m / 16, tile_n / 8)
// — computed from the statement's domain by an affine function and expressed by isl in
// terms of the loop iterators.
//
// Statements that access a rectangular tile of a tensor also get, as their last argument,
// which bounds the instances printed at that place must check (the pf::Check code 0 none,
// 1 rows, 2 columns, 3 both): isl decides it from the instances the AST node executes, so
// a node generated for full tiles only prints unpredicated accesses.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <string>

namespace polyfuse {

// The instances of a tile-accessing statement whose tile crosses the tensor's last row
// (rows_cut) or last column (cols_cut).
struct TileBounds {
  isl::set rows_cut;
  isl::set cols_cut;
};

struct StatementRewrites {
  // Statement name -> new arguments as a function of its domain, e.g.
  // "{ S0[m, n, k] -> [((m) mod 32)/16, ((n) mod 32)/8] }".
  std::map<std::string, isl::multi_aff> arguments;
  // Statement name -> its tile bounds (the call gets the Check code appended).
  std::map<std::string, TileBounds> tile_bounds;

  bool empty() const { return arguments.empty() && tile_bounds.empty(); }
};

// `build` with an at_each_domain callback that replaces the call expression of each
// statement in `rewrites` by name(f(instance)[, check]); other statements keep their
// arguments. `context` holds the parameter constraints the kernel runs under.
isl::ast_build with_statement_rewrites(const isl::ast_build& build, const StatementRewrites& rewrites,
                                       const isl::set& context);

}  // namespace polyfuse
