// The polyhedral IR of one `def`: tensors, statements, and the isl context they live in.
//
// A Program is produced by the front end (frontend.h: compile_source). It holds its isl
// context through a handle declared before every isl member, so that it is destroyed
// last; copies and moves keep the context alive (see IslContextHandle). isl values taken
// out of a Program must not outlive every Program/Dependences that shares their context.
#pragma once

#include <isl/cpp.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/isl_context.h"
#include "frontend/statement.h"
#include "frontend/tensor.h"

namespace polyfuse {

// One def in polyhedral form.
class Program {
  IslContextHandle context_;  // owner of every isl object below (first: destroyed last)

 public:
  std::string name;          // the def's name
  std::string file;          // source file name, for messages
  SourceLocation location;   // of the def's name
  std::vector<Tensor> tensors;  // inputs, then outputs (signature order), then temporaries
  std::vector<Statement> statements;  // program order
  std::vector<std::string> parameters;  // unbound sizes = isl parameters, in order of first use
  std::map<std::string, std::int64_t> size_bindings;  // sizes of this def bound with -D

  Program() = default;
  // Copies share the isl context.
  Program(const Program&) = default;
  // Assignment releases the old isl objects before the old context (see keep_alive_).
  Program& operator=(const Program&) = default;

  // The tensor called `name`, or nullptr.
  const Tensor* find_tensor(std::string_view name) const;
  // The statement with id `id` ("S0"), or nullptr.
  const Statement* find_statement(std::string_view id) const;
  // Index of the statement with id `id` in `statements`, or -1.
  int statement_index(std::string_view id) const;
  // The isl context (valid once the polyhedral model was built).
  isl::ctx ctx() const { return context_.ctx(); }
  // The shared owner of the isl context.
  const IslContextHandle& context() const { return context_; }
  // Makes `context` the owner of this program's isl objects (set before creating them).
  void set_context(const IslContextHandle& context) {
    context_ = context;
    keep_alive_ = context;
  }

  // What the sizes are known to satisfy: every parameter is at least 1
  // (`[M, N] -> { : M >= 1 and N >= 1 }`).
  isl::set assumptions() const;
  // Union of all statement domains.
  isl::union_set domains() const;
  // Union of all write relations.
  isl::union_map writes() const;
  // Union of all read relations of the expressions.
  isl::union_map reads() const;
  // The program-order schedule as a map: `Si[idx...] -> [i, idx..., 0...]`, padded with
  // zeros to the deepest statement, so statements run one after the other in order and
  // each one's indices are loops in domain order.
  isl::union_map program_order() const;

 private:
  // A second reference to the context, declared last: member-wise assignment replaces it
  // last, so the old context outlives the old isl members being released.
  IslContextHandle keep_alive_;
};

// Whether `tensor` is written by a conversion (`A(m, h) = f16(...)`): the program says its type,
// and it keeps that type in memory (a 16-bit matmul operand stays one).
bool typed_by_conversion(const Program& program, std::string_view tensor);
// The type of `tensor` where a plan keeps it in memory between kernels: the def's type for its
// inputs and outputs; for its temporaries (the plan's workspace) f32, or the type of the
// conversion that writes them.
ElementType memory_type(const Program& program, std::string_view tensor);

}  // namespace polyfuse
