#include "common/stderr_filter.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace ompref {

namespace {

// The one filter alive (the program keeps at most one), for the abort handler.
int abort_saved = -1, abort_file = -1;
void (*previous_abort)(int) = SIG_DFL;

void copy_all(int from, int to) {
  char buffer[4096];
  if (lseek(from, 0, SEEK_SET) != 0) return;
  for (ssize_t n; (n = read(from, buffer, sizeof buffer)) > 0;)
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(to, buffer + done, std::size_t(n - done));
      if (w <= 0) return;
      done += w;
    }
}

extern "C" void on_abort(int sig) {
  // Async-signal-safe: put standard error back, show everything held back, abort.
  if (abort_saved >= 0) {
    dup2(abort_saved, STDERR_FILENO);
    copy_all(abort_file, STDERR_FILENO);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

bool is_jit_vectorizer_remark(const std::string& line) {
  return line.find("loop not vectorized: the optimizer was unable to perform the requested transformation") !=
         std::string::npos;
}

StderrFilter::StderrFilter() {
  std::fflush(stderr);
  std::FILE* temp = std::tmpfile();
  if (!temp) return;  // nothing held back: the remarks, if any, go through
  file_ = dup(fileno(temp));
  std::fclose(temp);  // the file lives on through file_ (already unlinked)
  saved_ = dup(STDERR_FILENO);
  if (file_ < 0 || saved_ < 0 || dup2(file_, STDERR_FILENO) < 0) {
    if (saved_ >= 0) close(saved_);
    if (file_ >= 0) close(file_);
    saved_ = file_ = -1;
    return;
  }
  abort_saved = saved_;
  abort_file = file_;
  previous_abort = std::signal(SIGABRT, on_abort);
}

StderrFilter::~StderrFilter() { end(); }

void StderrFilter::end() {
  if (saved_ < 0) return;
  std::fflush(stderr);
  dup2(saved_, STDERR_FILENO);
  std::signal(SIGABRT, previous_abort);
  abort_saved = abort_file = -1;
  std::string text;
  char buffer[4096];
  if (lseek(file_, 0, SEEK_SET) == 0)
    for (ssize_t n; (n = read(file_, buffer, sizeof buffer)) > 0;) text.append(buffer, std::size_t(n));
  std::string kept;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end_of_line = text.find('\n', at);
    end_of_line = end_of_line == std::string::npos ? text.size() : end_of_line + 1;
    const std::string line = text.substr(at, end_of_line - at);
    if (is_jit_vectorizer_remark(line))
      ++dropped_;
    else
      kept += line;
    at = end_of_line;
  }
  for (std::size_t done = 0; done < kept.size();) {
    const ssize_t w = write(STDERR_FILENO, kept.data() + done, kept.size() - done);
    if (w <= 0) break;
    done += std::size_t(w);
  }
  close(saved_);
  close(file_);
  saved_ = file_ = -1;
}

}  // namespace ompref
