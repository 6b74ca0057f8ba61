#pragma once
// Bad usage or bad input: the command prints the message as one line on
// stderr and exits with status 2. Never thrown from inside a parallel region.
#include <stdexcept>
#include <string>

namespace ompref {

struct UsageError : std::runtime_error {
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace ompref
