#include "runtime/tma/tensor_map.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

#include "polyfuse_emu/tensor_map.h"

namespace polyfuse::tma {
namespace {

// cuTensorMapEncodeTiled's C signature with plain types (the CUDA enums are ints, CUresult too),
// so that this file builds without the CUDA toolkit.
using EncodeTiled = int (*)(void* map, int type, unsigned rank, void* address, const std::uint64_t* dims,
                            const std::uint64_t* strides, const std::uint32_t* box, const std::uint32_t* element_strides,
                            int interleave, int swizzle, int l2_promotion, int oob_fill);
using Init = int (*)(unsigned flags);

struct Driver {
  EncodeTiled encode = nullptr;
  std::string why;
};

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* error = dlerror();
      r.why = std::string("the CUDA driver could not be loaded (") + (error ? error : "libcuda.so.1") + ")";
      return r;
    }
    auto init = reinterpret_cast<Init>(dlsym(library, "cuInit"));
    auto encode = reinterpret_cast<EncodeTiled>(dlsym(library, "cuTensorMapEncodeTiled"));
    if (!init || !encode) {
      r.why = "libcuda has no cuTensorMapEncodeTiled (a driver for CUDA 12 or newer is needed)";
      return r;
    }
    if (const int rc = init(0); rc != 0) {
      r.why = "cuInit failed (CUresult " + std::to_string(rc) + ")";
      return r;
    }
    r.encode = encode;
    return r;
  }();
  return d;
}

}  // namespace

TensorMapBytes encode_tiled(const TiledMapRequest& request, Target target) {
  if (const auto broken = check_tiled_map(request)) throw TensorMapError("tensor map refused: " + broken->message, broken->rule);
  if (target == Target::emulator) return emu::encode_tensor_map(request);
  const Driver& d = driver();
  if (!d.encode) throw TensorMapError("no GPU tensor-map encoder: " + d.why, std::nullopt);
  TensorMapBytes map;
  const int rc = d.encode(map.bytes, static_cast<int>(request.type), request.rank,
                          reinterpret_cast<void*>(request.global_address), request.global_dim, request.global_strides,
                          request.box_dim, request.element_strides, static_cast<int>(request.interleave),
                          static_cast<int>(request.swizzle), static_cast<int>(request.l2_promotion),
                          static_cast<int>(request.oob_fill));
  if (rc != 0)
    throw TensorMapError("cuTensorMapEncodeTiled refused the request (CUresult " + std::to_string(rc) +
                             ") although it keeps every documented rule",
                         std::nullopt);
  return map;
}

TiledMapRequest tiled_2d(DataType type, const void* base, std::uint64_t inner, std::uint64_t outer,
                         std::uint64_t row_stride_bytes, std::uint32_t box_inner, std::uint32_t box_outer,
                         Swizzle swizzle) {
  TiledMapRequest r;
  r.type = type;
  r.rank = 2;
  r.global_address = reinterpret_cast<std::uintptr_t>(base);
  r.global_dim[0] = inner;
  r.global_dim[1] = outer;
  r.global_strides[0] = row_stride_bytes;
  r.box_dim[0] = box_inner;
  r.box_dim[1] = box_outer;
  r.swizzle = swizzle;
  return r;
}

std::optional<RuleViolation> can_use_tma(DataType type, std::uintptr_t base, std::uint64_t cols, std::uint64_t rows,
                                         std::uint64_t leading_dimension, std::uint32_t box_inner,
                                         std::uint32_t box_outer, Swizzle swizzle) {
  TiledMapRequest r = tiled_2d(type, nullptr, cols, rows, leading_dimension * element_bits(type) / 8, box_inner,
                               box_outer, swizzle);
  r.global_address = base;
  return check_tiled_map(r);
}

bool gpu_encoder_available(std::string* why) {
  const Driver& d = driver();
  if (!d.encode && why) *why = d.why;
  return d.encode != nullptr;
}

}  // namespace polyfuse::tma
