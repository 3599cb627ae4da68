#include "nvrtc_compile.h"

#include <nvrtc.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "polyfuse/cuda_helpers_embedded.h"
#include "runtime/cuda/cuda_headers_embedded.h"
#include "support/golden.h"

namespace pft_test {

NvrtcResult nvrtc_compile(const std::string& source, const std::string& arch, bool ptxas_verbose) {
  NvrtcResult result;
  std::vector<std::string> names, texts;
  for (const auto& [name, text] : polyfuse::cuda_helpers::embedded_headers()) {
    names.emplace_back(name);
    texts.emplace_back(text);
  }
  for (const auto& [name, text] : polyfuse::cuda::embedded_cuda_headers()) {
    names.emplace_back(name);
    texts.emplace_back(text);
  }
  std::vector<const char*> name_ptrs, text_ptrs;
  for (std::size_t i = 0; i < names.size(); ++i) {
    name_ptrs.push_back(names[i].c_str());
    text_ptrs.push_back(texts[i].c_str());
  }
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, source.c_str(), "polyfuse_test.cu", static_cast<int>(names.size()), text_ptrs.data(),
                         name_ptrs.data()) != NVRTC_SUCCESS) {
    result.log = "nvrtcCreateProgram failed";
    return result;
  }
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "-std=c++17"};
  if (ptxas_verbose) options.push_back("--ptxas-options=-v");
  std::vector<const char*> option_ptrs;
  for (const std::string& o : options) option_ptrs.push_back(o.c_str());
  const nvrtcResult rc = nvrtcCompileProgram(program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  result.log.resize(log_size);
  if (log_size) nvrtcGetProgramLog(program, result.log.data());
  result.ok = rc == NVRTC_SUCCESS;
  if (result.ok) {
    std::size_t size = 0;
    if (nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS && size) {
      result.cubin.resize(size);
      nvrtcGetCUBIN(program, result.cubin.data());
    }
  }
  nvrtcDestroyProgram(&program);
  return result;
}

std::string test_kernels_source() { return kernels_source("test_kernels.cu"); }

std::string kernels_source(const std::string& file) {
  const std::string path = polyfuse::testing::source_path("tests/kernels_cuda/" + file);
  std::ifstream in(path);
  if (!in) return "#error \"cannot read " + path + "\"\n";  // the compile log names the file
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> nonzero_spills(const std::string& log) {
  static const std::regex spill(R"((\d+) bytes spill stores, (\d+) bytes spill loads)");
  std::vector<std::string> bad;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), spill); it != std::sregex_iterator(); ++it)
    if ((*it)[1] != "0" || (*it)[2] != "0") bad.push_back(it->str());
  return bad;
}

std::vector<std::string> nonzero_stack_frames(const std::string& log) {
  static const std::regex frame(R"((\d+) bytes stack frame)");
  std::vector<std::string> bad;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), frame); it != std::sregex_iterator(); ++it)
    if ((*it)[1] != "0") bad.push_back(it->str());
  return bad;
}

std::vector<std::string> ptxas_diagnostics(const std::string& log) {
  static const std::regex code(R"(\(C[0-9]{4}\))");
  std::vector<std::string> found;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("ptxas", 0) == 0 && (line.find("arning") != std::string::npos || std::regex_search(line, code)))
      found.push_back(line);
  return found;
}

}  // namespace pft_test
