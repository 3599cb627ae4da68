// polyfuse device helpers, Hopper instruction layer: mbarrier and the proxy fences (PTX ISA
// 9.7.13.15 "Parallel Synchronization and Communication Instructions: mbarrier", 9.7.13.4
// "membar/fence").
//
//   mbarrier_init(bar, count)            mbarrier.init.shared::cta.b64
//   mbarrier_arrive(bar)                 mbarrier.arrive.shared::cta.b64
//   mbarrier_arrive_expect_tx(bar, tx)   mbarrier.arrive.expect_tx.shared::cta.b64
//   mbarrier_expect_tx(bar, tx)          mbarrier.expect_tx.relaxed.cta.shared::cta.b64
//   mbarrier_try_wait(bar, parity)       mbarrier.try_wait.parity.shared::cta.b64 (one try)
//   mbarrier_test_wait(bar, parity)      mbarrier.test_wait.parity.shared::cta.b64 (no wait)
//   mbarrier_wait(bar, parity)           try_wait in a loop until the phase completed
//   fence_mbarrier_init()                fence.mbarrier_init.release.cluster
//   fence_proxy_async()                  fence.proxy.async.shared::cta
//
// An mbarrier (an aligned 8-byte object in shared memory) counts, per phase, the expected
// arrivals (set by init) and a transaction count in bytes (raised by expect_tx, lowered by the
// TMA copies that complete on it). A phase completes when both reach zero: the phase number
// flips, the arrival count is reset. try_wait.parity P succeeds once the phase with parity P
// has completed, i.e. while the current phase's parity is not P; the first phase is 0.
// A wait that can never succeed is a deadlock (the emulator reports it, naming the barrier).
//
// fence.proxy.async.shared::cta: shared memory written by ordinary stores (the generic
// proxy) and then read by wgmma or a TMA store (the async proxy) needs this fence in the
// writing thread, before the barrier that orders the two (HOPPER habits; PTX ISA 9.7.13.4).
// fence.mbarrier_init makes mbarrier.init visible to other threads and to TMA.
#pragma once

#include "pf_base.cuh"
#include "pf_sm90.cuh"

namespace pf {
namespace sm90 {

PF_DEVICE void mbarrier_init(unsigned long long* bar, unsigned count) {
#if PF_SM90_PATH
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_window_address(bar)), "r"(count) : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");  // the Hopper mbarrier protocol needs sm_90
#elif PF_HOST_PATH
  ::pf_host::mbarrier_init(bar, count);
#endif
}

// Returns the barrier state before the arrival (opaque; unused by the helpers).
PF_DEVICE unsigned long long mbarrier_arrive(unsigned long long* bar) {
  unsigned long long state = 0;
#if PF_SM90_PATH
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(shared_window_address(bar)) : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  state = ::pf_host::mbarrier_arrive(bar, 1);
#endif
  return state;
}

// expect_tx(tx_bytes) then arrive, as one operation.
PF_DEVICE unsigned long long mbarrier_arrive_expect_tx(unsigned long long* bar, unsigned tx_bytes) {
  unsigned long long state = 0;
#if PF_SM90_PATH
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
               : "=l"(state)
               : "r"(shared_window_address(bar)), "r"(tx_bytes)
               : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  state = ::pf_host::mbarrier_arrive_expect_tx(bar, tx_bytes);
#endif
  return state;
}

// Raises the current phase's transaction count without arriving.
PF_DEVICE void mbarrier_expect_tx(unsigned long long* bar, unsigned tx_bytes) {
#if PF_SM90_PATH
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(shared_window_address(bar)),
               "r"(tx_bytes)
               : "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::mbarrier_expect_tx(bar, tx_bytes);
#endif
}

namespace detail {
// mbarrier.try_wait.parity (TRY) or mbarrier.test_wait.parity: whether the phase with parity
// `parity` has completed.
template <bool TRY> PF_DEVICE bool mbarrier_wait_parity(unsigned long long* bar, unsigned parity) {
#if PF_SM90_PATH
  unsigned done;
  if constexpr (TRY) {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_window_address(bar)), "r"(parity)
        : "memory");
  } else {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_window_address(bar)), "r"(parity)
        : "memory");
  }
  return done != 0;
#elif PF_DEVICE_PATH
  asm volatile("trap;");
  return false;
#elif PF_HOST_PATH
  return ::pf_host::mbarrier_wait_parity(bar, parity, TRY);
#else
  return false;
#endif
}
}  // namespace detail

// One try_wait.parity: true when the phase with parity `parity` has completed. It may suspend
// the thread for a while first (the emulator suspends it until the barrier completes a phase).
PF_DEVICE bool mbarrier_try_wait(unsigned long long* bar, unsigned parity) {
  return detail::mbarrier_wait_parity<true>(bar, parity);
}

// test_wait.parity: the same test, never waiting.
PF_DEVICE bool mbarrier_test_wait(unsigned long long* bar, unsigned parity) {
  return detail::mbarrier_wait_parity<false>(bar, parity);
}

// Waits until the phase with parity `parity` has completed.
PF_DEVICE void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  while (!mbarrier_try_wait(bar, parity)) {
  }
}

PF_DEVICE void fence_mbarrier_init() {
#if PF_SM90_PATH
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::fence_mbarrier_init();
#endif
}

PF_DEVICE void fence_proxy_async() {
#if PF_SM90_PATH
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#elif PF_DEVICE_PATH
  asm volatile("trap;");
#elif PF_HOST_PATH
  ::pf_host::fence_proxy_async();
#endif
}

}  // namespace sm90
}  // namespace pf
