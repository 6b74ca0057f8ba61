#pragma once
// Compiler defects that make variants of the suite fail, declared once in
// src/common/known_defects.json: compiled in (CMakeLists.txt writes the file
// into a generated header) and read here, and held against the installed
// compilers by tests/known_defects_check.py. A FAIL of an affected variant
// built by an affected compiler is printed with one line naming the defect.
#include <string>
#include <utility>
#include <vector>

namespace ompref {

struct KnownDefect {
  std::string name, title, summary;
  std::string compiler;             // as build_compiler() names it: "clang", "g++"
  std::string first, last;          // affected versions, inclusive ("22.1.0", "22.1.8")
  std::vector<std::string> offload; // offload modes whose device code is affected ("nvptx")
  std::vector<std::pair<std::string, std::string>> affected;  // (workload, variant)
  std::string reproducer, workaround;
};

// The declarations, parsed once; a malformed declaration throws std::runtime_error.
const std::vector<KnownDefect>& known_defects();

// The defects of `declared` that apply to `workload` `variant` built by
// `compiler` `version` for offload mode `offload`, as one line each ("" when
// none): the defect's name, versions, reproducer and workaround.
std::string known_defect_note(const std::vector<KnownDefect>& declared, const std::string& workload,
                              const std::string& variant, const std::string& compiler, const std::string& version,
                              const std::string& offload);
// The same for this build: its compiler (build_compiler()) and offload mode.
std::string known_defect_note(const std::string& workload, const std::string& variant);

}  // namespace ompref
