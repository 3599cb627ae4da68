// The front end in one call: source text -> checked Programs in polyhedral form.
//
//   polyfuse::SourceFile source = polyfuse::read_source_file("examples/gemm.tc");
//   polyfuse::FrontendResult result = polyfuse::compile_source(source, {{"M", 64}});
//   const polyfuse::Program& gemm = result.programs.at(0);
//
// Every user mistake throws UserError with located diagnostics (all errors of the file,
// up to max_reported_errors); warnings come back in FrontendResult::warnings.
#pragma once

#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/program.h"
#include "frontend/size_bindings.h"

namespace polyfuse {

// A source text and the name it is reported under.
struct SourceFile {
  std::string name;  // as given by the user, used in diagnostics
  std::string text;  // the whole file
};

// What the front end produced.
struct FrontendResult {
  std::vector<Program> programs;    // one per def, in file order, sharing one isl context
  std::vector<Diagnostic> warnings; // e.g. a -D size that no def uses
};

// Reads the file at `path`. Throws UserError if it cannot be read, is not a regular file,
// or is larger than limits::max_source_bytes.
SourceFile read_source_file(const std::string& path);

// Parses, checks and lowers every def of `source` with the sizes in `sizes` bound.
// A file without defs, duplicate def names, any syntax or semantic error: UserError.
// A binding that no def uses is a warning, not an error.
FrontendResult compile_source(const SourceFile& source, const SizeBindings& sizes = {});

}  // namespace polyfuse
