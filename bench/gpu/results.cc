#include "bench/gpu/results.h"

#include "bench/gpu/conv_idioms.h"

namespace polyfuse::bench {

std::string to_string(Variant variant) {
  switch (variant) {
    case Variant::cublas_cudnn: return "cublas_cudnn";
    case Variant::cublaslt: return "cublaslt";
    case Variant::polyfuse_default: return "polyfuse_default";
    case Variant::polyfuse_best: return "polyfuse_best";
    case Variant::polyfuse_autotuned: return "polyfuse_autotuned";
    case Variant::cudnn_conv: return "cudnn_conv";
    case Variant::cudnn_fused: return "cudnn_fused";
  }
  return "?";
}

const std::vector<Variant>& baseline_variants() {
  static const std::vector<Variant> variants = {Variant::cublas_cudnn, Variant::cublaslt};
  return variants;
}

const std::vector<Variant>& conv_baseline_variants() {
  static const std::vector<Variant> variants = {Variant::cudnn_conv, Variant::cudnn_fused};
  return variants;
}

const std::vector<Variant>& baselines_of(const std::string& idiom) {
  return find_conv_idiom(idiom) ? conv_baseline_variants() : baseline_variants();
}

std::optional<double> ResultRow::time_ms(Variant variant) const {
  switch (variant) {
    case Variant::cublas_cudnn: return cublas_cudnn_ms;
    case Variant::cublaslt: return cublaslt_ms;
    case Variant::polyfuse_default: return polyfuse_default_ms;
    case Variant::polyfuse_best: return polyfuse_best_ms;
    case Variant::polyfuse_autotuned: return polyfuse_autotuned_ms;
    case Variant::cudnn_conv: return cudnn_conv_ms;
    case Variant::cudnn_fused: return cudnn_fused_ms;
  }
  return std::nullopt;
}

std::optional<double> ResultRow::speedup(Variant ours, Variant baseline) const {
  const std::optional<double> mine = time_ms(ours);
  const std::optional<double> theirs = time_ms(baseline);
  if (!mine || !theirs || !(*mine > 0) || !(*theirs > 0)) return std::nullopt;
  return *theirs / *mine;
}

}  // namespace polyfuse::bench
