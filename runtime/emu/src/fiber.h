// Fibers for the emulator: one per CUDA thread of a block, on ucontext with mmap'ed stacks
// (a guard page below each, so a stack overflow faults instead of corrupting a neighbour).
// Under AddressSanitizer every switch is announced to it (__sanitizer_start/finish_switch_fiber),
// so that the emulator and the kernels it runs can be checked by ASan.
#pragma once

#include <ucontext.h>

#include <cstddef>

namespace polyfuse::emu {

class FiberStack {
 public:
  explicit FiberStack(std::size_t bytes);
  ~FiberStack();
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;
  void* base() const { return usable_; }
  std::size_t size() const { return usable_bytes_; }

 private:
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  void* usable_ = nullptr;
  std::size_t usable_bytes_ = 0;
};

// A context that starts at entry(arg) on `stack` and switches with the scheduler context.
class Fiber {
 public:
  // Prepares the fiber to run entry(arg) on `stack` the next time it is resumed.
  void reset(FiberStack& stack, void (*entry)(void*), void* arg, ucontext_t* scheduler);
  // Scheduler side: run the fiber until it yields or finishes.
  void resume();
  // Fiber side: give control back to the scheduler.
  void yield();

 private:
  static void trampoline(unsigned lo, unsigned hi);
  ucontext_t context_{};
  void* stack_base_ = nullptr;               // this fiber's stack (for ASan)
  std::size_t stack_size_ = 0;
  const void* scheduler_stack_ = nullptr;    // the scheduler's stack, learnt at the first switch
  std::size_t scheduler_stack_size_ = 0;
  ucontext_t* scheduler_ = nullptr;
  void (*entry_)(void*) = nullptr;
  void* arg_ = nullptr;
};

}  // namespace polyfuse::emu
