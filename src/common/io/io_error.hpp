#pragma once
// The I/O library's one error: a file that cannot be read, parsed or written,
// or an output path refused, as one line naming the file. What it means is
// its caller's to say: to an ompref command, bad input (exit status 2).
#include <stdexcept>
#include <string>

namespace ompref {

struct IoError : std::runtime_error {
  explicit IoError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace ompref
