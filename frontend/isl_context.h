// Ownership of isl contexts.
//
// `isl::ctx` from isl/cpp.h does not own its context. `IslContext` allocates one
// (isl_ctx_alloc) and frees it (isl_ctx_free) and sets isl's error mode to "continue",
// which is what isl/cpp.h expects to turn errors into `isl::exception`s.
// `IslContextHandle` shares one IslContext between every object that holds isl values
// of it (Program, Dependences): the context is freed after the last of them.
#pragma once

#include <isl/cpp.h>

#include <memory>

namespace polyfuse {

// Owns one isl context: allocated on construction, freed on destruction.
class IslContext {
 public:
  // Allocates a context with ISL_ON_ERROR_CONTINUE (isl errors become exceptions).
  IslContext();
  // Frees the context; every isl object of it must be gone by then.
  ~IslContext();
  IslContext(const IslContext&) = delete;
  IslContext& operator=(const IslContext&) = delete;

  // The non-owning isl/cpp.h view of the context.
  isl::ctx ctx() const;

 private:
  isl_ctx* raw_;
};

// Shared ownership of an IslContext. Moving a handle copies it, so that an object that
// was moved from still keeps its context alive until its own isl members are released.
class IslContextHandle {
 public:
  // An empty handle (no context).
  IslContextHandle() = default;
  // Shares `context`.
  explicit IslContextHandle(std::shared_ptr<IslContext> context) : owner_(std::move(context)) {}
  // Copies share the context; no move operations are declared, so moves copy too.
  IslContextHandle(const IslContextHandle&) = default;
  // Shares other's context (and releases this one's reference).
  IslContextHandle& operator=(const IslContextHandle&) = default;

  // True when the handle holds a context.
  bool valid() const { return owner_ != nullptr; }
  // The context (the handle must be valid).
  isl::ctx ctx() const;
  // The shared owner, for code that must keep the context alive itself.
  const std::shared_ptr<IslContext>& shared() const { return owner_; }

 private:
  std::shared_ptr<IslContext> owner_;
};

// A fresh context, shared through a handle.
IslContextHandle make_isl_context();

}  // namespace polyfuse
