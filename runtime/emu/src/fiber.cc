#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

namespace polyfuse::emu {

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
  self->entry_(self->arg_);
  // returning switches to uc_link (the scheduler)
}

void Fiber::resume() { swapcontext(scheduler_, &context_); }

void Fiber::yield() { swapcontext(&context_, scheduler_); }

}  // namespace polyfuse::emu
