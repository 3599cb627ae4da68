// Row reductions (reduce.h). One template computes the fixed order: kRowPartials partials, each
// its own dependence chain, held as four 8-lane vectors (GCC's vector extensions), so nothing is
// reassociated; compiled once for the baseline ISA and once for AVX2, the two paths do the same
// operations on the same values (bit-identical), the second 8 lanes wide.
#include "polyfuse/cpu/reduce.h"

#include <cstring>
#include <string>

#include "polyfuse/cpu/isa.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace polyfuse::cpu {
namespace {

using detail::combine_row, detail::load_lanes, detail::RowLanes8;

// Partials p of elements x[0..n) whose first element has index `first` (a multiple of
// kRowPartials) in the row: p[j] takes x[i] with (first + i) mod kRowPartials = j.
// The partials stay in four vector registers while the row streams by, loaded and stored
// whole (memory copies of `p` element by element make GCC move them in 16-byte pieces and read
// them back 32 bytes wide: a failed store forward on every call).
template <RowReduction OP>
[[gnu::always_inline]] inline void accumulate(float* p, const float* x, int64_t n) {
  RowLanes8 q0, q1, q2, q3, v;
  load_lanes(q0, p), load_lanes(q1, p + 8), load_lanes(q2, p + 16), load_lanes(q3, p + 24);
  int64_t i = 0;
  for (; i + kRowPartials <= n; i += kRowPartials) {
    load_lanes(v, x + i), combine_row<OP>(q0, v);
    load_lanes(v, x + i + 8), combine_row<OP>(q1, v);
    load_lanes(v, x + i + 16), combine_row<OP>(q2, v);
    load_lanes(v, x + i + 24), combine_row<OP>(q3, v);
  }
  std::memcpy(p, &q0, sizeof q0), std::memcpy(p + 8, &q1, sizeof q1);
  std::memcpy(p + 16, &q2, sizeof q2), std::memcpy(p + 24, &q3, sizeof q3);
  for (int64_t j = 0; i + j < n; ++j) combine_row<OP>(p[j], x[i + j]);
}

template <RowReduction OP>
[[gnu::always_inline]] inline float reduce_f32(const float* x, int64_t n) {
  alignas(64) float p[kRowPartials];
  for (float& partial : p) partial = detail::row_identity<OP>();
  accumulate<OP>(p, x, n);
  return detail::finish_row_partials<OP>(p);
}

// f16/bf16: widened in chunks of a multiple of kRowPartials, so a chunk starts at partial 0.
template <RowReduction OP>
[[gnu::always_inline]] inline float reduce_narrow(const uint16_t* x, DType dtype, int64_t n) {
  constexpr int64_t kChunk = 8 * kRowPartials;
  alignas(64) float p[kRowPartials];
  alignas(64) float wide[kChunk];
  for (float& partial : p) partial = detail::row_identity<OP>();
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t count = n - i < kChunk ? n - i : kChunk;
    if (dtype == DType::f16) f16_to_f32(x + i, count, wide);
    else bf16_to_f32(x + i, count, wide);
    accumulate<OP>(p, wide, count);
  }
  return detail::finish_row_partials<OP>(p);
}

template <RowReduction OP>
float reduce_f32_baseline(const float* x, int64_t n) { return reduce_f32<OP>(x, n); }
template <RowReduction OP>
float reduce_narrow_baseline(const uint16_t* x, DType dtype, int64_t n) { return reduce_narrow<OP>(x, dtype, n); }

#if defined(__x86_64__)
template <RowReduction OP>
__attribute__((target("avx2"))) float reduce_f32_avx2(const float* x, int64_t n) { return reduce_f32<OP>(x, n); }
template <RowReduction OP>
__attribute__((target("avx2"))) float reduce_narrow_avx2(const uint16_t* x, DType dtype, int64_t n) {
  return reduce_narrow<OP>(x, dtype, n);
}
#endif

#if defined(__x86_64__)
// f16/bf16 widened 8 elements at a time in registers (F16C's vcvtph2ps, exact; bf16 a shift) and
// combined as reduce_f32 combines them: no buffer of widened elements stored and read back. An
// f16 softmax's max pass at 1024 x 1024 on one AVX-512 core: 0.065 -> see the commit's note.
[[gnu::always_inline]] __attribute__((target("avx2,f16c"))) inline void widen8(RowLanes8& v, const uint16_t* at, bool f16) {
  const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  const __m256 wide = f16 ? _mm256_cvtph_ps(bits) : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
  std::memcpy(&v, &wide, sizeof v);
}

template <RowReduction OP>
__attribute__((target("avx2,f16c"))) float reduce_narrow_f16c(const uint16_t* x, DType dtype, int64_t n) {
  constexpr float identity = detail::row_identity<OP>();
  RowLanes8 q0 = {identity, identity, identity, identity, identity, identity, identity, identity};
  RowLanes8 q1 = q0, q2 = q0, q3 = q0, v;
  const bool f16 = dtype == DType::f16;
  int64_t i = 0;
  for (; i + kRowPartials <= n; i += kRowPartials) {
    widen8(v, x + i, f16), combine_row<OP>(q0, v), widen8(v, x + i + 8, f16), combine_row<OP>(q1, v);
    widen8(v, x + i + 16, f16), combine_row<OP>(q2, v), widen8(v, x + i + 24, f16), combine_row<OP>(q3, v);
  }
  alignas(64) float p[kRowPartials];
  std::memcpy(p, &q0, sizeof q0), std::memcpy(p + 8, &q1, sizeof q1);
  std::memcpy(p + 16, &q2, sizeof q2), std::memcpy(p + 24, &q3, sizeof q3);
  for (int64_t j = 0; i + j < n; ++j) combine_row<OP>(p[j], f16 ? f16_to_f32(x[i + j]) : bf16_to_f32(x[i + j]));
  return detail::finish_row_partials<OP>(p);
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
  if (bulk_conversions_vectorised()) return reduce_narrow_f16c<OP>(x, dtype, n);
  if (avx2_path()) return reduce_narrow_avx2<OP>(x, dtype, n);
#endif
  return reduce_narrow_baseline<OP>(x, dtype, n);
}

}  // namespace

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
