#include "plans.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <tuple>

namespace polyfuse::testing {

static StatementDims dims(const char* statement, std::vector<std::string> batch, bool matmul) {
  StatementDims d;
  d.statement = statement;
  d.batch = std::move(batch);
  d.m = "m";
  d.n = "n";
  d.m_extent = Size{"M"};
  d.n_extent = Size{"N"};
  for (size_t i = 0; i < d.batch.size(); ++i) d.batch_extents.push_back(Size{"B"});
  if (matmul) {
    d.k = "k";
    d.k_extent = Size{"K"};
  }
  return d;
}

// A pointwise epilogue statement `statement`[m, n] writing `output`(m, n).
static PointwiseStage epilogue(isl::ctx ctx, const std::string& statement, const std::string& output) {
  PointwiseStage pw;
  pw.dims = dims(statement.c_str(), {}, false);
  pw.output = output;
  pw.write_access = isl::map(ctx, fmt::format("{{ {}[m, n] -> {}[m, n] }}", statement, output));
  return pw;
}

KernelPlan gemm_plan(isl::ctx ctx, OperandLayout a, OperandLayout b) {
  KernelPlan plan;
  plan.name = "gemm";
  plan.domain = isl::union_set(ctx, "[M, N, K] -> { S0[m, n, k] : 0 <= m < M and 0 <= n < N and 0 <= k < K }");
  MatmulStage mm;
  mm.dims = dims("S0", {}, true);
  mm.a = "A";
  mm.b = "B";
  mm.c = "C";
  mm.a_layout = a;
  mm.b_layout = b;
  mm.a_access = isl::map(ctx, a == OperandLayout::row_major ? "{ S0[m, n, k] -> A[m, k] }" : "{ S0[m, n, k] -> A[k, m] }");
  mm.b_access = isl::map(ctx, b == OperandLayout::row_major ? "{ S0[m, n, k] -> B[k, n] }" : "{ S0[m, n, k] -> B[n, k] }");
  mm.c_access = isl::map(ctx, "{ S0[m, n, k] -> C[m, n] }");
  plan.matmuls.push_back(mm);
  return plan;
}

KernelPlan gemm_epilogue_plan(isl::ctx ctx) {
  KernelPlan plan = gemm_plan(ctx);
  plan.name = "gemm_bias_relu";
  plan.domain = plan.domain.unite(isl::union_set(ctx, "[M, N] -> { S1[m, n] : 0 <= m < M and 0 <= n < N }"));
  plan.matmuls[0].live_out = false;
  plan.epilogue.push_back(epilogue(ctx, "S1", "D"));
  return plan;
}

KernelPlan swiglu_plan(isl::ctx ctx) {
  KernelPlan plan;
  plan.name = "swiglu";
  plan.domain = isl::union_set(ctx, "[M, N, K] -> { S0[m, n, k] : 0 <= m < M and 0 <= n < N and 0 <= k < K; "
                                    "S1[m, n, k] : 0 <= m < M and 0 <= n < N and 0 <= k < K; "
                                    "S2[m, n] : 0 <= m < M and 0 <= n < N }");
  for (const auto& [statement, weight, result] : {std::tuple{"S0", "Wg", "G"}, std::tuple{"S1", "Wu", "U"}}) {
    MatmulStage mm;
    mm.dims = dims(statement, {}, true);
    mm.a = "X";
    mm.b = weight;
    mm.c = result;
    mm.a_access = isl::map(ctx, fmt::format("{{ {}[m, n, k] -> X[m, k] }}", statement));
    mm.b_access = isl::map(ctx, fmt::format("{{ {}[m, n, k] -> {}[k, n] }}", statement, weight));
    mm.c_access = isl::map(ctx, fmt::format("{{ {}[m, n, k] -> {}[m, n] }}", statement, result));
    mm.live_out = false;
    mm.shares_a_with_previous = !plan.matmuls.empty();
    plan.matmuls.push_back(mm);
  }
  plan.epilogue.push_back(epilogue(ctx, "S2", "H"));
  return plan;
}

// C(batch.., m, n) +=! a(batch.., m, k) * b(batch.., k, n); each batch index's extent is
// its name in capitals.
static KernelPlan batched_plan(isl::ctx ctx, const std::string& name, const std::vector<std::string>& batch,
                               const std::string& a, const std::string& b) {
  std::vector<std::string> extents, bounds;
  for (const std::string& index : batch) {
    extents.push_back(std::string(1, static_cast<char>(std::toupper(index[0]))));
    bounds.push_back(fmt::format("0 <= {} < {}", index, extents.back()));
  }
  const std::string lead = fmt::format("{}", fmt::join(batch, ", "));
  KernelPlan plan;
  plan.name = name;
  plan.domain = isl::union_set(ctx, fmt::format("[{}, M, N, K] -> {{ S0[{}, m, n, k] : {} and 0 <= m < M and 0 <= n < N "
                                                "and 0 <= k < K }}",
                                                fmt::join(extents, ", "), lead, fmt::join(bounds, " and ")));
  MatmulStage mm;
  mm.dims = dims("S0", batch, true);
  for (size_t i = 0; i < batch.size(); ++i) mm.dims.batch_extents[i] = Size{extents[i]};
  mm.a = a;
  mm.b = b;
  mm.c = "C";
  mm.a_access = isl::map(ctx, fmt::format("{{ S0[{0}, m, n, k] -> {1}[{0}, m, k] }}", lead, a));
  mm.b_access = isl::map(ctx, fmt::format("{{ S0[{0}, m, n, k] -> {1}[{0}, k, n] }}", lead, b));
  mm.c_access = isl::map(ctx, fmt::format("{{ S0[{0}, m, n, k] -> C[{0}, m, n] }}", lead));
  plan.matmuls.push_back(mm);
  return plan;
}

KernelPlan batched_gemm_plan(isl::ctx ctx) { return batched_plan(ctx, "batched_gemm", {"b"}, "A", "Bm"); }

KernelPlan multihead_batched_gemm_plan(isl::ctx ctx) {
  return batched_plan(ctx, "multihead_batched_gemm", {"b", "h"}, "Q", "W");
}

}  // namespace polyfuse::testing
