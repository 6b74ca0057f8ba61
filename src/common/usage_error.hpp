#pragma once
// Bad usage or bad input: the command prints the message as one line on
// stderr and exits with status 2. Never thrown from inside a parallel region.
#include <stdexcept>
#include <string>

#include "common/io/io_error.hpp"

namespace ompref {

struct UsageError : std::runtime_error {
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

// Runs `step`; an IoError of the I/O library (an input file that cannot be
// read, an output path refused) is bad input to a command: the UsageError of
// the same message. Where MPI ranks must agree on a refusal (agree), a step
// that reads or checks files runs through this.
template <class Step>
decltype(auto) io_errors_as_usage(Step&& step) {
  try {
    return step();
  } catch (const IoError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace ompref
