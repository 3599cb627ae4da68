// The wgmma hooks (host_hooks.h; PTX ISA 9.7.15 "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate"): the warpgroup rendezvous of mma_async, its operands read from shared
// memory through the matrix descriptors (wgmma_operands.h) or from the A registers, the result
// held until wait_group (wgmma_state.h), and the rules of the fence and of the registers in flight.
// FP8 operands (k32, one byte an element) are decoded exactly (polyfuse/cpu/fp8.h); TF32 ones
// (k8, f32 values in shared memory) are truncated to TF32 (the low 13 mantissa bits dropped: the
// tensor cores read 19 bits of each, and truncation errs more than rounding would, so a kernel
// that passes here passes either way); every form multiplies exactly (products of 16-bit, FP8 or
// TF32 values are exact in f32) and adds the products to the accumulator in f32, in k order. (Hardware FP8 accumulation may keep fewer bits than
// f32; the emulator does not model that, the reference's bound must.)
#include <algorithm>
#include <cstring>

#include "agents.h"
#include "hopper.h"
#include "hopper_checks.h"
#include "host_hooks.h"
#include "polyfuse/cpu/fp8.h"
#include "polyfuse_emu/fp16.h"
#include "wgmma_operands.h"

namespace polyfuse::emu {
namespace {

// fp8_a / fp8_b of a WgmmaOp: 0 none, 1 e4m3, 2 e5m2.
const char* fp8_name(unsigned fp8) { return fp8 == 1 ? "e4m3" : "e5m2"; }

// The k extent of one wgmma (16 for 16-bit operands, 32 for FP8, 8 for TF32): 32 bytes of a row.
unsigned k_extent(const pf_host::WgmmaOp& op) { return op.fp8_a ? 32 : op.tf32 ? 8 : 16; }

// The bytes of an operand element of `op` (`fp8`: that operand's FP8 kind, 0 none).
unsigned element_bytes(const pf_host::WgmmaOp& op, unsigned fp8) { return fp8 ? 1 : op.tf32 ? 4 : 2; }

// The value of the element at `p`: `fp8` (0: 16-bit, `bf16` says which), or TF32 (`tf32`).
float element_value(const unsigned char* p, bool bf16, unsigned fp8, bool tf32) {
  if (fp8) return fp8::to_f32(fp8 == 1 ? fp8::Format::e4m3 : fp8::Format::e5m2, p[0]);
  if (tf32) {
    std::uint32_t bits;
    std::memcpy(&bits, p, 4);
    // Inf and NaN keep their class (a NaN whose payload lies in the low bits stays a NaN)
    const bool nan = (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0;
    return fp16::bits_float(nan ? bits | 0x00400000u : bits & ~0x1fffu);
  }
  const unsigned short bits = static_cast<unsigned short>(p[0] | (p[1] << 8));
  return bf16 ? fp16::bits_float(static_cast<unsigned>(bits) << 16) : fp16::half_to_float(bits);
}

std::string shape_text(const pf_host::WgmmaOp& op) {
  if (op.fp8_a)
    return "wgmma.mma_async m64n" + std::to_string(op.n) + "k32." + fp8_name(op.fp8_a) + "." + fp8_name(op.fp8_b);
  if (op.tf32) return "wgmma.mma_async m64n" + std::to_string(op.n) + "k8.tf32";
  return "wgmma.mma_async m64n" + std::to_string(op.n) + "k16." + (op.bf16 ? "bf16" : "f16");
}

// Reads the rows x K operand (A: rows 64, B: rows N; K = k_extent(op)) through descriptor
// `bits` into values[mn * K + k], with every check of an async-proxy read.
void read_operand(Launch& l, unsigned g, const pf_host::WgmmaOp& op, char operand, std::uint64_t bits, bool mn_major,
                  unsigned rows, std::vector<float>& values, std::uint16_t site) {
  const unsigned fp8 = operand == 'A' ? op.fp8_a : op.fp8_b;
  const unsigned extent = k_extent(op), bytes = element_bytes(op, fp8);
  const MatrixDescriptor d = decode_descriptor(bits);
  const ThreadState* t = l.current;
  const std::string name = shape_text(op) + " operand " + operand;
  if (d.base_offset != 0)
    throw EmulationError("polyfuse emu: " + name + " in " + here(l, t, site) + ": matrix base offset " +
                         std::to_string(d.base_offset) + " (" + describe(d) +
                         ") is not modelled by the emulator: place swizzled tiles at multiples of their pattern "
                         "(256/512/1024 bytes) and use base offset 0");
  values.assign(static_cast<std::size_t>(rows) * extent, 0.f);
  for (unsigned mn = 0; mn < rows; ++mn)
    for (unsigned k = 0; k < extent; ++k) {
      const std::uint64_t in_block = operand_element_offset(d, mn_major, mn, k, bytes);
      const std::uint64_t offset = block_base(l, t) + in_block;  // in the cluster's window
      const char* axis = operand == 'A' ? "m" : "n";
      if (in_block + bytes > l.block_shared_bytes)
        throw EmulationError("polyfuse emu: " + name + " element (" + axis + " " + std::to_string(mn) + ", k " +
                             std::to_string(k) + ") at shared offset " + std::to_string(in_block) +
                             " lies outside the block's " + std::to_string(l.block_shared_bytes) +
                             " bytes of dynamic shared memory: descriptor " + describe(d) + (mn_major ? ", M/N-major" : ", K-major") +
                             ", in " + here(l, t, site));
      check_async_read(l, 128 * g, 128, static_cast<std::size_t>(offset), bytes, [&] {
        return name + " element (" + axis + " " + std::to_string(mn) + ", k " + std::to_string(k) + ")";
      }, site, wgmma_agent(g));
      values[mn * extent + k] = element_value(l.shared + offset, op.bf16 != 0, fp8, op.tf32 != 0);
      l.stats.shared_bytes_loaded += bytes;
    }
}

// A from the 128 threads' registers (PTX ISA 9.7.15.5.1.1, matrix A of the register form).
void gather_a(const WarpgroupArrival& a, bool bf16, std::vector<float>& values) {
  values.assign(64 * 16, 0.f);
  for (unsigned thread = 0; thread < 128; ++thread) {
    const unsigned w = thread / 32, lane = thread % 32;
    for (unsigned i = 0; i < 8; ++i) {
      const unsigned row = 16 * w + lane / 4 + 8 * ((i / 2) % 2), k = 2 * (lane % 4) + i % 2 + 8 * (i / 4);
      const unsigned reg = a.threads[thread].a_regs[i / 2];
      const unsigned short bits = static_cast<unsigned short>(i % 2 ? reg >> 16 : reg & 0xffffu);
      values[row * 16 + k] = bf16 ? fp16::bits_float(static_cast<unsigned>(bits) << 16) : fp16::half_to_float(bits);
    }
  }
}

void poison(float* d, unsigned count) {
  for (unsigned i = 0; i < count; ++i) std::memcpy(d + i, &kWgmmaPoison, 4);
}

bool still_poisoned(const float* d, unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    if (std::memcmp(d + i, &kWgmmaPoison, 4) != 0) return false;
  return true;
}

// The last thread of warpgroup g arrived: compute and stage every thread's result.
void execute(Launch& l, unsigned g, WarpgroupArrival& a) {
  const pf_host::WgmmaOp& op = a.op;
  const std::uint16_t site = a.site;
  for (unsigned w = 4 * g; w < 4 * g + 4; ++w) {  // .sync: the lanes of each warp converge
    flush_warp(l, l.warps[w]);
    if (l.race_check) l.shared_races.warp_sync(w);
  }
  const std::uint32_t serial = l.race_check ? l.shared_races.sync_point() : 0;
  std::vector<float> A, B;
  if (op.a_in_registers) gather_a(a, op.bf16 != 0, A);
  else read_operand(l, g, op, 'A', op.desc_a, op.trans_a != 0, 64, A, site);
  read_operand(l, g, op, 'B', op.desc_b, op.trans_b != 0, op.n, B, site);
  const unsigned count = op.n / 2, extent = k_extent(op);
  for (unsigned thread = 0; thread < 128; ++thread) {
    const WarpgroupArrival::Thread& at = a.threads[thread];
    WgmmaThread& wt = l.hopper.wgmma.thread(128 * g + thread);
    WgmmaInFlight* chained = wt.on_accumulators(at.d);
    std::vector<float> result(count);
    const unsigned w = thread / 32, lane = thread % 32;
    for (unsigned i = 0; i < count; ++i) {
      const unsigned row = 16 * w + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
      float sum = op.scale_d ? (chained ? chained->result[i] : at.d[i]) : 0.f;
      for (unsigned k = 0; k < extent; ++k) sum += A[row * extent + k] * B[col * extent + k];
      result[i] = sum;
    }
    if (chained) {
      chained->result = std::move(result);
      chained->group = 0;
      chained->site = site;
    } else {
      WgmmaInFlight f;
      f.d = at.d;
      f.count = count;
      f.result = std::move(result);
      f.site = site;
      f.n = op.n;
      wt.in_flight.push_back(std::move(f));
      poison(at.d, count);
      chained = &wt.in_flight.back();
    }
    chained->a_fragment = op.a_in_registers ? at.a_fragment : nullptr;
    if (op.a_in_registers) std::memcpy(chained->a_values, at.a_regs, sizeof chained->a_values);
    wt.reads.emplace_back(0, serial);
  }
  l.stats.wgmma_instructions += 1;
}

std::string group_text(const WgmmaThread& wt, const WgmmaInFlight& f) {
  return f.group == 0 ? "not committed to a wgmma-group yet"
                      : "in wgmma-group " + std::to_string(f.group) + " of " + std::to_string(wt.committed) + " committed";
}

}  // namespace
}  // namespace polyfuse::emu

// ---- host hooks ----------------------------------------------------------------------------

namespace pf_host {
namespace emu = polyfuse::emu;
using polyfuse::emu::EmulationError;

void wgmma_mma_async(const WgmmaOp& op, float* d, const void* a_fragment) {
  const emu::HookCall call = emu::enter_hook(__builtin_return_address(0));
  emu::Launch& l = call.l;
  emu::ThreadState* t = call.t;
  const std::uint16_t site = call.site;
  const unsigned g = t->warp / 4;
  const unsigned warps = static_cast<unsigned>(l.warps.size());
  if (4 * g + 4 > warps || l.warps[4 * g + 3].size != 32)
    throw EmulationError("polyfuse emu: misaligned warpgroup: " + emu::shape_text(op) + " by warp " + std::to_string(t->warp) +
                         " in " + emu::here(l, t, site) + ": its warpgroup " + std::to_string(g) + " is warps " +
                         std::to_string(4 * g) + ".." + std::to_string(4 * g + 3) +
                         " (a warpgroup is 4 consecutive warps starting at a warp index divisible by 4), but the block "
                         "has " + std::to_string(l.block_threads) + " threads (" + std::to_string(warps / l.cluster_blocks) + " warps)");
  emu::WgmmaThread& wt = l.hopper.wgmma.thread(t->linear);
  if (!wt.fenced || wt.was_touched(d) || (a_fragment && wt.was_touched(a_fragment)))
    throw EmulationError("polyfuse emu: missing wgmma.fence: " + emu::shape_text(op) + " in " + emu::here(l, t, site) +
                         (wt.fenced ? " uses registers that ordinary code accessed since the thread's last wgmma.fence"
                                    : " is the thread's first wgmma without a wgmma.fence before it") +
                         " (PTX ISA 9.7.15.6.1: wgmma.fence.sync.aligned must order register accesses before "
                         "wgmma.mma_async)");
  if (const emu::WgmmaInFlight* f = wt.on_accumulators(d); f && f->n != op.n)
    throw EmulationError("polyfuse emu: " + emu::shape_text(op) + " in " + emu::here(l, t, site) +
                         " accumulates into registers of an m64n" + std::to_string(f->n) + " wgmma still in flight");
  emu::WarpgroupArrival& a = l.hopper.wgmma.arrival(g);
  const unsigned slot = t->linear - 128 * g;
  if (a.arrived == 0) {
    a.op = op;
    a.site = site;
    a.first_thread = t->linear;
  } else {
    const WgmmaOp& o = a.op;
    const bool same = o.n == op.n && o.bf16 == op.bf16 && o.fp8_a == op.fp8_a && o.fp8_b == op.fp8_b && o.tf32 == op.tf32 &&
                      o.a_in_registers == op.a_in_registers &&
                      (op.a_in_registers || (o.desc_a == op.desc_a && o.trans_a == op.trans_a)) &&
                      o.desc_b == op.desc_b && o.trans_b == op.trans_b && o.scale_d == op.scale_d;
    if (!same)
      throw EmulationError("polyfuse emu: warpgroup divergence at wgmma.mma_async in " + emu::here(l, t, site) +
                           ": this thread issues " + emu::shape_text(op) + " with other operands (descriptors, "
                           "layouts or scale-d) than thread " + emu::thread_text(l, a.first_thread) +
                           l.sites.describe(a.site) + " of the same warpgroup " + std::to_string(g) +
                           " (.aligned: all 128 threads issue the same wgmma)");
  }
  a.threads[slot] = emu::WarpgroupArrival::Thread{d, a_fragment, {op.a_regs[0], op.a_regs[1], op.a_regs[2], op.a_regs[3]}, site};
  if (++a.arrived < 128) {
    t->wait = emu::Wait::warpgroup;
    t->fiber.yield();  // the last thread of the warpgroup executes it for all
    return;
  }
  a.arrived = 0;
  emu::execute(l, g, a);
  for (unsigned i = 128 * g; i < 128 * g + 128; ++i)
    if (l.threads[i].wait == emu::Wait::warpgroup) l.threads[i].wait = emu::Wait::none;
}

void wgmma_fence() {
  emu::Launch& l = emu::current_launch();
  emu::WgmmaThread& wt = l.hopper.wgmma.thread(l.current->linear);
  wt.fenced = true;
  wt.touched.clear();
}

void wgmma_commit() {
  emu::Launch& l = emu::current_launch();
  emu::WgmmaThread& wt = l.hopper.wgmma.thread(l.current->linear);
  ++wt.committed;
  for (emu::WgmmaInFlight& f : wt.in_flight)
    if (f.group == 0) f.group = wt.committed;
  for (auto& r : wt.reads)
    if (r.first == 0) r.first = wt.committed;
}

void wgmma_wait(unsigned pending_groups) {
  const void* pc = __builtin_return_address(0);
  emu::Launch& l = emu::current_launch();
  emu::ThreadState* t = l.current;
  emu::hopper_schedule_point(l);
  emu::WgmmaThread& wt = l.hopper.wgmma.thread(t->linear);
  const std::uint64_t last = wt.committed > pending_groups ? wt.committed - pending_groups : 0;
  for (std::size_t i = 0; i < wt.in_flight.size();) {
    emu::WgmmaInFlight& f = wt.in_flight[i];
    if (f.group == 0 || f.group > last) {
      ++i;
      continue;
    }
    if (!emu::still_poisoned(f.d, f.count))
      throw EmulationError("polyfuse emu: wgmma accumulators touched before wgmma.wait_group: in " +
                           emu::here(l, t, l.sites.intern(pc)) + " the wait_group that retires the m64n" +
                           std::to_string(f.n) + "k16 wgmma.mma_async issued" + l.sites.describe(f.site) +
                           " finds its accumulator registers written while it was in flight");
    if (f.a_fragment && std::memcmp(f.a_fragment, f.a_values, sizeof f.a_values) != 0)
      throw EmulationError("polyfuse emu: wgmma A registers modified before wgmma.wait_group: in " +
                           emu::here(l, t, l.sites.intern(pc)) + " the register-form wgmma.mma_async issued" +
                           l.sites.describe(f.site) + " finds its A fragment changed while it was in flight");
    std::memcpy(f.d, f.result.data(), f.count * sizeof(float));
    wt.in_flight.erase(wt.in_flight.begin() + static_cast<std::ptrdiff_t>(i));
  }
  wt.reads.erase(std::remove_if(wt.reads.begin(), wt.reads.end(),
                                [last](const auto& r) { return r.first != 0 && r.first <= last; }),
                 wt.reads.end());
  if (l.race_check) {
    std::uint32_t retired = 0;
    for (const auto& r : wt.reads) retired = retired ? std::min(retired, r.second) : r.second;
    if (!retired) retired = l.shared_races.sync_point();
    l.hopper.clocks.observe(t->linear, emu::wgmma_retirement(t->warp), retired);
  }
}

void wgmma_register_access(const void* registers) {
  const void* pc = __builtin_return_address(0);
  emu::Launch& l = emu::current_launch();
  emu::ThreadState* t = l.current;
  emu::WgmmaThread& wt = l.hopper.wgmma.thread(t->linear);
  if (const emu::WgmmaInFlight* f = wt.on_accumulators(registers))
    throw EmulationError("polyfuse emu: wgmma accumulators touched before wgmma.wait_group: thread " +
                         emu::coord_text(t->coords.thread_idx) + " in " + emu::where(l, nullptr) +
                         l.sites.describe(l.sites.intern(pc)) + " reads or writes the accumulator registers of the m64n" +
                         std::to_string(f->n) + "k16 wgmma.mma_async issued" + l.sites.describe(f->site) +
                         ", still in flight (" + emu::group_text(wt, *f) +
                         "): wgmma.wait_group must retire it before other instructions use them");
  if (!wt.was_touched(registers)) wt.touched.push_back(registers);
}

}  // namespace pf_host
