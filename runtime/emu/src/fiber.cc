#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define PF_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PF_ASAN_FIBERS 1
#endif
#endif
#if PF_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

namespace polyfuse::emu {
namespace {

// ASan's fiber switch protocol: start_switch before swapcontext (nullptr when the current
// fiber ends), finish_switch on the other side.
void start_switch(void** fake_stack, const void* bottom, std::size_t size) {
#if PF_ASAN_FIBERS
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#else
  (void)fake_stack, (void)bottom, (void)size;
#endif
}
void finish_switch(void* fake_stack, const void** bottom_old, std::size_t* size_old) {
#if PF_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
  (void)fake_stack, (void)bottom_old, (void)size_old;
#endif
}

}  // namespace

FiberStack::FiberStack(std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  usable_bytes_ = (bytes + page - 1) / page * page;
  mapping_bytes_ = usable_bytes_ + page;
  mapping_ = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping_ == MAP_FAILED) throw std::bad_alloc();
  mprotect(mapping_, page, PROT_NONE);  // guard page: stacks grow down
  usable_ = static_cast<char*>(mapping_) + page;
}

FiberStack::~FiberStack() {
  if (mapping_) munmap(mapping_, mapping_bytes_);
}

void Fiber::reset(FiberStack& stack, void (*entry)(void*), void* arg, ucontext_t* scheduler) {
  entry_ = entry;
  arg_ = arg;
  scheduler_ = scheduler;
  stack_base_ = stack.base();
  stack_size_ = stack.size();
  getcontext(&context_);
  context_.uc_stack.ss_sp = stack.base();
  context_.uc_stack.ss_size = stack.size();
  context_.uc_link = scheduler;
  const auto self = reinterpret_cast<std::uintptr_t>(this);
  makecontext(&context_, reinterpret_cast<void (*)()>(&Fiber::trampoline), 2,
              static_cast<unsigned>(self & 0xffffffffu), static_cast<unsigned>(self >> 32));
}

void Fiber::trampoline(unsigned lo, unsigned hi) {
  auto* self = reinterpret_cast<Fiber*>(static_cast<std::uintptr_t>(lo) | (static_cast<std::uintptr_t>(hi) << 32));
  finish_switch(nullptr, &self->scheduler_stack_, &self->scheduler_stack_size_);
  self->entry_(self->arg_);
  // returning switches to uc_link (the scheduler); this fiber's stack is done
  start_switch(nullptr, self->scheduler_stack_, self->scheduler_stack_size_);
}

void Fiber::resume() {
  void* fake_stack = nullptr;
  start_switch(&fake_stack, stack_base_, stack_size_);
  swapcontext(scheduler_, &context_);
  finish_switch(fake_stack, nullptr, nullptr);
}

void Fiber::yield() {
  void* fake_stack = nullptr;
  start_switch(&fake_stack, scheduler_stack_, scheduler_stack_size_);
  swapcontext(&context_, scheduler_);
  finish_switch(fake_stack, &scheduler_stack_, &scheduler_stack_size_);
}

}  // namespace polyfuse::emu
