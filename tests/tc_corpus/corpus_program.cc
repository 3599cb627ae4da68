#include "corpus_program.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "support/golden.h"

namespace polyfuse::testing {
namespace {

// The bindings of the header line that starts with `prefix` ("# sizes even:").
SizeBindings sizes_line(const std::string& text, const std::string& prefix) {
  SizeBindings sizes;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream words(line.substr(prefix.size()));
    for (std::string word; words >> word;) {
      const std::size_t equals = word.find('=');
      sizes[word.substr(0, equals)] = std::stoll(word.substr(equals + 1));
    }
  }
  return sizes;
}

}  // namespace

std::vector<CorpusProgram> corpus_programs() {
  std::vector<CorpusProgram> programs;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("tests/tc_corpus"))) {
    if (entry.path().extension() != ".tc") continue;
    CorpusProgram program;
    program.name = entry.path().stem().string();
    program.file = "tests/tc_corpus/" + entry.path().filename().string();
    program.text = read_text_file(entry.path().string());
    program.even = sizes_line(program.text, "# sizes even:");
    program.odd = sizes_line(program.text, "# sizes odd:");
    programs.push_back(std::move(program));
  }
  std::sort(programs.begin(), programs.end(),
            [](const CorpusProgram& a, const CorpusProgram& b) { return a.name < b.name; });
  return programs;
}

}  // namespace polyfuse::testing
