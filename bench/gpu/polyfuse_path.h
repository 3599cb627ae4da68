// How polyfuse ran a def, in a few words for a result row's notes: from the plan text of
// CompiledKernel::plan() (`polyfuse compile --emit=plan`), the kernel count, each kernel's
// kind and the workspace, e.g. "2 kernels (row reduction, pointwise), workspace of 10496
// bytes" or "1 kernel (fused matmul), no workspace". The convolutions' rows say whether the
// compiler took the reduction path or an implicit GEMM.
#pragma once

#include <string>

namespace polyfuse::bench {

// The summary of `plan` above; "plan unknown" for a text that is not a plan.
std::string polyfuse_path(const std::string& plan);

}  // namespace polyfuse::bench
