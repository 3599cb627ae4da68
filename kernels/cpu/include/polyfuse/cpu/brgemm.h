// The BRGEMM primitive: C += sum_{i < batch} A_i * B_i   (seed: primitives-brgemm-neon §7.2).
//
// Hard-coded when the kernel object is made (BrgemmConfig): M, N, K, batch count, the
// layouts of A (M x K), B (K x N) and C (M x N), the input dtype, whether C is
// accumulated into or overwritten, and the ISA path. Run time (operator()): the
// pointers, leading dimensions and batch strides (A_i = a + i * stride_a, in elements).
//
// C is always f32. f16/bf16 inputs are widened while packing (f32 FMAs), except on CPUs
// with AVX-512-BF16, where bf16 panels feed vdpbf16ps directly.
//
// A Brgemm is immutable after construction and operator() is safe to call from many
// threads at once (packing buffers are thread-local); it never starts threads itself,
// so generated code calls it inside its own (OpenMP-parallel) loop nest.
#pragma once

#include <cstdint>

#include "polyfuse/cpu/elementwise.h"
#include "polyfuse/cpu/types.h"

namespace polyfuse::cpu {

// Whether a kernel copies A and B into cache-blocked panels first (Goto / LLVM-paper
// mc-kc-nc blocking). `automatic` packs when it pays: a row-major A (after C-layout
// normalisation), a non-f32 dtype, or operands too large for L1/L2 reuse.
enum class Packing { automatic, always, never };

// Which way a bias vector runs: none, one value per row of C (bias[i], i < m) or one per
// column (bias[j], j < n).
enum class BiasAlong { none, m, n };

// What a kernel does to each element of C after its last product, before the store: the
// matmul's epilogue without a pass over C. The call stores D := post((C + bias) + R), where C
// is the accumulated value (as without an epilogue), R a matrix in C's layout (a residual) and
// D is C itself or the separate output of EpilogueArgs::d. The bias (f32, contiguous) and R are
// added in registers and relu applied there; the other activations run on each register tile
// just stored, while it is in L1. Every value is what Binary{add} passes (the last with
// post = post) compute from the stored C, in that order, bit for bit.
struct BrgemmEpilogue {
  BiasAlong bias = BiasAlong::none;
  bool addend = false;               // add the matrix R
  UnaryOp post = UnaryOp::identity;  // zero is refused
};

// The run-time operands of an epilogue: the bias at the block's first row or column (required
// when BrgemmEpilogue::bias is not none), R at the block (required with BrgemmEpilogue::addend;
// it must not overlap C or D: a reduction in several passes stores partial sums before it reads
// R), and an output D in C's layout (d null: C). With D, C is only read (accumulate = true;
// unused when false) and D written, even when the reduction takes several passes.
struct EpilogueArgs {
  const float* bias = nullptr;
  const float* addend = nullptr;
  int64_t ld_addend = 0;
  float* d = nullptr;
  int64_t ld_d = 0;
};

struct BrgemmConfig {
  int64_t m = 0;      // rows of A and C
  int64_t n = 0;      // columns of B and C
  int64_t k = 0;      // columns of A, rows of B
  int64_t batch = 1;  // number of (A_i, B_i) pairs reduced into C
  // An outer batch around it: C += sum_{o < outer_batch} sum_{i < batch} A_{o,i} B_{o,i} with
  // A_{o,i} = a + o * outer_stride_a + i * stride_a (elements; B alike), all in registers, in
  // that order (the same sums as outer_batch calls, bit for bit). A convolution's outer filter
  // taps. Only for a kernel that reads A and B in place (f32, a layout that allows it, packing
  // never or automatic, which then reads in place; else ConfigError).
  int64_t outer_batch = 1;
  int64_t outer_stride_a = 0;
  int64_t outer_stride_b = 0;
  Layout a_layout = Layout::col_major;
  Layout b_layout = Layout::col_major;
  Layout c_layout = Layout::col_major;
  DType dtype = DType::f32;  // of A and B
  bool accumulate = true;    // false: C = sum A_i B_i (fuses a zero first touch)
  Isa isa = Isa::native;
  Packing packing = Packing::automatic;
  BrgemmEpilogue epilogue = {};  // none by default (initialised: designated initialisers may omit it)
};

// B packed once by Brgemm::pack_b, for calls that share it (PackedB{pointer}).
struct PackedB {
  const void* data;
};

// A 64-byte aligned buffer that grows and never shrinks: a thread's home for packed B.
class PackBuffer {
 public:
  PackBuffer() = default;
  ~PackBuffer();
  PackBuffer(const PackBuffer&) = delete;
  PackBuffer& operator=(const PackBuffer&) = delete;
  // At least `bytes` bytes (the contents are not kept across a growth).
  void* get(int64_t bytes);

 private:
  void* data_ = nullptr;
  int64_t bytes_ = 0;
};

namespace detail {
struct BrgemmPlan;  // the kernel's hidden, precomputed execution plan
}

class Brgemm {
 public:
  // Validates `config` (throws ConfigError naming the field) and prepares the kernel.
  explicit Brgemm(const BrgemmConfig& config);
  ~Brgemm();
  Brgemm(Brgemm&&) noexcept;
  Brgemm& operator=(Brgemm&&) noexcept;
  Brgemm(const Brgemm&) = delete;
  Brgemm& operator=(const Brgemm&) = delete;

  // C += sum_i A_i B_i. a, b point to elements of config().dtype; ld_* are the leading
  // dimensions of A, B, C for their layouts; stride_a/stride_b separate A_i from A_{i+1}
  // (ignored when batch == 1). Leading dimensions are not checked at run time; they
  // must be at least the row (col-major) or column (row-major) count.
  void operator()(const void* a, const void* b, float* c, int64_t ld_a, int64_t ld_b,
                  int64_t ld_c, int64_t stride_a = 0, int64_t stride_b = 0) const;
  // The same with the epilogue's operands (BrgemmConfig::epilogue): the bias, and D.
  void operator()(const void* a, const void* b, float* c, int64_t ld_a, int64_t ld_b, int64_t ld_c,
                  int64_t stride_a, int64_t stride_b, const EpilogueArgs& epilogue) const;

  // B packed once, for many calls (the GotoBLAS order: one packed B, many row blocks
  // of A and C). Only for a kernel that packs (packs(); else ConfigError). The packed
  // form depends on every field of the config but m and the epilogue, so kernels that
  // differ only in those (a block and the block at the end of M; a kernel with an epilogue
  // and the one that packed B without it) share it. pack_b writes packed_b_bytes()
  // bytes at `packed` (64-byte aligned); the call then reads B from there instead of
  // packing it: the same panels, so the same results, bit for bit.
  int64_t packed_b_bytes() const;
  void pack_b(const void* b, int64_t ld_b, int64_t stride_b, void* packed) const;
  // Share `part` of `parts` (0 <= part < parts) of the same packing: a contiguous run of each
  // region's panels, so that `parts` threads together write what pack_b writes (each calling
  // with its own part, then a barrier before any call reads the panels). ConfigError for a
  // part outside [0, parts).
  void pack_b(const void* b, int64_t ld_b, int64_t stride_b, void* packed, int64_t part, int64_t parts) const;
  void operator()(const void* a, PackedB b, float* c, int64_t ld_a, int64_t ld_c,
                  int64_t stride_a = 0) const;
  void operator()(const void* a, PackedB b, float* c, int64_t ld_a, int64_t ld_c, int64_t stride_a,
                  const EpilogueArgs& epilogue) const;

  const BrgemmConfig& config() const;
  // The ISA path the kernel runs (never Isa::native).
  Isa isa() const;
  // Whether calls pack A and B (see Packing).
  bool packs() const;
  // Register block of the microkernel (rows x columns of C held in registers).
  int64_t block_m() const;
  int64_t block_n() const;

 private:
  detail::BrgemmPlan* plan_;
};

}  // namespace polyfuse::cpu
