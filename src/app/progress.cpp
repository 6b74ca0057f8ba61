#include "app/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace ompref {

namespace {
// A plain (non-terminal) log gets a line at most this often; a terminal's
// line is redrawn this often while nothing else redraws it.
constexpr double plain_interval_s = 5.0;
constexpr double tty_interval_s = 1.0;
}  // namespace

// The lines go to a duplicate of standard error taken here: while clang's
// runtime compiles the device code at a device's first target region, file
// descriptor 2 is held by a StderrFilter (common/stderr_filter.hpp), and a
// heartbeat written there would come out only when the region ends.
Progress::Progress(int total_runs, bool enabled)
    : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0), total_runs_(total_runs), start_(now()) {
  if (!enabled_) return;
  const int fd = dup(STDERR_FILENO);
  if (fd >= 0) out_ = fdopen(fd, "w");
  if (out_ == nullptr) {
    if (fd >= 0) close(fd);
    out_ = stderr;
  }
  beat_ = std::thread([this] { heartbeat(); });
}

Progress::~Progress() {
  if (beat_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    beat_.join();
  }
  if (out_ != stderr) std::fclose(out_);
}

void Progress::heartbeat() {
  const double interval = tty_ ? tty_interval_s : plain_interval_s;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    if (!stopping_ && active_ && now() - last_draw_ >= interval) draw(true);
  }
}

double Progress::now() const {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

void Progress::start_run(const std::string& workload, int workload_index, int workloads, const std::string& variant,
                         int variant_index, int variants) {
  std::string label = fmt::format("{} {}/{}, {} {}/{}", workload, workload_index + 1, workloads, variant,
                                  variant_index + 1, variants);
  std::lock_guard<std::mutex> lock(mutex_);
  if (workload_index != workload_index_) {
    workload_index_ = workload_index;
    workload_finished_runs_ = 0;
    workload_finished_time_ = 0;
  }
  workload_runs_left_ = variants - variant_index - 1;  // after this one
  label_ = std::move(label);
  rep_text_.clear();
  run_start_ = now();
  active_ = true;
  draw(true);
}

void Progress::repetition(int done, int total) {
  std::lock_guard<std::mutex> lock(mutex_);
  rep_text_ = fmt::format(", repetition {}/{}", done, total);
  draw(false);
}

void Progress::validating() {
  std::lock_guard<std::mutex> lock(mutex_);
  rep_text_ = ", validating";
  draw(true);
}

void Progress::finish_run() {
  std::lock_guard<std::mutex> lock(mutex_);
  const double seconds = now() - run_start_;
  ++finished_runs_;
  finished_time_ += seconds;
  ++workload_finished_runs_;
  workload_finished_time_ += seconds;
  active_ = false;
}

void Progress::note(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  label_ = what;
  rep_text_.clear();
  active_ = true;
  draw(true);
}

void Progress::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = false;
  if (enabled_ && tty_ && drawn_) {
    fmt::print(out_, "\r\x1b[K");
    std::fflush(out_);
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
    // This workload's runs at its own mean so far, later workloads' at the overall mean.
    const double overall = finished_time_ / finished_runs_;
    const double here = workload_finished_runs_ > 0 ? workload_finished_time_ / workload_finished_runs_ : overall;
    const int in_run = active_ ? 1 : 0;
    const int later = std::max(0, total_runs_ - finished_runs_ - in_run - workload_runs_left_);
    const double current = active_ ? std::max(0.0, here - (t - run_start_)) : 0.0;
    const double remaining = current + here * workload_runs_left_ + overall * later;
    left = fmt::format("~{:.0f} s left", remaining);
  }
  const std::string line = fmt::format("[{}/{}] {}{} | {:.0f} s elapsed, {}", finished_runs_ + 1, total_runs_,
                                       label_, rep_text_, t - start_, left);
  if (tty_) {
    fmt::print(out_, "\r\x1b[K{}", line);
    drawn_ = true;
  } else {
    fmt::print(out_, "{}\n", line);
  }
  std::fflush(out_);
}

}  // namespace ompref
