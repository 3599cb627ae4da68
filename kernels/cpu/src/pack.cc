// Panel packing with dtype conversion. Loop orders keep the source reads contiguous
// where the source has a unit stride; contiguous f16 runs (along the panel or along k) are
// widened in bulk (types.h: F16C where the CPU has it); FP8 is decoded by table (exact); f32
// contiguous along k is transposed through registers (transpose.h).
#include "pack.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "polyfuse/cpu/isa.h"
#include "transpose.h"

namespace polyfuse::cpu::detail {
namespace {

// Element i of a source of dtype D, as f32.
template <DType D>
inline float load_f32(const void* base, int64_t i) {
  if constexpr (D == DType::f32) {
    return static_cast<const float*>(base)[i];
  } else if constexpr (D == DType::f16) {
    return f16_to_f32(static_cast<const uint16_t*>(base)[i]);
  } else if constexpr (D == DType::e4m3) {
    return e4m3_to_f32(static_cast<const uint8_t*>(base)[i]);
  } else if constexpr (D == DType::e5m2) {
    return e5m2_to_f32(static_cast<const uint8_t*>(base)[i]);
  } else {
    return bf16_to_f32(static_cast<const uint16_t*>(base)[i]);
  }
}

// Elements [i, i + n) of a source of dtype D, as f32, into dst.
template <DType D>
inline void widen(const void* base, int64_t i, int64_t n, float* dst) {
  if constexpr (D == DType::f32) {
    std::memcpy(dst, static_cast<const float*>(base) + i, static_cast<size_t>(n) * sizeof(float));
  } else if constexpr (D == DType::f16) {
    f16_to_f32(static_cast<const uint16_t*>(base) + i, n, dst);
  } else if constexpr (D == DType::bf16) {  // the inline shift, which GCC vectorises itself: the AVX2 call measured no faster
    for (int64_t j = 0; j < n; ++j) dst[j] = bf16_to_f32(static_cast<const uint16_t*>(base)[i + j]);
  } else {
    for (int64_t j = 0; j < n; ++j) dst[j] = load_f32<D>(base, i + j);
  }
}

// f32 panels from a source of dtype D.
template <DType D>
void pack_f32(const void* src, int64_t rs, int64_t cs, int64_t rows, int64_t depth,
              int64_t width, float* dst) {
  // rows are the panel's vector direction (m for A, n for B), depth is k.
  for (int64_t p0 = 0; p0 < rows; p0 += width) {
    const int64_t w = std::min(width, rows - p0);
    float* panel = dst + (p0 / width) * width * depth;
    if (rs == 1) {
      for (int64_t k = 0; k < depth; ++k) {
        const int64_t s = p0 + k * cs;
        float* d = panel + k * width;
        widen<D>(src, s, w, d);
        for (int64_t r = w; r < width; ++r) d[r] = 0.f;
      }
    } else if (cs == 1 && D == DType::f16) {
      // Contiguous along k: widen a row in bulk (F16C), then spread it. (bf16's widening is a
      // shift the loop below does inline; a row buffer measured no faster for it.)
      thread_local std::vector<float> row;
      row.resize(static_cast<size_t>(depth));
      for (int64_t r = 0; r < w; ++r) {
        widen<D>(src, (p0 + r) * rs, depth, row.data());
        for (int64_t k = 0; k < depth; ++k) panel[k * width + r] = row[static_cast<size_t>(k)];
      }
      for (int64_t k = 0; k < depth; ++k)
        for (int64_t r = w; r < width; ++r) panel[k * width + r] = 0.f;
    } else if (cs == 1 && D == DType::f32) {
      // Contiguous along k: a transposition of the w x depth block, through registers.
      static const Isa isa = best_isa();  // (any path gives the same copy)
      transpose_f32(isa, static_cast<const float*>(src) + p0 * rs, rs, panel, width, w, depth);
      for (int64_t k = 0; k < depth; ++k)
        for (int64_t r = w; r < width; ++r) panel[k * width + r] = 0.f;
    } else {
      for (int64_t r = 0; r < w; ++r) {
        const int64_t s = (p0 + r) * rs;
        for (int64_t k = 0; k < depth; ++k) panel[k * width + r] = load_f32<D>(src, s + k * cs);
      }
      for (int64_t k = 0; k < depth; ++k)
        for (int64_t r = w; r < width; ++r) panel[k * width + r] = 0.f;
    }
  }
}

// bf16 pair panels: dst[p][k/2][width][2].
void pack_pairs(const uint16_t* src, int64_t rs, int64_t cs, int64_t rows, int64_t depth,
                int64_t width, uint16_t* dst) {
  const int64_t depth2 = (depth + 1) / 2 * 2;
  for (int64_t p0 = 0; p0 < rows; p0 += width) {
    const int64_t w = std::min(width, rows - p0);
    uint16_t* panel = dst + (p0 / width) * width * depth2;
    for (int64_t k = 0; k < depth2; ++k) {
      uint16_t* d = panel + (k / 2) * width * 2 + (k & 1);
      for (int64_t r = 0; r < width; ++r)
        d[r * 2] = (r < w && k < depth) ? src[(p0 + r) * rs + k * cs] : uint16_t{0};
    }
  }
}

void pack_any(const View& v, bool transpose_view, int64_t rows, int64_t depth,
              int64_t width, int64_t k_pack, void* dst) {
  // For A the panel direction is the view's rows; for B it is the view's columns.
  const int64_t rs = transpose_view ? v.cs : v.rs;
  const int64_t cs = transpose_view ? v.rs : v.cs;
  if (k_pack == 2) {
    pack_pairs(static_cast<const uint16_t*>(v.base), rs, cs, rows, depth, width,
               static_cast<uint16_t*>(dst));
    return;
  }
  float* out = static_cast<float*>(dst);
  switch (v.dtype) {
    case DType::f32:
      pack_f32<DType::f32>(v.base, rs, cs, rows, depth, width, out);
      break;
    case DType::f16:
      pack_f32<DType::f16>(v.base, rs, cs, rows, depth, width, out);
      break;
    case DType::bf16:
      pack_f32<DType::bf16>(v.base, rs, cs, rows, depth, width, out);
      break;
    case DType::e4m3:
      pack_f32<DType::e4m3>(v.base, rs, cs, rows, depth, width, out);
      break;
    case DType::e5m2:
      pack_f32<DType::e5m2>(v.base, rs, cs, rows, depth, width, out);
      break;
  }
}

}  // namespace

void pack_a(const View& a, int64_t rows, int64_t depth, int64_t mr, int64_t k_pack,
            void* dst) {
  pack_any(a, false, rows, depth, mr, k_pack, dst);
}

void pack_b(const View& b, int64_t depth, int64_t cols, int64_t nr, int64_t k_pack,
            void* dst) {
  pack_any(b, true, cols, depth, nr, k_pack, dst);
}

}  // namespace polyfuse::cpu::detail
