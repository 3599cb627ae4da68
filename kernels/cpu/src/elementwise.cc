// Unary and binary primitives. One strided engine serves both: every operand becomes a
// (row stride, column stride) pair; the loops run along the output's unit-stride
// direction, in 16 x 128 tiles so that transposed reads stay in L1. All-f32 rows with
// unit or zero strides take a direct loop the compiler vectorises; other dtypes and
// strides are staged through small f32 buffers. The transcendental unary ops go through
// vector_math.h on whole rows where the machine has a vector path (AVX2).
#include "polyfuse/cpu/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "polyfuse/cpu/isa.h"
#include "transpose.h"
#include "vector_math.h"

namespace polyfuse::cpu {

const char* to_string(UnaryOp op) {
  switch (op) {
    case UnaryOp::zero: return "zero";
    case UnaryOp::identity: return "identity";
    case UnaryOp::relu: return "relu";
    case UnaryOp::sigmoid: return "sigmoid";
    case UnaryOp::tanh: return "tanh";
    case UnaryOp::gelu: return "gelu";
    case UnaryOp::exp: return "exp";
    case UnaryOp::neg: return "neg";
    case UnaryOp::sqrt: return "sqrt";
    case UnaryOp::rsqrt: return "rsqrt";
    case UnaryOp::log: return "log";
    case UnaryOp::abs: return "abs";
    case UnaryOp::silu: return "silu";
    case UnaryOp::gelu_tanh: return "gelu_tanh";
    case UnaryOp::round_f16: return "round_f16";
    case UnaryOp::round_bf16: return "round_bf16";
  }
  return "?";
}

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return "add";
    case BinaryOp::sub: return "sub";
    case BinaryOp::mul: return "mul";
    case BinaryOp::div: return "div";
    case BinaryOp::max: return "max";
    case BinaryOp::min: return "min";
  }
  return "?";
}

float apply(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::zero: return 0.f;
    case UnaryOp::identity: return x;
    case UnaryOp::relu: return x > 0.f ? x : 0.f;
    case UnaryOp::sigmoid: return 1.f / (1.f + std::exp(-x));
    case UnaryOp::tanh: return std::tanh(x);
    case UnaryOp::gelu: return 0.5f * x * (1.f + std::erf(x * 0.70710678118654752f));
    case UnaryOp::exp: return std::exp(x);
    case UnaryOp::neg: return -x;
    case UnaryOp::sqrt: return std::sqrt(x);
    case UnaryOp::rsqrt: return 1.f / std::sqrt(x);
    case UnaryOp::log: return std::log(x);
    case UnaryOp::abs: return std::fabs(x);
    case UnaryOp::silu: return x / (1.f + std::exp(-x));
    case UnaryOp::gelu_tanh:
      return 0.5f * x * (1.f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case UnaryOp::round_f16: return f16_to_f32(f32_to_f16(x));
    case UnaryOp::round_bf16: return bf16_to_f32(f32_to_bf16(x));
  }
  return x;
}

float apply(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::add: return x + y;
    case BinaryOp::sub: return x - y;
    case BinaryOp::mul: return x * y;
    case BinaryOp::div: return x / y;
    case BinaryOp::max: return x > y ? x : y;
    case BinaryOp::min: return x < y ? x : y;
  }
  return x;
}

namespace {

struct Strided {
  const void* base;
  DType dtype;
  int64_t rs, cs;  // element (r, c) at base[r*rs + c*cs]
};

Strided strided(const Operand& op, const void* base, int64_t ld) {
  switch (op.broadcast) {
    case Broadcast::matrix:
      return op.layout == Layout::col_major ? Strided{base, op.dtype, 1, ld}
                                            : Strided{base, op.dtype, ld, 1};
    case Broadcast::row_vector: return {base, op.dtype, 0, ld};
    case Broadcast::col_vector: return {base, op.dtype, ld, 0};
    case Broadcast::scalar: return {base, op.dtype, 0, 0};
  }
  return {base, op.dtype, 0, 0};
}

float load(DType dtype, const void* base, int64_t i) {
  switch (dtype) {
    case DType::f32: return static_cast<const float*>(base)[i];
    case DType::f16: return f16_to_f32(static_cast<const uint16_t*>(base)[i]);
    case DType::bf16: return bf16_to_f32(static_cast<const uint16_t*>(base)[i]);
    case DType::e4m3: return e4m3_to_f32(static_cast<const uint8_t*>(base)[i]);
    case DType::e5m2: return e5m2_to_f32(static_cast<const uint8_t*>(base)[i]);
  }
  return 0.f;
}

void store(DType dtype, void* base, int64_t i, float v) {
  switch (dtype) {
    case DType::f32: static_cast<float*>(base)[i] = v; break;
    case DType::f16: static_cast<uint16_t*>(base)[i] = f32_to_f16(v); break;
    case DType::bf16: static_cast<uint16_t*>(base)[i] = f32_to_bf16(v); break;
    case DType::e4m3: static_cast<uint8_t*>(base)[i] = f32_to_e4m3(v); break;
    case DType::e5m2: static_cast<uint8_t*>(base)[i] = f32_to_e5m2(v); break;
  }
}

// `len` elements of `in` from `at`, `step` apart, as f32: contiguous f16/bf16 by the bulk
// conversions (F16C, AVX2), the same bits as load's.
void load_row(const Strided& in, int64_t at, int64_t step, int64_t len, float* x) {
  if (step == 1 && in.dtype == DType::f16) return f16_to_f32(static_cast<const uint16_t*>(in.base) + at, len, x);
  if (step == 1 && in.dtype == DType::bf16) return bf16_to_f32(static_cast<const uint16_t*>(in.base) + at, len, x);
  for (int64_t i = 0; i < len; ++i) x[i] = load(in.dtype, in.base, at + i * step);
}

// The f32 row of `len` elements of `in` from `at`, `step` apart, that the arithmetic reads, with
// its step (0: one value, 1: contiguous) in `unit`: in place when it is f32 and contiguous or a
// broadcast value, else converted (or gathered) into `scratch`. Every dtype then runs the f32
// rows' vector code: an f16 softmax's exp and division ran a scalar loop over converted copies
// (and a copy of the broadcast row statistic), 0.39 ms against f32's 0.23 at 1024 x 1024.
const float* f32_row_operand(const Strided& in, int64_t at, int64_t step, int64_t len, float* scratch, int64_t& unit) {
  unit = step == 0 ? 0 : 1;
  if (in.dtype == DType::f32 && (step == 0 || step == 1)) return static_cast<const float*>(in.base) + at;
  if (step == 0) {
    scratch[0] = load(in.dtype, in.base, at);
    return scratch;
  }
  load_row(in, at, step, len, scratch);
  return scratch;
}

// `len` results stored from `at`, `step` apart, as store does.
void store_row(DType dtype, void* out, int64_t at, int64_t step, int64_t len, const float* z) {
  if (step == 1 && dtype == DType::f32) {
    std::copy(z, z + len, static_cast<float*>(out) + at);
    return;
  }
  if (step == 1 && dtype == DType::f16) return f32_to_f16(z, len, static_cast<uint16_t*>(out) + at);
  if (step == 1 && dtype == DType::bf16) return f32_to_bf16(z, len, static_cast<uint16_t*>(out) + at);
  for (int64_t i = 0; i < len; ++i) store(dtype, out, at + i * step, z[i]);
}

// Whether types.h converts `from` to `to` in bulk (f32 to and from f16 and bf16).
bool bulk_conversion(DType from, DType to) {
  const auto narrow = [](DType t) { return t == DType::f16 || t == DType::bf16; };
  return (from == DType::f32 && narrow(to)) || (narrow(from) && to == DType::f32);
}

// `n` contiguous elements of `from` (dtype `from_type`) converted into `to` (bulk_conversion).
void convert_line(DType from_type, const void* from, DType to_type, void* to, int64_t n) {
  if (to_type == DType::f32) {
    const auto* bits = static_cast<const uint16_t*>(from);
    if (from_type == DType::f16) f16_to_f32(bits, n, static_cast<float*>(to));
    else bf16_to_f32(bits, n, static_cast<float*>(to));
    return;
  }
  if (to_type == DType::f16) f32_to_f16(static_cast<const float*>(from), n, static_cast<uint16_t*>(to));
  else f32_to_bf16(static_cast<const float*>(from), n, static_cast<uint16_t*>(to));
}

// A unary op applied to whole row pieces by vector_math.h rather than element by element.
struct RowOp {
  UnaryOp op;
};

constexpr int64_t kChunk = 1024;  // inner elements per row piece (128 cost a 1024-wide softmax 20% in calls)
constexpr int64_t kRows = 16;    // outer rows per tile

// out[i] = f(x[i*S0], y[i*S1]) for i < n, all f32, S in {0, 1}.
template <int S0, int S1, class F>
void f32_row_baseline(const float* x, const float* y, float* out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i * S0], y[i * S1]);
}

// The same loop compiled for wider vectors (f is one IEEE operation, add .. min, so every lane
// gives the bits of the scalar code): AVX2 8 lanes, AVX-512 16 (a softmax's division and a layer
// norm's products ran 4 lanes wide, a third of their time).
#if defined(__x86_64__)
template <int S0, int S1, class F>
__attribute__((target("avx2"))) void f32_row_avx2(const float* x, const float* y, float* out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i * S0], y[i * S1]);
}
template <int S0, int S1, class F>
__attribute__((target("avx512f"))) void f32_row_avx512(const float* x, const float* y, float* out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i * S0], y[i * S1]);
}
#endif

template <int S0, int S1, class F>
void f32_row(Isa isa, const float* x, const float* y, float* out, int64_t n, F f) {
#if defined(__x86_64__)
  if (isa == Isa::avx512) return f32_row_avx512<S0, S1>(x, y, out, n, f);
  if (isa == Isa::avx2) return f32_row_avx2<S0, S1>(x, y, out, n, f);
#endif
  (void)isa;
  f32_row_baseline<S0, S1>(x, y, out, n, f);
}

// `binary`: the operation f computes, where f is a BinaryOp's (its post may then run in the same
// pass: detail::vector_binary_unary_avx512).
template <class F>
void run(Isa isa, int64_t m, int64_t n, const Strided& in0, const Strided& in1, DType out_dtype,
         void* out, int64_t out_rs, int64_t out_cs, F f, UnaryOp post = UnaryOp::identity,
         const BinaryOp* binary = nullptr) {
  // Inner direction: the output's unit stride (rows of a column-major output).
  const bool inner_is_r = out_rs == 1 || (out_cs != 1 && out_rs <= out_cs);
  int64_t inner = inner_is_r ? m : n, outer = inner_is_r ? n : m;
  const int64_t o_in = inner_is_r ? out_rs : out_cs, o_out = inner_is_r ? out_cs : out_rs;
  const int64_t a_in = inner_is_r ? in0.rs : in0.cs, a_out = inner_is_r ? in0.cs : in0.rs;
  const int64_t b_in = inner_is_r ? in1.rs : in1.cs, b_out = inner_is_r ? in1.cs : in1.rs;
  // Rows that continue one another in every operand (each one's outer stride is inner times its
  // inner stride: contiguous, or a broadcast scalar) are one long row: a block of 32 rows of 8
  // channels is one row of 256, in whole vectors.
  if (outer > 1 && o_out == inner * o_in && a_out == inner * a_in && b_out == inner * b_in) {
    inner *= outer;
    outer = 1;
  }
  float x[kChunk], y[kChunk], z[kChunk];
  for (int64_t o0 = 0; o0 < outer; o0 += kRows) {
    const int64_t o1 = std::min(outer, o0 + kRows);
    for (int64_t i0 = 0; i0 < inner; i0 += kChunk) {
      const int64_t len = std::min(kChunk, inner - i0);
      for (int64_t o = o0; o < o1; ++o) {
        int64_t a_step = 0, b_step = 0;
        const float* pa = f32_row_operand(in0, o * a_out + i0 * a_in, a_in, len, x, a_step);
        const float* pb = f32_row_operand(in1, o * b_out + i0 * b_in, b_in, len, y, b_step);
        const int64_t io = o * o_out + i0 * o_in;
        const bool in_place = out_dtype == DType::f32 && o_in == 1;  // else through z
        float* po = in_place ? static_cast<float*>(out) + io : z;
        if constexpr (std::is_same_v<F, RowOp>) {
          if (a_step == 0) {  // a broadcast value: computed once by the same code, then copied
            float value = 0.f;
            detail::vector_unary(isa, f.op, pa, &value, 1);
            std::fill_n(po, len, value);
          } else {
            detail::vector_unary(isa, f.op, pa, po, len);
          }
        } else if (binary && isa == Isa::avx512 && detail::vector_unary_available(isa, post) &&
                   detail::vector_binary_unary_avx512(*binary, post, pa, a_step, pb, b_step, po, len)) {
          // the operation and post in one pass
        } else {
          if (a_step == 1 && b_step == 1) {
            f32_row<1, 1>(isa, pa, pb, po, len, f);
          } else if (a_step == 1) {
            f32_row<1, 0>(isa, pa, pb, po, len, f);
          } else if (b_step == 1) {
            f32_row<0, 1>(isa, pa, pb, po, len, f);
          } else {
            f32_row<0, 0>(isa, pa, pb, po, len, f);
          }
          if (post != UnaryOp::identity) detail::unary_in_place(isa, post, po, len);
        }
        if (!in_place) store_row(out_dtype, out, io, o_in, len, z);
      }
    }
  }
}

void check_sizes(const char* who, int64_t m, int64_t n) {
  if (m <= 0)
    throw ConfigError(std::string(who) + ".m: must be > 0 (got " + std::to_string(m) + ")");
  if (n <= 0)
    throw ConfigError(std::string(who) + ".n: must be > 0 (got " + std::to_string(n) + ")");
}

void check_output(const char* who, const Operand& out) {
  if (out.broadcast != Broadcast::matrix)
    throw ConfigError(std::string(who) + ".out.broadcast: the output must be a matrix");
}

const float kZero = 0.f;

template <class Visitor>
void with_unary(Isa isa, UnaryOp op, Visitor visit) {
  switch (op) {
    case UnaryOp::zero: visit([](float, float) { return 0.f; }); break;
    case UnaryOp::identity: visit([](float x, float) { return x; }); break;
    case UnaryOp::relu: visit([](float x, float) { return x > 0.f ? x : 0.f; }); break;
    case UnaryOp::neg: visit([](float x, float) { return -x; }); break;
    default:
      if (detail::vector_unary_available(isa, op))
        visit(RowOp{op});
      else
        visit([op](float x, float) { return apply(op, x); });
      break;
  }
}

template <class Visitor>
void with_binary(BinaryOp op, Visitor visit) {
  switch (op) {
    case BinaryOp::add: visit([](float x, float y) { return x + y; }); break;
    case BinaryOp::sub: visit([](float x, float y) { return x - y; }); break;
    case BinaryOp::mul: visit([](float x, float y) { return x * y; }); break;
    case BinaryOp::div: visit([](float x, float y) { return x / y; }); break;
    case BinaryOp::max: visit([](float x, float y) { return x > y ? x : y; }); break;
    case BinaryOp::min: visit([](float x, float y) { return x < y ? x : y; }); break;
  }
}

}  // namespace

// A unary op applied to each result of a binary one before the store (BinaryConfig::post), on
// the row piece just computed (in L1), and by the BRGEMM's epilogue on a tile just stored.
void detail::unary_in_place(Isa isa, UnaryOp op, float* z, int64_t n, int64_t count, int64_t ld) {
  if (op == UnaryOp::identity) return;
  if (op != UnaryOp::relu && detail::vector_unary_available(isa, op)) {
    detail::vector_unary(isa, op, z, z, n, count, ld);
    return;
  }
  for (int64_t r = 0; r < count; ++r, z += ld) {
    if (op == UnaryOp::relu) {  // (a loop the compiler vectorises)
      for (int64_t i = 0; i < n; ++i) z[i] = z[i] > 0.f ? z[i] : 0.f;
    } else {
      for (int64_t i = 0; i < n; ++i) z[i] = apply(op, z[i]);
    }
  }
}

Unary::Unary(const UnaryConfig& config) : config_(config), isa_(best_isa()) {
  check_sizes("UnaryConfig", config.m, config.n);
  check_output("UnaryConfig", config.out);
}

void Unary::operator()(const void* in, void* out, int64_t ld_in, int64_t ld_out) const {
  const UnaryConfig& c = config_;
  if (c.op == UnaryOp::identity && c.in.broadcast == Broadcast::matrix && c.in.dtype == DType::f32 &&
      c.out.dtype == DType::f32 && c.in.layout != c.out.layout) {  // a transposition: through registers
    const float* from = static_cast<const float*>(in);
    float* to = static_cast<float*>(out);
    if (c.in.layout == Layout::row_major)  // in(i, j) = from[i * ld_in + j], out(i, j) = to[j * ld_out + i]
      detail::transpose_f32(isa_, from, ld_in, to, ld_out, c.m, c.n);
    else  // in(i, j) = from[j * ld_in + i], out(i, j) = to[i * ld_out + j]
      detail::transpose_f32(isa_, from, ld_in, to, ld_out, c.n, c.m);
    return;
  }
  if (c.op == UnaryOp::identity && c.in.broadcast == Broadcast::matrix && c.in.dtype == c.out.dtype &&
      c.in.layout == c.out.layout) {  // a copy: row by row (column by column), the bits as they are
    const bool rows = c.in.layout == Layout::row_major;
    const int64_t lines = rows ? c.m : c.n;
    const std::size_t bytes = static_cast<std::size_t>((rows ? c.n : c.m) * dtype_size(c.in.dtype));
    const std::size_t in_step = static_cast<std::size_t>(ld_in * dtype_size(c.in.dtype));
    const std::size_t out_step = static_cast<std::size_t>(ld_out * dtype_size(c.out.dtype));
    for (int64_t line = 0; line < lines; ++line)
      std::memmove(static_cast<char*>(out) + line * out_step, static_cast<const char*>(in) + line * in_step, bytes);
    return;
  }
  if (c.op == UnaryOp::identity && c.in.broadcast == Broadcast::matrix && c.in.layout == c.out.layout &&
      bulk_conversion(c.in.dtype, c.out.dtype)) {  // a conversion: line by line, no copy between
    const bool rows = c.in.layout == Layout::row_major;
    const int64_t lines = rows ? c.m : c.n, length = rows ? c.n : c.m;
    for (int64_t line = 0; line < lines; ++line)
      convert_line(c.in.dtype, static_cast<const char*>(in) + line * ld_in * dtype_size(c.in.dtype), c.out.dtype,
                   static_cast<char*>(out) + line * ld_out * dtype_size(c.out.dtype), length);
    return;
  }
  const Strided o = strided(c.out, out, ld_out);
  Strided a = c.op == UnaryOp::zero ? Strided{&kZero, DType::f32, 0, 0}
                                    : strided(c.in, in, ld_in);
  const Strided none{&kZero, DType::f32, 0, 0};
  with_unary(isa_, c.op, [&](auto f) { run(isa_, c.m, c.n, a, none, c.out.dtype, out, o.rs, o.cs, f); });
}

Binary::Binary(const BinaryConfig& config) : config_(config), isa_(best_isa()) {
  check_sizes("BinaryConfig", config.m, config.n);
  check_output("BinaryConfig", config.out);
  if (config.post == UnaryOp::zero) throw ConfigError("BinaryConfig.post: zero is not an operation on a result");
}

void Binary::operator()(const void* in0, const void* in1, void* out, int64_t ld_in0,
                        int64_t ld_in1, int64_t ld_out) const {
  const BinaryConfig& c = config_;
  const Strided o = strided(c.out, out, ld_out);
  const Strided a = strided(c.in0, in0, ld_in0), b = strided(c.in1, in1, ld_in1);
  with_binary(c.op, [&](auto f) { run(isa_, c.m, c.n, a, b, c.out.dtype, out, o.rs, o.cs, f, c.post, &c.op); });
}

}  // namespace polyfuse::cpu
