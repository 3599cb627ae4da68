// polyfuse._polyfuse: the public C++ API (<polyfuse/polyfuse.h>) bound for the Python package
// (python/polyfuse), and nothing more: compiling a def, the compiled kernel's facts, a launch
// on raw pointers, and what an array (NumPy or any DLPack producer) looks like. The package's
// Python code does the argument checks and allocations. The GIL is released while compiling
// and launching; C++ exceptions become the classes of polyfuse/_errors.py.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "polyfuse/polyfuse.h"

namespace nb = nanobind;

namespace {

polyfuse::Backend backend_from_string(const std::string& text) {
  if (text == "cuda") return polyfuse::Backend::cuda;
  if (text == "emu") return polyfuse::Backend::emu;
  if (text == "cpu") return polyfuse::Backend::cpu;
  throw polyfuse::SourceError("polyfuse: error: backend must be \"cuda\", \"emu\" or \"cpu\", got \"" + text + "\"");
}

// The options of polyfuse.compile, as text where the C++ API has a parser.
struct Options {
  std::string backend;
  std::optional<std::string> arch, block, warp, mma, consumer_schedule, f32_matmul, cluster;
  int split_k = 0;
  int stages = 0;
  std::optional<int> group;
  bool fast_math = false;
  bool line_info = false;
  bool use_cache = true;
  bool autotune = false;
  std::optional<int> threads;
  std::vector<std::string> constant_inputs;
  std::optional<std::string> cpu_block;
  std::optional<std::int64_t> min_parallel_flops;
};

polyfuse::CompileOptions compile_options(const Options& o) {
  polyfuse::CompileOptions options;
  options.backend = backend_from_string(o.backend);
  if (o.arch) options.arch = polyfuse::arch_from_string(*o.arch);
  if (o.block) options.block = polyfuse::tile_shape_from_string(*o.block);
  if (o.warp) options.warp = polyfuse::tile_shape_from_string(*o.warp);
  if (o.mma) options.mma = polyfuse::mma_shape_from_string(*o.mma);
  if (o.consumer_schedule) options.consumer_schedule = polyfuse::consumer_schedule_from_string(*o.consumer_schedule);
  if (o.f32_matmul) options.f32_matmul = polyfuse::f32_matmul_from_string(*o.f32_matmul);
  if (o.cluster) options.cluster = polyfuse::cluster_shape_from_string(*o.cluster);
  options.split_k = o.split_k;
  options.stages = o.stages;
  options.group = o.group;
  options.fast_math = o.fast_math;
  options.line_info = o.line_info;
  options.use_cache = o.use_cache;
  options.autotune = o.autotune;
  options.threads = o.threads;
  options.constant_inputs = o.constant_inputs;
  if (o.cpu_block) options.cpu_block = polyfuse::tile_shape_from_string(*o.cpu_block);
  options.min_parallel_flops = o.min_parallel_flops;
  return options;
}

polyfuse::TensorProgram program_of(const std::string& text, const std::string& name,
                                   const std::map<std::string, std::int64_t>& sizes) {
  polyfuse::TensorProgram program = polyfuse::TensorProgram::parse(text, name);
  program.bind(sizes);
  return program;
}

const char* kind_name(polyfuse::ParameterInfo::Kind kind) {
  switch (kind) {
    case polyfuse::ParameterInfo::Kind::input: return "input";
    case polyfuse::ParameterInfo::Kind::output: return "output";
    case polyfuse::ParameterInfo::Kind::size: return "size";
  }
  return "size";
}

// Each parameter as (name, kind, element, shape).
using Parameter = std::tuple<std::string, std::string, std::string, std::vector<std::string>>;
std::vector<Parameter> parameters_of(const std::vector<polyfuse::ParameterInfo>& infos) {
  std::vector<Parameter> parameters;
  for (const polyfuse::ParameterInfo& p : infos) parameters.emplace_back(p.name, kind_name(p.kind), p.element, p.shape);
  return parameters;
}

// Raises the polyfuse/_errors.py class `name` with `message`.
void raise(const char* name, const char* message) {
  nb::object type = nb::module_::import_("polyfuse._errors").attr(name);
  PyErr_SetObject(type.ptr(), nb::str(message).ptr());
}

}  // namespace

NB_MODULE(_polyfuse, m) {
  m.doc() = "polyfuse's C++ runtime API (the package polyfuse is its Python interface)";

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const polyfuse::SourceError& e) {
      raise("SourceError", e.what());
    } catch (const polyfuse::CompileError& e) {
      raise("CompileError", e.what());
    } catch (const polyfuse::ArgumentError& e) {
      raise("ArgumentError", e.what());
    } catch (const polyfuse::NoDeviceError& e) {
      raise("NoDeviceError", e.what());
    } catch (const polyfuse::CudaError& e) {
      raise("CudaError", e.what());
    } catch (const polyfuse::EmulatorError& e) {
      raise("EmulatorError", e.what());
    } catch (const polyfuse::Error& e) {
      raise("Error", e.what());
    }
  });

  nb::class_<Options>(m, "Options")
      .def(nb::init<>())
      .def_rw("backend", &Options::backend)
      .def_rw("arch", &Options::arch)
      .def_rw("block", &Options::block)
      .def_rw("warp", &Options::warp)
      .def_rw("mma", &Options::mma)
      .def_rw("consumer_schedule", &Options::consumer_schedule)
      .def_rw("f32_matmul", &Options::f32_matmul)
      .def_rw("cluster", &Options::cluster)
      .def_rw("split_k", &Options::split_k)
      .def_rw("stages", &Options::stages)
      .def_rw("group", &Options::group)
      .def_rw("fast_math", &Options::fast_math)
      .def_rw("line_info", &Options::line_info)
      .def_rw("use_cache", &Options::use_cache)
      .def_rw("autotune", &Options::autotune)
      .def_rw("threads", &Options::threads)
      .def_rw("constant_inputs", &Options::constant_inputs)
      .def_rw("cpu_block", &Options::cpu_block)
      .def_rw("min_parallel_flops", &Options::min_parallel_flops);

  nb::class_<polyfuse::CompiledKernel>(m, "CompiledKernel")
      .def_prop_ro("backend", [](const polyfuse::CompiledKernel& k) { return polyfuse::to_string(k.backend()); })
      .def_prop_ro("source", [](const polyfuse::CompiledKernel& k) { return k.source(); })
      .def_prop_ro("ptx", [](const polyfuse::CompiledKernel& k) { return k.ptx(); })
      .def_prop_ro("cubin", [](const polyfuse::CompiledKernel& k) { return nb::bytes(k.cubin().data(), k.cubin().size()); })
      .def_prop_ro("log", [](const polyfuse::CompiledKernel& k) { return k.log(); })
      .def_prop_ro("metadata_json", &polyfuse::CompiledKernel::metadata_json)
      .def_prop_ro("cache_status", [](const polyfuse::CompiledKernel& k) { return polyfuse::to_string(k.cache_status()); })
      .def_prop_ro("plan", [](const polyfuse::CompiledKernel& k) { return k.plan(); })
      .def_prop_ro("kernel_count", &polyfuse::CompiledKernel::kernel_count)
      .def_prop_ro("workspace_bytes", &polyfuse::CompiledKernel::workspace_bytes)
      .def_prop_ro("name", [](const polyfuse::CompiledKernel& k) { return k.info().name; })
      .def_prop_ro("parameters", [](const polyfuse::CompiledKernel& k) { return parameters_of(k.info().parameters); })
      .def("forget_constants", &polyfuse::CompiledKernel::forget_constants,
           "The constant inputs' values changed behind the same pointers: the next launch packs them again.")
      .def(
          "launch",
          [](const polyfuse::CompiledKernel& k, const std::vector<std::pair<std::uintptr_t, std::size_t>>& buffers,
             std::uintptr_t stream) {
            std::vector<polyfuse::Arg> args;
            for (const auto& [pointer, bytes] : buffers)
              args.push_back(polyfuse::Arg::buffer(reinterpret_cast<const void*>(pointer), bytes));
            const polyfuse::LaunchStats stats = k.launch(args, reinterpret_cast<void*>(stream));
            return std::map<std::string, std::uint64_t>(stats.counters.begin(), stats.counters.end());
          },
          nb::arg("buffers"), nb::arg("stream") = 0, nb::call_guard<nb::gil_scoped_release>(),
          "Launches on (pointer, bytes) per tensor in signature order; returns the emulator's counters.");

  m.def(
      "compile",
      [](const std::string& text, const std::string& name, const std::map<std::string, std::int64_t>& sizes,
         const std::string& def, const Options& options) {
        return program_of(text, name, sizes).compile(compile_options(options), def);
      },
      nb::arg("text"), nb::arg("name"), nb::arg("sizes"), nb::arg("def_"), nb::arg("options"),
      nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "signature",
      [](const std::string& text, const std::string& name, const std::map<std::string, std::int64_t>& sizes,
         const std::string& def) { return parameters_of(program_of(text, name, sizes).signature(def)); },
      nb::arg("text"), nb::arg("name"), nb::arg("sizes"), nb::arg("def_"));
  m.def(
      "defs", [](const std::string& text, const std::string& name) { return program_of(text, name, {}).defs(); },
      nb::arg("text"), nb::arg("name"));
  m.def("cuda_device_available", &polyfuse::cuda_device_available);
  m.def("cuda_device_description", &polyfuse::cuda_device_description);
  m.def("version", [] { return std::string(polyfuse::version()); });

  // (pointer, shape, strides in elements, (DLPack type code, bits), (device type, id))
  // of a NumPy array or any object with __dlpack__; TypeError for anything else.
  m.def("array_info", [](nb::ndarray<nb::ro> a) {
    std::vector<std::int64_t> shape, strides;
    for (std::size_t d = 0; d < a.ndim(); ++d) {
      shape.push_back(static_cast<std::int64_t>(a.shape(d)));
      strides.push_back(static_cast<std::int64_t>(a.stride(d)));
    }
    return nb::make_tuple(reinterpret_cast<std::uintptr_t>(a.data()), shape, strides,
                          nb::make_tuple(a.dtype().code, a.dtype().bits), nb::make_tuple(a.device_type(), a.device_id()));
  });
}
