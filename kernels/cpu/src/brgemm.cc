// The BRGEMM kernel object: validation, the choice of microkernel family and of the
// direct or packed (Goto) driver, and the two drivers.
//
// Both drivers first normalise C to column-major: a row-major C is C^T = B^T A^T with
// C^T column-major, so the operands swap (A' = B^T, B' = A^T) and M and N swap.
// After that A' must have its m index at unit stride to be streamed directly; otherwise
// (or for f16/bf16, or when the operands outgrow the caches) the packed driver copies
// mc x kc blocks of A' and kc x nc blocks of B' into microkernel panels first.
#include "polyfuse/cpu/brgemm.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "blocking.h"
#include "microkernel.h"
#include "pack.h"
#include "polyfuse/cpu/isa.h"
#include "vector_math.h"

namespace polyfuse::cpu {
namespace detail {

struct BrgemmPlan {
  BrgemmConfig config;
  Isa isa = Isa::generic;
  const KernelFamily* family = nullptr;
  bool swap = false;    // C row-major: compute C^T = B^T A^T
  bool pack = false;
  int64_t m = 0, n = 0; // after normalisation
  int64_t mr = 0, nr = 0;
  Blocking blocking;
  // The epilogue after normalisation: a bias along the tile's rows (lanes) or its columns,
  // relu in registers, and an activation on each stored tile (identity: none).
  bool bias_rows = false, bias_columns = false;
  bool addend = false;
  bool relu = false;
  UnaryOp tile_post = UnaryOp::identity;
  // The vector path of tile_post: the machine's (best_isa() when the kernel is made), whatever
  // `isa` the microkernels take, so an epilogue has the bits of a Unary pass made beside it.
  Isa post_isa = Isa::generic;
};

namespace {

const KernelFamily& f32_family(Isa isa) {
  switch (isa) {
    case Isa::avx512: return avx512_f32_family();
    case Isa::avx2: return avx2_f32_family();
    case Isa::neon: return neon_f32_family();
    default: return generic_f32_family();
  }
}

void check_positive(int64_t value, const char* field) {
  if (value <= 0)
    throw ConfigError(std::string("BrgemmConfig.") + field + ": must be > 0 (got " +
                      std::to_string(value) + ")");
}

// Run-time operands after normalisation.
struct Operands {
  View a;  // m x k
  View b;  // k x n
  float* c;
  int64_t ldc;
  int64_t stride_a, stride_b;
  const void* shared_b = nullptr;  // the original B packed by Brgemm::pack_b, or none
  const float* bias = nullptr;     // the epilogue's
  const float* addend = nullptr;
  int64_t ld_addend = 0;
  float* d;                        // where results go: C, or the epilogue's D
  int64_t ldd;
};

int64_t panel_bytes_of(const BrgemmPlan& plan) { return plan.family->k_pack == 2 ? 2 : 4; }

// The shared packed B (Brgemm::pack_b): the original B after normalisation (A' when
// swapped, else B') packed whole along its free dimension, one region per (batch, kc
// block of the reduction), regions in that order. Its free extent, in whole panels:
int64_t shared_extent(const BrgemmPlan& plan) {
  const int64_t width = plan.swap ? plan.mr : plan.nr;
  const int64_t extent = plan.swap ? plan.m : plan.n;
  return (extent + width - 1) / width * width;
}

// Byte offset of the region of (batch, k0); (config.batch, 0) gives the whole size.
int64_t shared_offset(const BrgemmPlan& plan, int64_t batch, int64_t k0) {
  const int64_t kp = plan.family->k_pack;
  const int64_t k_padded = (plan.config.k + kp - 1) / kp * kp;
  return (batch * k_padded + k0) * shared_extent(plan) * panel_bytes_of(plan);
}

// A(m, k) or B(k, n) of the original problem as a strided view.
View matrix_view(const void* base, DType dtype, Layout layout, int64_t ld) {
  return layout == Layout::col_major ? View{base, dtype, 1, ld} : View{base, dtype, ld, 1};
}

View transposed(const View& v) { return View{v.base, v.dtype, v.cs, v.rs}; }

// The epilogue's operands for the tile at (i, j) of the normalised C, on the call that
// finishes it (`last`); none otherwise.
void set_epilogue(const BrgemmPlan& plan, const Operands& op, bool last, int64_t i, int64_t j, MicroArgs& args) {
  args.bias_m = last && plan.bias_rows ? op.bias + i : nullptr;
  args.bias_n = last && plan.bias_columns ? op.bias + j : nullptr;
  args.addend = last && plan.addend ? op.addend + i + j * op.ld_addend : nullptr;
  args.ld_addend = op.ld_addend;
  args.relu = last && plan.relu;
}

// One register tile; on the call that finishes it (`last`), the activation the registers do
// not apply, on each column of the tile just stored (in L1).
void run_tile(const BrgemmPlan& plan, MicroArgs& args, int64_t rows, int64_t cols, bool last) {
  const KernelFamily& family = *plan.family;
  const int64_t lanes = family.lanes;
  const int64_t vectors = (rows + lanes - 1) / lanes;
  const int64_t tail = rows - (vectors - 1) * lanes;
  args.m_tail = static_cast<int>(tail);
  family.fn[tail != lanes][vectors - 1][cols - 1](args);
  if (last && plan.tile_post != UnaryOp::identity)
    unary_in_place(plan.post_isa, plan.tile_post, args.d, rows, cols, args.ldd);
}

// Direct driver: A' streamed in place (unit m stride), B' broadcast in place.
void run_direct(const BrgemmPlan& plan, const Operands& op) {
  const int64_t es = 1;  // f32 only: element offsets
  MicroArgs args{};
  args.a_k = op.a.cs * es;
  args.b_k = op.b.rs;
  args.b_n = op.b.cs;
  args.ldc = op.ldc;
  args.ldd = op.ldd;
  args.k = plan.config.k;
  args.batch = plan.config.batch;
  args.a_batch = op.stride_a;
  args.b_batch = op.stride_b;
  args.outer = plan.config.outer_batch;  // normalised: a swapped plan's A' is B
  args.a_outer = plan.swap ? plan.config.outer_stride_b : plan.config.outer_stride_a;
  args.b_outer = plan.swap ? plan.config.outer_stride_a : plan.config.outer_stride_b;
  args.load_c = plan.config.accumulate;
  const float* a = static_cast<const float*>(op.a.base);
  const float* b = static_cast<const float*>(op.b.base);
  // Balanced column tiles: N = 32 with a 6-wide block runs 6,6,5,5,5,5 rather than
  // 6,6,6,6,6,2 (a 2-column tile keeps too few accumulators to hide FMA latency).
  const int64_t tiles = (plan.n + plan.nr - 1) / plan.nr;
  const int64_t base = plan.n / tiles, wider = plan.n % tiles;
  for (int64_t t = 0, j = 0; t < tiles; ++t) {
    const int64_t cols = base + (t < wider ? 1 : 0);
    for (int64_t i = 0; i < plan.m; i += plan.mr) {
      const int64_t rows = std::min(plan.mr, plan.m - i);
      args.a = a + i;
      args.b = b + j * op.b.cs;
      args.c = op.c + i + j * op.ldc;
      args.d = op.d + i + j * op.ldd;
      set_epilogue(plan, op, true, i, j, args);
      run_tile(plan, args, rows, cols, true);
    }
    j += cols;
  }
}

View offset(const View& v, int64_t elements) {
  View out = v;
  out.base = static_cast<const char*>(v.base) + elements * dtype_size(v.dtype);
  return out;
}

// Packed driver (Goto): for each nc block of N, for each (batch, kc) block of the
// reduction, pack B'; for each mc block of M, pack A'; sweep the register tiles. With a
// shared packed B (op.shared_b), the original B's panels are read from there instead. With a
// separate D, the first pass reads C (when accumulating) and every pass stores D.
void run_packed(const BrgemmPlan& plan, const Operands& op) {
  const KernelFamily& family = *plan.family;
  const int64_t kp = family.k_pack;
  const int64_t panel_bytes = kp == 2 ? 2 : 4;
  const Blocking& blk = plan.blocking;
  const int64_t K = plan.config.k;
  const int64_t kc_max = std::min(blk.kc, (K + kp - 1) / kp * kp);
  const int64_t nc_max = std::min(blk.nc, (plan.n + plan.nr - 1) / plan.nr * plan.nr);
  const int64_t mc_max = std::min(blk.mc, (plan.m + plan.mr - 1) / plan.mr * plan.mr);
  thread_local PackBuffer a_scratch, b_scratch;
  // The original B, packed by Brgemm::pack_b (shared), is A' when swapped, else B'.
  const char* shared = static_cast<const char*>(op.shared_b);
  // B' in place (broadcast from the source, as the direct driver does) when A' is the shared
  // panels (f32, no pairs to form): packing B' per call would be a pass over the rows' operand
  // for every nc block, as costly as the products when A' has few panels (a 1x1 convolution
  // with 64 output channels: 6272 pixels x 256 channels packed for 2 A' panels: 0.60x -> 0.94x
  // oneDNN), and measured no faster at 1024 x 1024 (rows 4 KiB apart).
  const bool b_in_place = shared && plan.swap && kp == 1 && plan.config.dtype == DType::f32;
  void* a_pack = shared && plan.swap ? nullptr : a_scratch.get(mc_max * kc_max * panel_bytes);
  void* b_pack = (shared && !plan.swap) || b_in_place ? nullptr : b_scratch.get(nc_max * kc_max * panel_bytes);

  MicroArgs args{};
  args.a_k = plan.mr * kp;
  args.ldd = op.ldd;
  args.batch = 1;
  for (int64_t j0 = 0; j0 < plan.n; j0 += blk.nc) {
    const int64_t nc = std::min(blk.nc, plan.n - j0);
    bool first = true;
    for (int64_t batch = 0; batch < plan.config.batch; ++batch) {
      for (int64_t k0 = 0; k0 < K; k0 += blk.kc) {
        const int64_t kc = std::min(blk.kc, K - k0);
        const int64_t kc_padded = (kc + kp - 1) / kp * kp;
        const char* region = shared ? shared + shared_offset(plan, batch, k0) : nullptr;
        if (b_pack)
          pack_b(offset(op.b, batch * op.stride_b + k0 * op.b.rs + j0 * op.b.cs), kc, nc,
                 plan.nr, kp, b_pack);
        const char* b_panels =
            b_pack ? static_cast<const char*>(b_pack) : region + j0 * kc_padded * panel_bytes;
        const float* b_source = b_in_place ? static_cast<const float*>(op.b.base) + batch * op.stride_b +
                                                 k0 * op.b.rs + j0 * op.b.cs
                                           : nullptr;
        args.b_k = b_in_place ? op.b.rs : plan.nr * kp;
        args.b_n = b_in_place ? op.b.cs : kp;
        args.k = kc_padded / kp;
        args.load_c = plan.config.accumulate || !first;
        // Where this pass reads the running sum: C first, then D (the same unless separate).
        const float* sum = first ? op.c : op.d;
        const int64_t ld_sum = first ? op.ldc : op.ldd;
        args.ldc = ld_sum;
        first = false;
        const bool last = batch + 1 == plan.config.batch && k0 + kc >= K;
        for (int64_t i0 = 0; i0 < plan.m; i0 += blk.mc) {
          const int64_t mc = std::min(blk.mc, plan.m - i0);
          if (a_pack)
            pack_a(offset(op.a, batch * op.stride_a + i0 * op.a.rs + k0 * op.a.cs), mc, kc,
                   plan.mr, kp, a_pack);
          const char* a_panels =
              a_pack ? static_cast<const char*>(a_pack) : region + i0 * kc_padded * panel_bytes;
          for (int64_t j = 0; j < nc; j += plan.nr) {
            const int64_t cols = std::min(plan.nr, nc - j);
            args.b = b_in_place ? static_cast<const void*>(b_source + j * op.b.cs)
                                : b_panels + (j / plan.nr) * plan.nr * kc_padded * panel_bytes;
            for (int64_t i = 0; i < mc; i += plan.mr) {
              const int64_t rows = std::min(plan.mr, mc - i);
              args.a = a_panels + (i / plan.mr) * plan.mr * kc_padded * panel_bytes;
              args.c = const_cast<float*>(sum) + (i0 + i) + (j0 + j) * ld_sum;
              args.d = op.d + (i0 + i) + (j0 + j) * op.ldd;
              set_epilogue(plan, op, last, i0 + i, j0 + j, args);
              run_tile(plan, args, rows, cols, last);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace detail

Brgemm::Brgemm(const BrgemmConfig& config) : plan_(nullptr) {
  detail::check_positive(config.m, "m");
  detail::check_positive(config.n, "n");
  detail::check_positive(config.k, "k");
  detail::check_positive(config.batch, "batch");
  detail::check_positive(config.outer_batch, "outer_batch");
  auto plan = std::make_unique<detail::BrgemmPlan>();
  plan->config = config;
  plan->isa = resolve_isa(config.isa, "BrgemmConfig.isa");
  plan->post_isa = best_isa();
  plan->swap = config.c_layout == Layout::row_major;
  plan->m = plan->swap ? config.n : config.m;
  plan->n = plan->swap ? config.m : config.n;
  // A' is the original A unless swapped, in which case it is B^T: unit m stride iff
  // A is column-major (unswapped) or B is row-major (swapped).
  const bool a_unit_m = plan->swap ? config.b_layout == Layout::row_major
                                   : config.a_layout == Layout::col_major;
  const bool native_bf16 = config.dtype == DType::bf16 && plan->isa == Isa::avx512 &&
                           cpu_has_avx512_bf16() && detail::avx512_bf16_family().lanes != 0;
  plan->family = native_bf16 ? &detail::avx512_bf16_family() : &detail::f32_family(plan->isa);
  plan->mr = plan->family->lanes * plan->family->vectors;
  plan->nr = plan->family->columns;
  const detail::CacheSizes& caches = detail::cache_sizes();
  plan->blocking = detail::blocking_for(caches, plan->mr, plan->nr, plan->family->k_pack,
                                        native_bf16 ? 2 : 4);
  const int64_t reduction = config.k * config.batch * config.outer_batch;
  const bool a_outgrows_l2 = plan->m * reduction * 4 > caches.l2 / 2 && plan->n > plan->nr;
  const bool b_outgrows_l1 = reduction * plan->nr * 4 > caches.l1d / 2 && plan->m > plan->mr;
  const bool must_pack = !a_unit_m || config.dtype != DType::f32;
  switch (config.packing) {
    case Packing::always: plan->pack = true; break;
    case Packing::never:
      if (must_pack)
        throw ConfigError(std::string("BrgemmConfig.packing: never is impossible for ") +
                          (config.dtype != DType::f32 ? "a non-f32 dtype"
                                                      : "this layout (A' would need transposing)"));
      plan->pack = false;
      break;
    case Packing::automatic:  // an outer batch is read in place when it can be
      plan->pack = must_pack || (config.outer_batch == 1 && (a_outgrows_l2 || b_outgrows_l1));
      break;
  }
  if (config.outer_batch > 1 && plan->pack)
    throw ConfigError("BrgemmConfig.outer_batch: more than 1 only for a kernel that reads A and B in place "
                      "(f32, packing = never)");
  const BrgemmEpilogue& epilogue = config.epilogue;
  if (epilogue.post == UnaryOp::zero)
    throw ConfigError("BrgemmConfig.epilogue.post: zero is not an operation on a result");
  // After normalisation a bias along the original m runs along the tile's columns when swapped.
  const bool bias_along_m = epilogue.bias == BiasAlong::m;
  plan->bias_rows = epilogue.bias != BiasAlong::none && bias_along_m != plan->swap;
  plan->bias_columns = epilogue.bias != BiasAlong::none && bias_along_m == plan->swap;
  plan->addend = epilogue.addend;
  plan->relu = epilogue.post == UnaryOp::relu;
  plan->tile_post = plan->relu ? UnaryOp::identity : epilogue.post;
  plan_ = plan.release();
}

Brgemm::~Brgemm() { delete plan_; }
Brgemm::Brgemm(Brgemm&& other) noexcept : plan_(other.plan_) { other.plan_ = nullptr; }
Brgemm& Brgemm::operator=(Brgemm&& other) noexcept {
  std::swap(plan_, other.plan_);
  return *this;
}

const BrgemmConfig& Brgemm::config() const { return plan_->config; }
Isa Brgemm::isa() const { return plan_->isa; }
bool Brgemm::packs() const { return plan_->pack; }
int64_t Brgemm::block_m() const { return plan_->mr; }
int64_t Brgemm::block_n() const { return plan_->nr; }

namespace detail {
namespace {

// The operands of a call after normalisation (a swapped plan computes C^T = B^T A^T).
Operands operands(const BrgemmPlan& plan, const void* a, const void* b, float* c, int64_t ld_a,
                  int64_t ld_b, int64_t ld_c, int64_t stride_a, int64_t stride_b) {
  const BrgemmConfig& cfg = plan.config;
  const View va = matrix_view(a, cfg.dtype, cfg.a_layout, ld_a);
  const View vb = matrix_view(b, cfg.dtype, cfg.b_layout, ld_b);
  Operands op;
  if (plan.swap) {  // A' = B^T (n x k), B' = A^T (k x m)
    op.a = transposed(vb);
    op.b = transposed(va);
    op.stride_a = stride_b;
    op.stride_b = stride_a;
  } else {
    op.a = va;
    op.b = vb;
    op.stride_a = stride_a;
    op.stride_b = stride_b;
  }
  op.c = c;
  op.ldc = ld_c;
  op.d = c;
  op.ldd = ld_c;
  return op;
}

// The epilogue's operands into `op` (checked against the kernel's epilogue).
void add_epilogue(const BrgemmPlan& plan, const EpilogueArgs& epilogue, Operands& op) {
  if (plan.config.epilogue.bias != BiasAlong::none && !epilogue.bias)
    throw ConfigError("Brgemm::operator(): the kernel's epilogue adds a bias (BrgemmConfig.epilogue.bias) and "
                      "EpilogueArgs.bias is null");
  if (plan.config.epilogue.addend && !epilogue.addend)
    throw ConfigError("Brgemm::operator(): the kernel's epilogue adds a matrix (BrgemmConfig.epilogue.addend) and "
                      "EpilogueArgs.addend is null");
  op.bias = epilogue.bias;
  op.addend = epilogue.addend;
  op.ld_addend = epilogue.ld_addend;
  if (epilogue.d) {
    op.d = epilogue.d;
    op.ldd = epilogue.ld_d;
  }
}

void run(const BrgemmPlan& plan, const Operands& op) {
  if (plan.pack)
    run_packed(plan, op);
  else
    run_direct(plan, op);
}

void require_packing(const BrgemmPlan& plan, const char* what) {
  if (!plan.pack)
    throw ConfigError(std::string("Brgemm::") + what +
                      ": a packed B needs a kernel that packs (BrgemmConfig.packing = always)");
}

}  // namespace
}  // namespace detail

void Brgemm::operator()(const void* a, const void* b, float* c, int64_t ld_a, int64_t ld_b,
                        int64_t ld_c, int64_t stride_a, int64_t stride_b) const {
  (*this)(a, b, c, ld_a, ld_b, ld_c, stride_a, stride_b, EpilogueArgs{});
}

void Brgemm::operator()(const void* a, const void* b, float* c, int64_t ld_a, int64_t ld_b, int64_t ld_c,
                        int64_t stride_a, int64_t stride_b, const EpilogueArgs& epilogue) const {
  detail::Operands op = detail::operands(*plan_, a, b, c, ld_a, ld_b, ld_c, stride_a, stride_b);
  detail::add_epilogue(*plan_, epilogue, op);
  detail::run(*plan_, op);
}

int64_t Brgemm::packed_b_bytes() const {
  detail::require_packing(*plan_, "packed_b_bytes");
  return detail::shared_offset(*plan_, plan_->config.batch, 0);
}

void Brgemm::pack_b(const void* b, int64_t ld_b, int64_t stride_b, void* packed) const {
  pack_b(b, ld_b, stride_b, packed, 0, 1);
}

void Brgemm::pack_b(const void* b, int64_t ld_b, int64_t stride_b, void* packed, int64_t part, int64_t parts) const {
  const detail::BrgemmPlan& plan = *plan_;
  detail::require_packing(plan, "pack_b");
  if (parts < 1 || part < 0 || part >= parts)
    throw ConfigError("Brgemm::pack_b: part " + std::to_string(part) + " of " + std::to_string(parts) +
                      " (must be 0 <= part < parts)");
  const int64_t kp = plan.family->k_pack;
  const int64_t K = plan.config.k;
  const detail::View vb = detail::matrix_view(b, plan.config.dtype, plan.config.b_layout, ld_b);
  // Panels of B' (A' = B^T when swapped): `width` columns of B each, a region's panels in order.
  const int64_t width = plan.swap ? plan.mr : plan.nr, extent = plan.swap ? plan.m : plan.n;
  const int64_t panels = (extent + width - 1) / width;
  const int64_t first = panels * part / parts, last = panels * (part + 1) / parts;
  if (first == last) return;
  const int64_t from = first * width, count = std::min(extent, last * width) - from;
  char* out = static_cast<char*>(packed);
  for (int64_t batch = 0; batch < plan.config.batch; ++batch)
    for (int64_t k0 = 0; k0 < K; k0 += plan.blocking.kc) {
      const int64_t kc = std::min(plan.blocking.kc, K - k0);
      const int64_t kc_padded = (kc + kp - 1) / kp * kp;
      const int64_t at = batch * stride_b + k0 * vb.rs + from * vb.cs;  // B's column `from`
      char* region = out + detail::shared_offset(plan, batch, k0) + from * kc_padded * detail::panel_bytes_of(plan);
      if (plan.swap)  // A' = B^T: panels of mr columns of B
        detail::pack_a(detail::offset(detail::transposed(vb), at), count, kc, plan.mr, kp, region);
      else
        detail::pack_b(detail::offset(vb, at), kc, count, plan.nr, kp, region);
    }
}

void Brgemm::operator()(const void* a, PackedB b, float* c, int64_t ld_a, int64_t ld_c,
                        int64_t stride_a) const {
  (*this)(a, b, c, ld_a, ld_c, stride_a, EpilogueArgs{});
}

void Brgemm::operator()(const void* a, PackedB b, float* c, int64_t ld_a, int64_t ld_c, int64_t stride_a,
                        const EpilogueArgs& epilogue) const {
  detail::require_packing(*plan_, "operator()");
  detail::Operands op = detail::operands(*plan_, a, a, c, ld_a, ld_a, ld_c, stride_a, stride_a);
  op.shared_b = b.data;
  detail::add_epilogue(*plan_, epilogue, op);
  detail::run_packed(*plan_, op);
}

PackBuffer::~PackBuffer() { ::operator delete(data_, std::align_val_t{64}); }

void* PackBuffer::get(int64_t bytes) {
  if (bytes > bytes_) {
    ::operator delete(data_, std::align_val_t{64});
    data_ = nullptr;
    data_ = ::operator new(static_cast<size_t>(bytes), std::align_val_t{64});
    bytes_ = bytes;
  }
  return data_;
}

}  // namespace polyfuse::cpu
