// Row reductions (reduce.h). One template computes the fixed order: kRowPartials partials, each
// its own dependence chain, so the compiler vectorises the update of consecutive partials
// without reassociating anything; compiled once for the baseline ISA and once for AVX2, the
// two paths do the same operations on the same values (bit-identical), the second 8 lanes wide.
#include "polyfuse/cpu/reduce.h"

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

// Partials p of elements x[0..n) whose first element has index `first` (a multiple of
// kRowPartials) in the row: p[j] takes x[i] with (first + i) mod kRowPartials = j.
template <RowReduction OP>
[[gnu::always_inline]] inline void accumulate(float* p, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + kRowPartials <= n; i += kRowPartials)
    for (int64_t j = 0; j < kRowPartials; ++j) p[j] = combine<OP>(p[j], x[i + j]);
  for (int64_t j = 0; i + j < n; ++j) p[j] = combine<OP>(p[j], x[i + j]);
}

template <RowReduction OP>
[[gnu::always_inline]] inline float finish_partials(float* p) {
  for (int64_t width = kRowPartials / 2; width >= 1; width /= 2)
    for (int64_t j = 0; j < width; ++j) p[j] = combine<OP>(p[j], p[j + width]);
  return p[0];
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
void accumulate_baseline(float* p, const float* x, int64_t n) { accumulate<OP>(p, x, n); }
template <RowReduction OP>
float reduce_f32_baseline(const float* x, int64_t n) { return reduce_f32<OP>(x, n); }
template <RowReduction OP>
float reduce_narrow_baseline(const uint16_t* x, DType dtype, int64_t n) { return reduce_narrow<OP>(x, dtype, n); }

#if defined(__x86_64__)
template <RowReduction OP>
__attribute__((target("avx2"))) void accumulate_avx2(float* p, const float* x, int64_t n) { accumulate<OP>(p, x, n); }
template <RowReduction OP>
__attribute__((target("avx2"))) float reduce_f32_avx2(const float* x, int64_t n) { return reduce_f32<OP>(x, n); }
template <RowReduction OP>
__attribute__((target("avx2"))) float reduce_narrow_avx2(const uint16_t* x, DType dtype, int64_t n) {
  return reduce_narrow<OP>(x, dtype, n);
}
#endif

bool avx2_path() {
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
    case RowReduction::sum: return finish_partials<RowReduction::sum>(partials_);
    case RowReduction::max: return finish_partials<RowReduction::max>(partials_);
    case RowReduction::min: return finish_partials<RowReduction::min>(partials_);
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
