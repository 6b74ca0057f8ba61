#pragma once
// Holds back known, harmless lines that a runtime writes to standard error.
//
// clang's offload runtime compiles the device code just in time at the first
// target region on a device, and its optimiser then prints "loop not
// vectorized" once for every `... parallel for simd` loop: on NVPTX a `simd`
// loop's lanes are GPU threads, not vector lanes, so the vectoriser has
// nothing to do (the same remark is silenced at build time by
// -Wno-pass-failed, which the runtime's compiler does not see). While a
// StderrFilter lives, file descriptor 2 goes to a temporary file; when it
// ends, every line that is not such a remark is written to standard error
// as it came. If the process aborts meanwhile (a runtime's fatal error), the
// held-back text is written out first, so no error message is lost.
#include <string>

namespace ompref {

class StderrFilter {
 public:
  StderrFilter();
  ~StderrFilter();
  StderrFilter(const StderrFilter&) = delete;
  StderrFilter& operator=(const StderrFilter&) = delete;
  // How many lines were held back, once ended (for tests).
  int dropped() const { return dropped_; }
  void end();

 private:
  int saved_ = -1, file_ = -1, dropped_ = 0;
};

// Whether a line of standard error is a known, harmless runtime remark.
bool is_jit_vectorizer_remark(const std::string& line);

}  // namespace ompref
