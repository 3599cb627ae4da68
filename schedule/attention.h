// Attention in one kernel (FlashAttention's scheme): the statements
//
//   L(b.., s, t) +=! Q(b.., s, d) * K(b.., t, d)      the scores (a scale the front end splits off,
//   X(b.., s, t) = f(L(b.., s, t), M(s, t), s, t, b..)  a mask: pointwise steps on the score, which
//                                                       may read tensors at some of its indices)
//   mx(b.., s) max=! X(b.., s, t)
//   e(b.., s, t) = exp(X(b.., s, t) - mx(b.., s))      (or rounded: f16(exp(...)), bf16(exp(...)))
//   z(b.., s) +=! e(b.., s, t)
//   P(b.., s, n) +=! e(b.., s, t) * V(b.., t, n)
//   O(b.., s, n) = P(b.., s, n) / z(b.., s)
//
// (Q, K and V may have only some of the batch indices b..: a K and V shared by every head; Q, K,
// V and O may hold their indices in any order but the last, the head's or the values' column:
// FlashAttention's (B, S, H, D) tensors) whose scores, probabilities and sums no other statement
// reads, run as ONE kernel (codegen/attention_kernel.h): a block takes 64 rows of queries and
// walks the keys in tiles of 64 with an online softmax (a running maximum and sum per row; the
// sum and the output so far rescaled when the maximum grows), so neither the scores nor e reach
// memory, for any number of keys. The planner makes such statements one kernel of kind
// `attention` (before it groups any of them into matmul, row-chain or contraction kernels); when
// they cannot be one (a head wider than 128, bf16 probabilities where the program keeps e in
// f32, ...) the first statement's kernel's note says why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "frontend/expr.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"

namespace polyfuse {

struct ProgramPlan;

// The widest head (D, and the value columns) the kernel keeps: a warp's 16 output rows of 128
// f32 columns are 64 registers a thread beside the 32 of the scores.
inline constexpr std::int64_t max_attention_head = 128;

// The row's entry in an Attention's layouts.
inline constexpr int attention_row = -1;

// The statements, tensors and sizes of one attention.
struct Attention {
  // statement ids
  std::string scores;                    // L +=! Q * K (times or over `scale`)
  std::optional<Expr> scale;             // a constant factor of the scores' sum, if any
  bool scale_divides = false;            // `/ scale`
  std::vector<std::string> score_steps;  // the pointwise steps on the score, in order
  std::string row_max, exponentials, row_sum, product;
  std::string division;  // O = P / z; "" when the product divides by z itself (O +=! e * V / z)
  // tensors
  std::string q, k, v, out;
  std::string e;  // the probabilities (their type says how P is rounded)
  std::vector<std::string> on_chip;  // the scores, the steps' results, mx, e, z, P: never in memory
  // Where the operands' and the output's indices are: for each index but the last (the head's
  // or the value's column, contiguous in memory), the position among the scores' batch indices
  // of the one it is, or `attention_row` for the row (the query, or the key). (b.., s, d) is
  // {0, 1, .., attention_row}; (B, S, H, D) tensors (FlashAttention's layout) are {0,
  // attention_row, 1}; K shared by the heads of multi-query attention has fewer than Q.
  std::vector<int> q_layout, k_layout, v_layout, out_layout;
  // sizes
  std::vector<std::int64_t> batch_extents;  // the leading (batch) indices, outermost first
  std::int64_t rows = 0, keys = 0, head = 0, value_cols = 0;  // S, T, D, the columns of V and O
  ElementType operand_type = ElementType::f16;  // of Q, K and V
  bool rounded_e = false;                       // e is 16-bit: the row sum adds the rounded values
  // A causal mask as the last step, `t <= s + c ? x : C` (or t < s + c, s >= t - c, ...) with c >= 0
  // and C <= -1e20, after constant scales only, on f16 operands (exp(C - max) is 0 for any score
  // they give): keys past query + this add nothing, and a block stops after the tile of its last
  // query's last key.
  std::optional<std::int64_t> causal_reach;
  std::int64_t batch() const;                   // the product of batch_extents
};

// Whether the statements `ids` (program order) of `program` are one attention: nullopt when they
// do not have its form; otherwise the attention, or why it does not run as one kernel (with the
// f32 matmul mode `f32`).
std::optional<std::variant<Attention, std::string>> attention_of(const Program& program,
                                                                 const std::vector<std::string>& ids, F32Matmul f32);

// A run of consecutive statements of a def that has attention's form: the attention kernel takes
// them when `why_not` is empty; else the plan keeps its kernels and says why.
struct AttentionRun {
  std::vector<std::string> statements;
  std::string why_not;
};

// The attention runs of `program` (every size bound), in program order, with the f32 matmul
// mode `f32`. The planner makes each run without `why_not` one kernel of kind attention.
std::vector<AttentionRun> attention_runs(const Program& program, F32Matmul f32);

// The plan note of an attention kernel.
std::string describe(const Attention& attention);

}  // namespace polyfuse
