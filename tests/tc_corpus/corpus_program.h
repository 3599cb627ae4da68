// One program of the Tensor Comprehensions corpus (tests/tc_corpus/*.tc): its text and the
// two size sets its header states (`# sizes even: N=4 K=6`, `# sizes odd: N=5 K=7`).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "frontend/size_bindings.h"

namespace polyfuse::testing {

struct CorpusProgram {
  std::string name;       // the file's name without ".tc"
  std::string file;       // "tests/tc_corpus/NAME.tc", as messages name it
  std::string text;       // the whole file
  SizeBindings even;      // `# sizes even:`
  SizeBindings odd;       // `# sizes odd:`
};

// Tests print a program by its name.
inline void PrintTo(const CorpusProgram& program, std::ostream* out) { *out << program.name; }

// Every tests/tc_corpus/*.tc, by name.
std::vector<CorpusProgram> corpus_programs();

}  // namespace polyfuse::testing
