#pragma once
// Where a result comes from: the suite's commit and build, the compiler and
// OpenMP runtime, the command line and the OpenMP/offload environment, the
// host and the date. Carried by the JSON, the CSV (columns) and
// `ompref --version`.
#include <string>

#include <nlohmann/json.hpp>

namespace ompref {

// Remembers the command line (main calls it first).
void set_command_line(int argc, char** argv);

nlohmann::json provenance();
// The offload mode with how device code was made (lto, per-file, jit, host)
// and any workaround flag: "Clang 22.1.8, nvptx sm_90, device code lto".
std::string offload_description();
// One line: version, commit, build type, compiler, OpenMP runtime, offload mode, flags.
std::string version_line();

}  // namespace ompref
