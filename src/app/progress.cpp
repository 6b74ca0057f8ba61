#include "app/progress.hpp"

#include <unistd.h>

#include <chrono>

#include <fmt/format.h>

namespace ompref {

namespace {
// A plain (non-terminal) log gets a repetition line at most this often.
constexpr double plain_interval_s = 5.0;
}  // namespace

Progress::Progress(int total_runs, bool enabled)
    : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0), total_runs_(total_runs), start_(now()) {}

double Progress::now() const {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

void Progress::start_run(const std::string& workload, int workload_index, int workloads, const std::string& variant,
                         int variant_index, int variants) {
  label_ = fmt::format("{} {}/{}, {} {}/{}", workload, workload_index + 1, workloads, variant, variant_index + 1,
                       variants);
  rep_text_.clear();
  run_start_ = now();
  draw(true);
}

void Progress::repetition(int done, int total) {
  rep_text_ = fmt::format(", repetition {}/{}", done, total);
  draw(false);
}

void Progress::finish_run() {
  ++finished_runs_;
  finished_time_ += now() - run_start_;
}

void Progress::note(const std::string& what) {
  label_ = what;
  rep_text_.clear();
  draw(true);
}

void Progress::clear() {
  if (enabled_ && tty_ && drawn_) {
    fmt::print(stderr, "\r\x1b[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  const double t = now();
  if (!tty_ && !force && t - last_draw_ < plain_interval_s) return;
  last_draw_ = t;
  std::string left = "estimating";
  if (finished_runs_ > 0) {
    const double per_run = finished_time_ / finished_runs_;
    const double remaining = per_run * (total_runs_ - finished_runs_) - (t - run_start_);
    left = fmt::format("~{:.0f} s left", remaining > 0 ? remaining : 0.0);
  }
  const std::string line = fmt::format("[{}/{}] {}{} | {:.0f} s elapsed, {}", finished_runs_ + 1, total_runs_,
                                       label_, rep_text_, t - start_, left);
  if (tty_) {
    fmt::print(stderr, "\r\x1b[K{}", line);
    drawn_ = true;
  } else {
    fmt::print(stderr, "{}\n", line);
  }
  std::fflush(stderr);
}

}  // namespace ompref
