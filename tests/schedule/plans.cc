#include "plans.h"

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
  PointwiseStage pw;
  pw.dims = dims("S1", {}, false);
  pw.output = "D";
  pw.write_access = isl::map(ctx, "{ S1[m, n] -> D[m, n] }");
  plan.epilogue.push_back(pw);
  return plan;
}

KernelPlan batched_gemm_plan(isl::ctx ctx) {
  KernelPlan plan;
  plan.name = "batched_gemm";
  plan.domain = isl::union_set(
      ctx, "[B, M, N, K] -> { S0[b, m, n, k] : 0 <= b < B and 0 <= m < M and 0 <= n < N and 0 <= k < K }");
  MatmulStage mm;
  mm.dims = dims("S0", {"b"}, true);
  mm.a = "A";
  mm.b = "Bm";
  mm.c = "C";
  mm.a_access = isl::map(ctx, "{ S0[b, m, n, k] -> A[b, m, k] }");
  mm.b_access = isl::map(ctx, "{ S0[b, m, n, k] -> Bm[b, k, n] }");
  mm.c_access = isl::map(ctx, "{ S0[b, m, n, k] -> C[b, m, n] }");
  plan.matmuls.push_back(mm);
  return plan;
}

}  // namespace polyfuse::testing
