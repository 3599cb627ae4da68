#include "runtime/api/launch_arguments.h"

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "polyfuse/errors.h"
#include "runtime/api/size_expression.h"

namespace polyfuse::api {
namespace {

using Kind = KernelParameter::Kind;

std::string describe(const KernelParameter& p) {
  std::string text = p.name;
  if (p.kind == Kind::size) return "size " + text;
  text += " (" + std::string(to_string(p.element)) + "(";
  for (std::size_t i = 0; i < p.shape.size(); ++i) text += (i ? ", " : "") + p.shape[i];
  return text + "), " + (p.kind == Kind::input ? "input" : "output") + ")";
}

}  // namespace

std::string signature_text(const LaunchMetadata& metadata) {
  std::string text = metadata.kernel + "(";
  for (std::size_t i = 0; i < metadata.parameters.size(); ++i)
    text += (i ? ", " : "") + metadata.parameters[i].c_type + " " + metadata.parameters[i].name;
  return text + ")";
}

PreparedLaunch prepare_launch(const LaunchMetadata& metadata, const std::map<std::string, std::int64_t>& bound,
                              const std::vector<Arg>& args) {
  const std::vector<KernelParameter>& params = metadata.parameters;
  std::size_t tensors = 0;
  std::vector<std::string> size_names;
  for (const KernelParameter& p : params) {
    if (p.kind == Kind::size) size_names.push_back(p.name);
    else ++tensors;
  }
  const std::string where = "kernel '" + metadata.kernel + "': ";
  const std::string signature = signature_text(metadata);
  if (args.size() != params.size() && !(args.size() == tensors && size_names.empty())) {
    std::string expected = std::to_string(tensors) + " tensor argument" + (tensors == 1 ? "" : "s");
    if (!size_names.empty()) {
      expected += " and " + std::to_string(size_names.size()) + " size value" + (size_names.size() == 1 ? "" : "s") + " (";
      for (std::size_t i = 0; i < size_names.size(); ++i) expected += (i ? ", " : "") + size_names[i];
      expected += ", unbound at compile time)";
    }
    throw ArgumentError(where + "expected " + expected + " but got " + std::to_string(args.size()) +
                        " argument" + (args.size() == 1 ? "" : "s") + "; signature: " + signature);
  }

  // Size values: the compile-time bindings, then the size parameters given.
  std::map<std::string, std::int64_t> sizes = bound;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind != Kind::size) continue;
    const Arg& a = args[i];
    if (a.kind() != Arg::Kind::value)
      throw ArgumentError(where + "argument " + std::to_string(i + 1) + " is for " + describe(params[i]) +
                          " and must be an integer, not a pointer; signature: " + signature);
    if (a.value() < 1 || a.value() > std::numeric_limits<std::int32_t>::max())
      throw ArgumentError(where + "argument " + std::to_string(i + 1) + ": size " + params[i].name + " = " +
                          std::to_string(a.value()) + " is out of range (1 to 2^31-1)");
    sizes[params[i].name] = a.value();
  }

  PreparedLaunch launch;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const KernelParameter& p = params[i];
    const Arg& a = args[i];
    const std::string arg = "argument " + std::to_string(i + 1) + " (" + describe(p) + ")";
    ParameterValue v;
    if (p.kind == Kind::size) {
      v.is_pointer = false;
      v.value = static_cast<std::int32_t>(a.value());
      launch.values.push_back(v);
      continue;
    }
    if (a.kind() != Arg::Kind::buffer)
      throw ArgumentError(where + arg + " must be a pointer, not the integer " + std::to_string(a.value()) +
                          "; signature: " + signature);
    if (!a.data()) throw ArgumentError(where + arg + " is a null pointer");
    if (reinterpret_cast<std::uintptr_t>(a.data()) % 16 != 0)
      throw ArgumentError(where + arg + " is not 16-byte aligned: generated kernels access tensors with 128-bit loads "
                          "and stores (cudaMalloc returns 256-byte aligned memory; keep offsets into it multiples of 16 bytes)");
    if (p.kind == Kind::output && a.read_only())
      throw ArgumentError(where + arg + " is an output but was given a const buffer");
    std::uint64_t elements = 1;
    for (const std::string& extent : p.shape) {
      try {
        v.extents.push_back(static_cast<std::uint64_t>(evaluate_size_expression(extent, sizes)));
        elements *= v.extents.back();
      } catch (const std::invalid_argument& e) {
        throw ArgumentError(where + arg + ": " + e.what());
      }
    }
    v.pointer = a.data();
    v.required_bytes = elements * static_cast<std::uint64_t>(size_in_bytes(p.element));
    v.given_bytes = a.bytes();
    if (a.bytes() != 0 && a.bytes() < v.required_bytes)
      throw ArgumentError(where + arg + " needs " + std::to_string(v.required_bytes) + " bytes but the buffer has " +
                          std::to_string(a.bytes()));
    launch.values.push_back(v);
  }

  for (int d = 0; d < 3; ++d) {
    std::int64_t value = metadata.grid[d].value;
    if (value == 0) {
      try {
        value = evaluate_size_expression(metadata.grid[d].expression, sizes);
      } catch (const std::invalid_argument& e) {
        throw ArgumentError(where + "grid: " + e.what());
      }
    }
    if (value < 1 || value > max_grid_dimension[d])
      throw ArgumentError(where + "grid dimension " + std::string(1, "xyz"[d]) + " (" + metadata.grid[d].expression +
                          ") is " + std::to_string(value) + " for these sizes; CUDA allows 1 to " +
                          std::to_string(max_grid_dimension[d]));
    launch.grid[d] = static_cast<unsigned>(value);
    launch.block[d] = static_cast<unsigned>(metadata.block[d]);
  }
  launch.dynamic_shared_bytes = metadata.dynamic_shared_bytes;
  return launch;
}

}  // namespace polyfuse::api
