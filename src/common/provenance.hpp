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
// One line: version, commit, build type, compiler, OpenMP runtime, offload mode, flags.
std::string version_line();

}  // namespace ompref
