// Statements whose results nothing the def returns depends on. A def may compute a temporary
// that no output reads (a leftover of an edit, a scratch value): the targets would still run
// it (a GPU kernel, a CPU stage, workspace). The front end drops such statements, backwards
// from the outputs: a statement is kept when it writes an output or a tensor that a kept
// statement after it reads; the temporaries no kept statement touches go with them. Each
// dropped temporary gets a warning at its first write naming the statements dropped.
//
//   def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {
//     T(m, n) +=! A(m, k) * B(k, n)      <- warning: T is computed but nothing f returns
//     C(m, n) = A(m, 0) * 2                 depends on it: S0 dropped
//   }
#pragma once

#include "frontend/diagnostics.h"
#include "frontend/program.h"

namespace polyfuse {

// `program` without its dead statements and temporaries; a warning for each in `sink`.
Program drop_dead_statements(const Program& program, DiagnosticSink& sink);

}  // namespace polyfuse
