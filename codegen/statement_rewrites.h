// Rewrites the arguments of user statements during AST generation (as PPCG does): an
// instance S0(m, n, k) of a contracted macro-MMA is printed with the indices the code
// needs — e.g. its fragment coordinates within the warp tile, S0(tile_m / 16, tile_n / 8)
// — computed from the statement's domain by an affine function and expressed by isl in
// terms of the loop iterators.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <string>

namespace polyfuse {

// Statement name -> new arguments as a function of its domain, e.g.
// "{ S0[m, n, k] -> [((m) mod 32)/16, ((n) mod 32)/8] }".
using StatementRewrites = std::map<std::string, isl::multi_aff>;

// `build` with an at_each_domain callback that replaces the call expression of each
// statement in `rewrites` by name(f(instance)); other statements keep their arguments.
isl::ast_build with_statement_rewrites(const isl::ast_build& build, const StatementRewrites& rewrites);

}  // namespace polyfuse
