// What `compile` and `run` share: the .tc file read, the sizes bound (-D), the front end
// run with its warnings printed, the defs selected (--def: the one named, through the
// driver's select_def; else every def), and user errors printed against the source.
#pragma once

#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/frontend.h"

namespace polyfuse::tools {

class ProgramInput {
 public:
  // Reads `path` and binds `defines` (NAME=VALUE each). Throws UserError.
  ProgramInput(const std::string& path, const std::vector<std::string>& defines);

  // Runs the front end (once), prints its warnings to stderr and returns the def named
  // `def`, or every def when `def` is empty. Throws UserError.
  std::vector<const Program*> defs(const std::string& def);

  // `error`'s diagnostics on stderr, with source lines and carets, options spelled as flags.
  void print(const UserError& error) const;

  const SourceFile& source() const { return source_; }

 private:
  SourceFile source_;
  SizeBindings sizes_;
  FrontendResult result_;
  bool compiled_ = false;
};

}  // namespace polyfuse::tools
