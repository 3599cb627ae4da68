#include "bench/gpu/csv.h"

#include <fmt/format.h>

#include <optional>

namespace polyfuse::bench {
namespace {

std::string number(std::optional<double> value, int digits) {
  return value ? fmt::format("{:.{}g}", *value, digits) : std::string();
}

}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = {
      "gpu", "driver", "cuda_runtime", "cublas", "cudnn", "date", "idiom", "dtype", "M", "N", "K", "batch",
      "l2_flush", "repeats", "cublas_cudnn_ms", "cublaslt_ms", "polyfuse_default_ms", "polyfuse_best_ms",
      "polyfuse_best_config", "speedup_best_vs_cublas_cudnn", "speedup_best_vs_cublaslt",
      "speedup_default_vs_cublas_cudnn", "speedup_default_vs_cublaslt", "cudnn_conv_ms", "cudnn_fused_ms",
      "speedup_best_vs_cudnn_conv", "speedup_best_vs_cudnn_fused", "speedup_default_vs_cudnn_conv",
      "speedup_default_vs_cudnn_fused", "layer", "check", "notes", "polyfuse_autotuned_ms",
      "polyfuse_autotuned_config", "speedup_autotuned_vs_cublas_cudnn", "speedup_autotuned_vs_cublaslt", "arch"};
  return columns;
}

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_header() {
  std::string line;
  for (const std::string& column : csv_columns()) {
    if (!line.empty()) line += ',';
    line += column;
  }
  return line;
}

std::string csv_row(const RunEnvironment& environment, const ResultRow& row) {
  const std::vector<std::string> fields = {
      environment.gpu,
      environment.driver,
      environment.cuda_runtime,
      environment.cublas,
      environment.cudnn,
      environment.date,
      row.idiom,
      to_string(row.dtype),
      std::to_string(row.size.m),
      std::to_string(row.size.n),
      std::to_string(row.size.k),
      std::to_string(row.size.batch),
      environment.l2_flush ? "yes" : "no",
      std::to_string(environment.repeats),
      number(row.cublas_cudnn_ms, 6),
      number(row.cublaslt_ms, 6),
      number(row.polyfuse_default_ms, 6),
      number(row.polyfuse_best_ms, 6),
      row.polyfuse_best_config,
      number(row.speedup(Variant::polyfuse_best, Variant::cublas_cudnn), 4),
      number(row.speedup(Variant::polyfuse_best, Variant::cublaslt), 4),
      number(row.speedup(Variant::polyfuse_default, Variant::cublas_cudnn), 4),
      number(row.speedup(Variant::polyfuse_default, Variant::cublaslt), 4),
      number(row.cudnn_conv_ms, 6),
      number(row.cudnn_fused_ms, 6),
      number(row.speedup(Variant::polyfuse_best, Variant::cudnn_conv), 4),
      number(row.speedup(Variant::polyfuse_best, Variant::cudnn_fused), 4),
      number(row.speedup(Variant::polyfuse_default, Variant::cudnn_conv), 4),
      number(row.speedup(Variant::polyfuse_default, Variant::cudnn_fused), 4),
      row.layer,
      row.check,
      row.notes,
      number(row.polyfuse_autotuned_ms, 6),
      row.polyfuse_autotuned_config,
      number(row.speedup(Variant::polyfuse_autotuned, Variant::cublas_cudnn), 4),
      number(row.speedup(Variant::polyfuse_autotuned, Variant::cublaslt), 4),
      environment.arch,
  };
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ',';
    line += csv_escape(fields[i]);
  }
  return line;
}

}  // namespace polyfuse::bench
