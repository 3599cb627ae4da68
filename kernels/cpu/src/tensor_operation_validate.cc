// Validation and analysis of tensor-operation configurations: every rule of
// tensor_operation.h, each failure a ConfigError naming the field and the rule.
#include <string>

#include "tensor_operation_analysis.h"

namespace polyfuse::cpu {

const char* to_string(PrimType type) {
  switch (type) {
    case PrimType::none: return "none";
    case PrimType::zero: return "zero";
    case PrimType::identity: return "identity";
    case PrimType::relu: return "relu";
    case PrimType::sigmoid: return "sigmoid";
    case PrimType::tanh: return "tanh";
    case PrimType::gelu: return "gelu";
    case PrimType::exp: return "exp";
    case PrimType::neg: return "neg";
    case PrimType::add: return "add";
    case PrimType::sub: return "sub";
    case PrimType::mul: return "mul";
    case PrimType::div: return "div";
    case PrimType::max: return "max";
    case PrimType::min: return "min";
    case PrimType::gemm: return "gemm";
    case PrimType::brgemm: return "brgemm";
  }
  return "?";
}

const char* to_string(DimType type) {
  switch (type) {
    case DimType::m: return "m";
    case DimType::n: return "n";
    case DimType::k: return "k";
    case DimType::c: return "c";
  }
  return "?";
}

const char* to_string(ExecType type) {
  switch (type) {
    case ExecType::shared: return "shared";
    case ExecType::seq: return "seq";
    case ExecType::prim: return "prim";
    case ExecType::undefined: return "undefined";
  }
  return "?";
}

bool is_unary(PrimType t) { return t >= PrimType::zero && t <= PrimType::neg; }
bool is_binary(PrimType t) { return t >= PrimType::add && t <= PrimType::min; }
bool is_contraction(PrimType t) { return t == PrimType::gemm || t == PrimType::brgemm; }

namespace detail {
namespace {

[[noreturn]] void fail(const std::string& field, const std::string& rule) {
  throw ConfigError("TensorOperationConfig." + field + ": " + rule);
}

std::string at(const char* field, size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

// Maps one tensor's strides over the prim (rows, cols) dims to a block operand.
BlockOperand block_operand(const char* field, int64_t row_stride, int64_t col_stride,
                           bool may_broadcast) {
  BlockOperand op;
  if (row_stride == 1) {
    op.layout = Layout::col_major, op.ld = col_stride;
    if (col_stride == 0) {
      if (!may_broadcast) fail(field, "the output block cannot have a stride-0 dimension");
      op.broadcast = Broadcast::col_vector, op.ld = 1;
    }
  } else if (col_stride == 1) {
    op.layout = Layout::row_major, op.ld = row_stride;
    if (row_stride == 0) {
      if (!may_broadcast) fail(field, "the output block cannot have a stride-0 dimension");
      op.broadcast = Broadcast::row_vector, op.ld = 1;
    }
  } else if (may_broadcast && row_stride == 0 && col_stride == 0) {
    op.broadcast = Broadcast::scalar;
  } else if (may_broadcast && row_stride == 0) {
    op.broadcast = Broadcast::row_vector, op.ld = col_stride;
  } else if (may_broadcast && col_stride == 0) {
    op.broadcast = Broadcast::col_vector, op.ld = row_stride;
  } else {
    fail(field, "the primitive block needs stride 1 in one of its two prim dimensions (got " +
                    std::to_string(row_stride) + " and " + std::to_string(col_stride) + ")");
  }
  return op;
}

void check_lists(const TensorOperationConfig& c) {
  const size_t count = c.dim_types.size();
  if (count == 0) fail("dim_types", "must list at least one dimension");
  auto same = [&](const char* name, size_t size) {
    if (size != count)
      fail(name, "has " + std::to_string(size) + " entries but dim_types has " +
                     std::to_string(count) + " (one entry per dimension)");
  };
  same("exec_types", c.exec_types.size());
  same("dim_sizes", c.dim_sizes.size());
  same("strides_in0", c.strides_in0.size());
  same("strides_in1", c.strides_in1.size());
  same("strides_out", c.strides_out.size());
  for (size_t i = 0; i < count; ++i)
    if (c.dim_sizes[i] <= 0)
      fail(at("dim_sizes", i), "must be > 0 (got " + std::to_string(c.dim_sizes[i]) + ")");
  int phase = 0;  // 0 shared, 1 seq, 2 prim
  for (size_t i = 0; i < count; ++i) {
    const ExecType e = c.exec_types[i];
    if (e == ExecType::undefined)
      fail(at("exec_types", i), "is undefined (set shared, seq or prim, or run optimize())");
    const int p = e == ExecType::shared ? 0 : e == ExecType::seq ? 1 : 2;
    if (p < phase)
      fail(at("exec_types", i), std::string(to_string(e)) +
                                    " after a later kind: the order must be shared..., seq..., prim...");
    phase = p;
  }
}

void check_touches(const TensorOperationConfig& c) {
  if (c.main == PrimType::none) fail("main", "must name a primitive (got none)");
  if (c.first_touch != PrimType::none && c.first_touch != PrimType::zero)
    fail("first_touch", std::string("must be none or zero (got ") + to_string(c.first_touch) + ")");
  if (c.last_touch != PrimType::none &&
      (!is_unary(c.last_touch) || c.last_touch == PrimType::zero))
    fail("last_touch", std::string("must be none or a unary activation (got ") +
                           to_string(c.last_touch) + ")");
  if (!is_contraction(c.main) &&
      (c.first_touch != PrimType::none || c.last_touch != PrimType::none))
    fail(c.first_touch != PrimType::none ? "first_touch" : "last_touch",
         std::string("needs a gemm or brgemm main primitive (main is ") + to_string(c.main) + ")");
}

}  // namespace

Analysis analyse(const TensorOperationConfig& c) {
  check_lists(c);
  check_touches(c);
  Analysis a;
  const size_t count = c.dim_types.size();
  std::vector<int> prims;
  for (size_t i = 0; i < count; ++i) {
    if (c.exec_types[i] == ExecType::shared) a.shared.push_back(int(i));
    if (c.exec_types[i] == ExecType::seq) a.seq.push_back(int(i));
    if (c.exec_types[i] == ExecType::prim) prims.push_back(int(i));
  }
  for (int i : a.shared)
    if (c.strides_out[i] == 0 && c.dim_types[i] != DimType::k)  // k: its own rule below
      fail(at("strides_out", size_t(i)), "a shared dimension needs a non-zero stride in out "
                                         "(parallel iterations would write the same output)");
  if (is_contraction(c.main)) {
    int count_m = 0, count_n = 0, count_k = 0;
    for (size_t i = 0; i < count; ++i) {
      const DimType t = c.dim_types[i];
      if (t == DimType::c) fail(at("dim_types", i), "c dimensions are only for unary and binary primitives");
      if (t == DimType::k && c.exec_types[i] == ExecType::shared)
        fail(at("exec_types", i), "a k dimension cannot be shared (its iterations reduce into the same output)");
      if (t == DimType::k && c.strides_out[i] != 0)
        fail(at("strides_out", i), "a k dimension must have stride 0 in out");
      if (t == DimType::m && c.strides_in1[i] != 0)
        fail(at("strides_in1", i), "an m dimension must have stride 0 in in1");
      if (t == DimType::n && c.strides_in0[i] != 0)
        fail(at("strides_in0", i), "an n dimension must have stride 0 in in0");
    }
    for (int i : prims) {
      const DimType t = c.dim_types[i];
      if (t == DimType::m) { ++count_m; a.prim_m = i; }
      if (t == DimType::n) { ++count_n; a.prim_n = i; }
      if (t == DimType::k) {
        ++count_k;
        if (a.prim_k >= 0) a.prim_br = a.prim_k;  // the outer prim k is the batch-reduce dim
        a.prim_k = i;
      }
    }
    const int want_k = c.main == PrimType::gemm ? 1 : 2;
    if (count_m != 1 || count_n != 1 || count_k != want_k)
      fail("exec_types", std::string(to_string(c.main)) + " needs exactly one prim m, one prim n and " +
                             (want_k == 1 ? "one prim k" : "two prim k (batch-reduce and k)") +
                             " (found " + std::to_string(count_m) + " m, " + std::to_string(count_n) +
                             " n, " + std::to_string(count_k) + " k)");
    a.m = c.dim_sizes[a.prim_m], a.n = c.dim_sizes[a.prim_n], a.k = c.dim_sizes[a.prim_k];
    a.in0 = block_operand("strides_in0", c.strides_in0[a.prim_m], c.strides_in0[a.prim_k], false);
    a.in1 = block_operand("strides_in1", c.strides_in1[a.prim_k], c.strides_in1[a.prim_n], false);
    a.out = block_operand("strides_out", c.strides_out[a.prim_m], c.strides_out[a.prim_n], false);
    if (a.prim_br >= 0) {
      a.batch = c.dim_sizes[a.prim_br];
      a.br_stride_in0 = c.strides_in0[a.prim_br];
      a.br_stride_in1 = c.strides_in1[a.prim_br];
    }
    return a;
  }

  // Unary and binary primitives.
  for (size_t i = 0; i < count; ++i)
    if (c.dim_types[i] == DimType::k)
      fail(at("dim_types", i), std::string("k dimensions need a gemm or brgemm main primitive (main is ") +
                                   to_string(c.main) + ")");
  if (prims.empty() || prims.size() > 2)
    fail("exec_types", std::string(to_string(c.main)) + " needs one or two prim dimensions (found " +
                           std::to_string(prims.size()) + ")");
  // Rows: the prim dim with unit stride in out (else the first); columns: the other.
  a.prim_m = prims[0];
  if (prims.size() == 2) {
    a.prim_n = prims[1];
    if (c.strides_out[prims[1]] == 1 && c.strides_out[prims[0]] != 1) std::swap(a.prim_m, a.prim_n);
  }
  auto stride = [&](const std::vector<int64_t>& s, int dim) { return dim < 0 ? int64_t{0} : s[dim]; };
  a.m = c.dim_sizes[a.prim_m];
  a.n = a.prim_n < 0 ? 1 : c.dim_sizes[a.prim_n];
  // A single prim dim: a column (rows = that dim) of width 1.
  auto operand = [&](const char* field, const std::vector<int64_t>& s, bool may_broadcast) {
    const int64_t rs = stride(s, a.prim_m), cs = a.prim_n < 0 ? (rs == 1 ? a.m : 1) : stride(s, a.prim_n);
    if (a.prim_n < 0 && rs != 1 && rs != 0) return BlockOperand{Layout::row_major, Broadcast::matrix, rs};
    return block_operand(field, rs, cs, may_broadcast);
  };
  a.in0 = operand("strides_in0", c.strides_in0, true);
  if (is_binary(c.main)) a.in1 = operand("strides_in1", c.strides_in1, true);
  a.out = operand("strides_out", c.strides_out, false);
  return a;
}

}  // namespace detail

void validate(const TensorOperationConfig& config) { (void)detail::analyse(config); }

}  // namespace polyfuse::cpu
