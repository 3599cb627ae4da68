// Row reductions (reduce.h). One template computes the fixed order: kRowPartials partials, each
// its own dependence chain, held as four 8-lane vectors (GCC's vector extensions), so nothing is
// reassociated; compiled once for the baseline ISA and once for AVX2, the two paths do the same
// operations on the same values (bit-identical), the second 8 lanes wide.
#include "polyfuse/cpu/reduce.h"

// Lanes8 values cross only always-inline functions: no ABI is involved.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <cstring>
#include <limits>
#include <string>

#include "polyfuse/cpu/isa.h"

namespace polyfuse::cpu {
namespace {

template <RowReduction OP>
[[gnu::always_inline]] inline float combine(float acc, float x) {
  if constexpr (OP == RowReduction::sum) return acc + x;
  if constexpr (OP == RowReduction::max) return x > acc ? x : acc;  // a NaN x leaves acc
  return x < acc ? x : acc;
}

template <RowReduction OP>
constexpr float identity() {
  if constexpr (OP == RowReduction::sum) return 0.0f;
  if constexpr (OP == RowReduction::max) return -std::numeric_limits<float>::infinity();
  return std::numeric_limits<float>::infinity();
}

// Eight consecutive partials as one value (GCC's vector extensions: 8 lanes on AVX2, two
// 4-lane halves on the baseline ISA; the same lane-wise operations either way).
using Lanes8 = float __attribute__((vector_size(32)));
using Lanes4 = float __attribute__((vector_size(16)));
static_assert(kRowPartials == 4 * 8, "the partials are four Lanes8");

template <class V>
[[gnu::always_inline]] inline V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <RowReduction OP, class V>
[[gnu::always_inline]] inline V combine_lanes(V acc, V x) {
  if constexpr (OP == RowReduction::sum) return acc + x;
  if constexpr (OP == RowReduction::max) return x > acc ? x : acc;  // lane-wise, as combine()
  return x < acc ? x : acc;
}

// Partials p of elements x[0..n) whose first element has index `first` (a multiple of
// kRowPartials) in the row: p[j] takes x[i] with (first + i) mod kRowPartials = j.
// The partials stay in four vector registers while the row streams by, loaded and stored
// whole (memory copies of `p` element by element make GCC move them in 16-byte pieces and read
// them back 32 bytes wide: a failed store forward on every call).
template <RowReduction OP>
[[gnu::always_inline]] inline void accumulate(float* p, const float* x, int64_t n) {
  Lanes8 q0 = load<Lanes8>(p), q1 = load<Lanes8>(p + 8), q2 = load<Lanes8>(p + 16), q3 = load<Lanes8>(p + 24);
  int64_t i = 0;
  for (; i + kRowPartials <= n; i += kRowPartials) {
    q0 = combine_lanes<OP>(q0, load<Lanes8>(x + i));
    q1 = combine_lanes<OP>(q1, load<Lanes8>(x + i + 8));
    q2 = combine_lanes<OP>(q2, load<Lanes8>(x + i + 16));
    q3 = combine_lanes<OP>(q3, load<Lanes8>(x + i + 24));
  }
  std::memcpy(p, &q0, sizeof q0), std::memcpy(p + 8, &q1, sizeof q1);
  std::memcpy(p + 16, &q2, sizeof q2), std::memcpy(p + 24, &q3, sizeof q3);
  for (int64_t j = 0; i + j < n; ++j) p[j] = combine<OP>(p[j], x[i + j]);
}

// The tree of reduce.h: widths 16 and 8 on Lanes8, 4 on Lanes4, then 2 and 1 on scalars.
template <RowReduction OP>
[[gnu::always_inline]] inline float finish_partials(const float* p) {
  const Lanes8 w16_low = combine_lanes<OP>(load<Lanes8>(p), load<Lanes8>(p + 16));
  const Lanes8 w16_high = combine_lanes<OP>(load<Lanes8>(p + 8), load<Lanes8>(p + 24));
  const Lanes8 w8 = combine_lanes<OP>(w16_low, w16_high);
  alignas(32) float lanes[8];
  std::memcpy(lanes, &w8, sizeof w8);
  const Lanes4 w4 = combine_lanes<OP>(load<Lanes4>(lanes), load<Lanes4>(lanes + 4));
  return combine<OP>(combine<OP>(w4[0], w4[2]), combine<OP>(w4[1], w4[3]));
}

template <RowReduction OP>
[[gnu::always_inline]] inline float reduce_f32(const float* x, int64_t n) {
  alignas(64) float p[kRowPartials];
  for (float& partial : p) partial = identity<OP>();
  accumulate<OP>(p, x, n);
  return finish_partials<OP>(p);
}

// f16/bf16: widened in chunks of a multiple of kRowPartials, so a chunk starts at partial 0.
template <RowReduction OP>
[[gnu::always_inline]] inline float reduce_narrow(const uint16_t* x, DType dtype, int64_t n) {
  constexpr int64_t kChunk = 8 * kRowPartials;
  alignas(64) float p[kRowPartials];
  alignas(64) float wide[kChunk];
  for (float& partial : p) partial = identity<OP>();
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t count = n - i < kChunk ? n - i : kChunk;
    if (dtype == DType::f16) f16_to_f32(x + i, count, wide);
    else bf16_to_f32(x + i, count, wide);
    accumulate<OP>(p, wide, count);
  }
  return finish_partials<OP>(p);
}

template <RowReduction OP>
float finish_baseline(const float* p) { return finish_partials<OP>(p); }
template <RowReduction OP>
void accumulate_baseline(float* p, const float* x, int64_t n) { accumulate<OP>(p, x, n); }
template <RowReduction OP>
float reduce_f32_baseline(const float* x, int64_t n) { return reduce_f32<OP>(x, n); }
template <RowReduction OP>
float reduce_narrow_baseline(const uint16_t* x, DType dtype, int64_t n) { return reduce_narrow<OP>(x, dtype, n); }

#if defined(__x86_64__)
template <RowReduction OP>
__attribute__((target("avx2"))) void accumulate_avx2(float* p, const float* x, int64_t n) { accumulate<OP>(p, x, n); }
template <RowReduction OP>
__attribute__((target("avx2"))) float finish_avx2(const float* p) { return finish_partials<OP>(p); }
template <RowReduction OP>
__attribute__((target("avx2"))) float reduce_f32_avx2(const float* x, int64_t n) { return reduce_f32<OP>(x, n); }
template <RowReduction OP>
__attribute__((target("avx2"))) float reduce_narrow_avx2(const uint16_t* x, DType dtype, int64_t n) {
  return reduce_narrow<OP>(x, dtype, n);
}
#endif

[[maybe_unused]] bool avx2_path() {  // (only the x86-64 dispatch asks)
#if defined(__x86_64__)
  static const bool avx2 = best_isa() == Isa::avx2 || best_isa() == Isa::avx512;
  return avx2;
#else
  return false;
#endif
}

template <RowReduction OP>
float dispatch(const float* x, int64_t n) {
#if defined(__x86_64__)
  if (avx2_path()) return reduce_f32_avx2<OP>(x, n);
#endif
  return reduce_f32_baseline<OP>(x, n);
}

template <RowReduction OP>
float dispatch(const uint16_t* x, DType dtype, int64_t n) {
#if defined(__x86_64__)
  if (avx2_path()) return reduce_narrow_avx2<OP>(x, dtype, n);
#endif
  return reduce_narrow_baseline<OP>(x, dtype, n);
}

template <RowReduction OP>
void dispatch_accumulate(float* p, const float* x, int64_t n) {
#if defined(__x86_64__)
  if (avx2_path()) return accumulate_avx2<OP>(p, x, n);
#endif
  accumulate_baseline<OP>(p, x, n);
}

template <RowReduction OP>
float dispatch_finish(const float* p) {
#if defined(__x86_64__)
  if (avx2_path()) return finish_avx2<OP>(p);
#endif
  return finish_baseline<OP>(p);
}

}  // namespace

RowReducer::RowReducer(RowReduction op) : op_(op) {
  const float start = op == RowReduction::sum   ? identity<RowReduction::sum>()
                      : op == RowReduction::max ? identity<RowReduction::max>()
                                                : identity<RowReduction::min>();
  for (float& partial : partials_) partial = start;
}

void RowReducer::add(const float* x, int64_t n) {
  if (ended_)
    throw ConfigError("RowReducer::add: only the row's last piece may have a length that is not a multiple of " +
                      std::to_string(kRowPartials));
  ended_ = n % kRowPartials != 0;
  switch (op_) {
    case RowReduction::sum: return dispatch_accumulate<RowReduction::sum>(partials_, x, n);
    case RowReduction::max: return dispatch_accumulate<RowReduction::max>(partials_, x, n);
    case RowReduction::min: return dispatch_accumulate<RowReduction::min>(partials_, x, n);
  }
}

float RowReducer::finish() {
  switch (op_) {
    case RowReduction::sum: return dispatch_finish<RowReduction::sum>(partials_);
    case RowReduction::max: return dispatch_finish<RowReduction::max>(partials_);
    case RowReduction::min: return dispatch_finish<RowReduction::min>(partials_);
  }
  return 0;
}

float reduce_row(RowReduction op, const float* x, int64_t n) {
  switch (op) {
    case RowReduction::sum: return dispatch<RowReduction::sum>(x, n);
    case RowReduction::max: return dispatch<RowReduction::max>(x, n);
    case RowReduction::min: return dispatch<RowReduction::min>(x, n);
  }
  return 0;
}

float reduce_row(RowReduction op, const uint16_t* x, DType dtype, int64_t n) {
  if (dtype != DType::f16 && dtype != DType::bf16)
    throw ConfigError("reduce_row: a row of 16-bit elements is f16 or bf16 (got " + std::string(to_string(dtype)) + ")");
  switch (op) {
    case RowReduction::sum: return dispatch<RowReduction::sum>(x, dtype, n);
    case RowReduction::max: return dispatch<RowReduction::max>(x, dtype, n);
    case RowReduction::min: return dispatch<RowReduction::min>(x, dtype, n);
  }
  return 0;
}

}  // namespace polyfuse::cpu
