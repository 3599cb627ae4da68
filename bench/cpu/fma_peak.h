// Measured FMA peak of this CPU: independent vector FMA chains, no memory traffic.
#pragma once

namespace polyfuse::bench {

// GFLOP/s of one thread (threads == 1) or of `threads` OpenMP threads together, with
// the widest FMA the CPU runs (AVX-512F, else AVX2+FMA, else SSE mul+add). `isa` names it.
// Each thread's rate is over its own CPU time (CLOCK_THREAD_CPUTIME_ID), so time slices
// the scheduler gives other processes do not lower it; the threads' rates add up.
double fma_peak_gflops(int threads, double seconds, const char** isa);

}  // namespace polyfuse::bench
