// FMA peak loops: 12 independent accumulators (more than latency x throughput on
// current cores), per-function target attributes so one binary runs everywhere.
#include "fma_peak.h"

#include <immintrin.h>

#include <time.h>

#include "polyfuse/cpu/isa.h"

namespace polyfuse::bench {
namespace {

constexpr long kIterations = 1 << 20;

__attribute__((target("avx512f"))) float chains_avx512(long iterations) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(float(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float out[16];  // (not _mm512_reduce_add_ps: GCC 12's header warns, -Wuninitialized)
  _mm512_store_ps(out, sum);
  return out[0] + out[15];
}

__attribute__((target("avx2,fma"))) float chains_avx2(long iterations) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(float(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float out[8];
  _mm256_store_ps(out, sum);
  return out[0] + out[7];
}

float chains_sse(long iterations) {
  __m128 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm_set1_ps(float(i));
  const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], a), b);
  }
  __m128 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum = _mm_add_ps(sum, acc[i]);
  return _mm_cvtss_f32(sum);
}

// CPU seconds the calling thread has run: unlike the wall clock, not advanced while the
// scheduler runs another process on the core (peak_gauge.h: why).
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
}

// GFLOP/s of one thread running the loop for about `seconds` of its CPU time.
double one_thread(double seconds, float (*chains)(long), int lanes) {
  volatile float sink = chains(kIterations / 16);  // warm up (clock ramps)
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    const double start = thread_cpu_seconds();
    long iterations = 0;
    double elapsed = 0;
    do {
      sink = sink + chains(kIterations);
      iterations += kIterations;
      elapsed = thread_cpu_seconds() - start;
    } while (elapsed < seconds / 3);
    const double g = double(iterations) * 12 * lanes * 2 / elapsed * 1e-9;
    if (g > best) best = g;
  }
  return best;
}

}  // namespace

double fma_peak_gflops(int threads, double seconds, const char** isa) {
  float (*chains)(long) = chains_sse;
  int lanes = 4;
  *isa = "sse (mul+add)";
  if (cpu::isa_supported(cpu::Isa::avx512)) {
    chains = chains_avx512, lanes = 16, *isa = "avx512 fma";
  } else if (cpu::isa_supported(cpu::Isa::avx2)) {
    chains = chains_avx2, lanes = 8, *isa = "avx2 fma";
  }
  if (threads <= 1) return one_thread(seconds, chains, lanes);
  double total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
  total += one_thread(seconds, chains, lanes);
  return total;
}

}  // namespace polyfuse::bench
