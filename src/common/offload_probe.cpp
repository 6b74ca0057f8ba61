// Compiled with the offload flags (see CMakeLists.txt): the one target region
// of the infrastructure, asking the device where it runs.
// The first region on a device is where clang's runtime compiles the device
// code just in time: its vectoriser remarks are held back there
// (common/stderr_filter.hpp says why they are harmless).
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/device.hpp"
#include "common/stderr_filter.hpp"

namespace ompref {

namespace {

std::atomic<bool> start_notes{false};

// Lines on the standard error the process started with (the StderrFilter
// holds file descriptor 2 meanwhile) while a device's first region lasts.
class StartNotes {
 public:
  explicit StartNotes(int device) : device_(device), fd_(dup(STDERR_FILENO)) {
    if (fd_ >= 0) thread_ = std::thread([this] { run(); });
  }
  ~StartNotes() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) close(fd_);
  }
  StartNotes(const StartNotes&) = delete;
  StartNotes& operator=(const StartNotes&) = delete;

 private:
  void run() {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    double next = 3.0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_) {
      wake_.wait_for(lock, std::chrono::milliseconds(250));
      const double t = std::chrono::duration<double>(clock::now() - t0).count();
      if (done_ || t < next) continue;
      const std::string line = fmt::format(
          "ompref: starting device {}: the offload runtime is preparing the device code ({:.0f} s so far)\n", device_, t);
      if (write(fd_, line.data(), line.size()) < 0) return;
      next += 5.0;
    }
  }

  int device_, fd_;
  bool done_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace

void set_device_start_notes(bool on) { start_notes = on; }

bool target_runs_on_device(int device) {
  static std::vector<int> started;
  std::optional<StderrFilter> quiet;
  std::optional<StartNotes> notes;
  if (std::find(started.begin(), started.end(), device) == started.end()) {
    started.push_back(device);
    if (start_notes) notes.emplace(device);  // first: it writes where fd 2 points before the filter
    quiet.emplace();
  }
  int initial = 1;
#pragma omp target device(device) map(from : initial)
  { initial = omp_is_initial_device(); }
  return initial == 0;
}

}  // namespace ompref
