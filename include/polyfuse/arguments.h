// Launch arguments: one per kernel parameter, in signature order.
//
//   kernel.launch({d_A, d_B, d_C});                    // device (cuda) or host (emu) pointers
//   kernel.launch({A, B, C});                          // std::vectors: sizes are checked
//   kernel.launch({d_A, d_B, d_C, 1024, 1024, 512});   // values of sizes left unbound
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace polyfuse {

// A buffer (pointer with an optional byte size) or a size value.
class Arg {
 public:
  enum class Kind { buffer, value };

  // A pointer to a tensor's first element; its size is not checked.
  Arg(const void* data) : kind_(Kind::buffer), data_(data), read_only_(false) {}  // NOLINT: implicit by design
  Arg(std::nullptr_t) : kind_(Kind::buffer), data_(nullptr), read_only_(false) {}  // NOLINT
  // A size value (for a size parameter left unbound, or to restate a bound one).
  template <std::integral I>
  Arg(I value) : kind_(Kind::value), value_(static_cast<std::int64_t>(value)) {}  // NOLINT
  // A host vector (emulator backend): its data and byte size; written for outputs.
  template <class T, class A>
  Arg(std::vector<T, A>& v) : kind_(Kind::buffer), data_(v.data()), bytes_(v.size() * sizeof(T)), read_only_(false) {}  // NOLINT
  // A const host vector: inputs only (an output is an ArgumentError).
  template <class T, class A>
  Arg(const std::vector<T, A>& v) : kind_(Kind::buffer), data_(v.data()), bytes_(v.size() * sizeof(T)), read_only_(true) {}  // NOLINT

  // A pointer with the byte size of the memory behind it (checked against the tensor).
  static Arg buffer(const void* data, std::size_t bytes) {
    Arg a(data);
    a.bytes_ = bytes;
    return a;
  }

  Kind kind() const { return kind_; }
  const void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }  // 0: unknown
  bool read_only() const { return read_only_; }
  std::int64_t value() const { return value_; }

 private:
  Kind kind_;
  const void* data_ = nullptr;
  std::size_t bytes_ = 0;
  bool read_only_ = false;
  std::int64_t value_ = 0;
};

}  // namespace polyfuse
