#include "runtime/cuda/nvrtc_compiler.h"

#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "polyfuse/cuda_helpers_embedded.h"
#include "polyfuse/errors.h"
#include "runtime/cuda/cuda_headers_embedded.h"
#include "runtime/cache/content_hash.h"

namespace polyfuse::cuda {
namespace fs = std::filesystem;
namespace {

// Owns one nvrtcProgram.
class ProgramHandle {
 public:
  ~ProgramHandle() {
    if (program_) nvrtcDestroyProgram(&program_);
  }
  nvrtcProgram* out() { return &program_; }
  nvrtcProgram get() const { return program_; }

 private:
  nvrtcProgram program_ = nullptr;
};

void check(nvrtcResult result, const char* call, const std::string& kernel) {
  if (result != NVRTC_SUCCESS)
    throw Error(std::string("polyfuse: ") + call + " failed for kernel '" + kernel + "': " + nvrtcGetErrorString(result));
}

// Every header a generated source may include: the embedded kernels/cuda helpers
// (`#include "polyfuse_cuda.cuh"`) and the CUDA fp16/bf16 headers.
struct HeaderTable {
  std::vector<std::string> names, texts;
  std::vector<const char*> name_ptrs, text_ptrs;
  HeaderTable() {
    for (const auto& [name, text] : cuda_helpers::embedded_headers()) {
      names.emplace_back(name);
      texts.emplace_back(text);
    }
    for (const auto& [name, text] : embedded_cuda_headers()) {
      names.push_back(name);
      texts.push_back(text);
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      name_ptrs.push_back(names[i].c_str());
      text_ptrs.push_back(texts[i].c_str());
    }
  }
};
const HeaderTable& headers() {
  static const HeaderTable table;
  return table;
}

fs::path temp_directory() {
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec);
  return ec ? fs::path("/tmp") : dir;
}

// "  123 | source line" for every line the log reports an error on (at most 10).
std::string offending_lines(const std::string& log, const std::string& source, const std::string& file) {
  static const std::regex reference(R"(\((\d+)\): (error|catastrophic error))");
  std::set<int> lines;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), reference); it != std::sregex_iterator() && lines.size() < 10; ++it)
    lines.insert(std::stoi((*it)[1]));
  if (lines.empty()) return "";
  std::vector<std::string> text;
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) text.push_back(line);
  std::string out = "offending lines of " + file + ":\n";
  for (int n : lines)
    if (n >= 1 && n <= static_cast<int>(text.size())) out += "  " + std::to_string(n) + " | " + text[n - 1] + "\n";
  return out;
}

}  // namespace

std::vector<std::string> nvrtc_flags(const NvrtcOptions& options) {
  std::vector<std::string> flags = {"--gpu-architecture=" + options.arch, "-std=c++17"};
  if (options.fast_math) flags.push_back("--use_fast_math");
  if (options.line_info) flags.push_back("-lineinfo");
  if (options.ptxas_verbose) flags.push_back("--ptxas-options=-v");
  return flags;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

NvrtcOutput nvrtc_compile(const std::string& source, const NvrtcOptions& options, const std::string& kernel) {
  // The program is named after the file the source is written to if it fails, so that
  // the log's "file(line): error" references point at a real file.
  const fs::path source_path = temp_directory() / ("polyfuse-" + kernel + "-" + cache::hex64(cache::hash64(source)) + ".cu");
  const HeaderTable& table = headers();
  ProgramHandle program;
  check(nvrtcCreateProgram(program.out(), source.c_str(), source_path.c_str(), static_cast<int>(table.names.size()),
                           table.text_ptrs.data(), table.name_ptrs.data()),
        "nvrtcCreateProgram", kernel);
  const std::vector<std::string> flags = nvrtc_flags(options);
  std::vector<const char*> flag_ptrs;
  for (const std::string& f : flags) flag_ptrs.push_back(f.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(program.get(), static_cast<int>(flag_ptrs.size()), flag_ptrs.data());

  NvrtcOutput out;
  std::size_t size = 0;
  check(nvrtcGetProgramLogSize(program.get(), &size), "nvrtcGetProgramLogSize", kernel);
  out.log.resize(size);
  if (size) check(nvrtcGetProgramLog(program.get(), out.log.data()), "nvrtcGetProgramLog", kernel);
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();

  if (compiled != NVRTC_SUCCESS) {
    std::string written = source_path.string();
    {
      std::ofstream file(source_path, std::ios::binary);
      file << source;
      if (!file) written.clear();
    }
    std::string flag_text;
    for (const std::string& f : flags) flag_text += " " + f;
    std::string message = "polyfuse: NVRTC could not compile kernel '" + kernel + "' for " + options.arch + " (" +
                          nvrtcGetErrorString(compiled) + ")\n";
    message += written.empty() ? "generated source: (could not be written to " + source_path.string() + ")\n"
                               : "generated source: " + written + "\n";
    message += "flags:" + flag_text + "\n";
    message += "NVRTC log:\n" + out.log + "\n";
    message += offending_lines(out.log, source, source_path.string());
    throw CompileError(message, out.log, written);
  }

  check(nvrtcGetPTXSize(program.get(), &size), "nvrtcGetPTXSize", kernel);
  out.ptx.resize(size);
  if (size) check(nvrtcGetPTX(program.get(), out.ptx.data()), "nvrtcGetPTX", kernel);
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  check(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize", kernel);
  out.cubin.resize(size);
  if (size) check(nvrtcGetCUBIN(program.get(), out.cubin.data()), "nvrtcGetCUBIN", kernel);
  if (out.cubin.empty())
    throw Error("polyfuse: NVRTC produced no cubin for kernel '" + kernel + "' (architecture " + options.arch +
                " must be a real sm_XX)");
  return out;
}

}  // namespace polyfuse::cuda
