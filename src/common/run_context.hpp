#pragma once
// What a variant's run function is given: the device, the place it really runs
// on, and a clock for sub-timings.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ompref {

class Instance;

// Sub-timings inside one repetition: a variant calls lap("copy") after each part.
class PhaseClock {
 public:
  void start();
  // Waits for the place's queued work (wait_with), then reads the time.
  void lap(const std::string& phase);
  const std::vector<std::pair<std::string, double>>& laps() const { return laps_; }
  // A CUDA launch returns before its kernel ends, unlike a target region: the
  // runner gives native variants a wait for the device (NativeBackend::
  // synchronize) that every lap, and the end of every repetition, calls
  // before the clock is read.
  void wait_with(std::function<void()> wait) { wait_ = std::move(wait); }
  void wait() const {
    if (wait_) wait_();
  }

 private:
  double last_ = 0;
  std::vector<std::pair<std::string, double>> laps_;
  std::function<void()> wait_;
};

// The number of teams of a construct shaped for a GPU: `device_teams` where
// target regions really run on a device, one on the host fallback. libgomp and
// libomp run a host league's teams one after another, each its own parallel
// region, so a league of thousands of teams cannot be formed there or crawls
// (per-item teams made g++-12's fallback 40x slower on mesh direct); one team
// has every host thread.
inline int league(bool on_device, long device_teams) { return on_device ? int(std::max(1L, device_teams)) : 1; }

struct RunContext {
  int device = 0;                 // OpenMP device number for target variants
  std::vector<int> devices;       // every device the run may use (multi-device variants)
  bool on_device = false;         // target regions really run on `device` (not the host fallback)
  PhaseClock clock;
  // What a variant says of how it ran, name: value (a decomposed variant's
  // exchange path and halo cost, src/mpi/lbm_slabs.hpp), set by its run or
  // exit_data: the run's JSON `notes` and a line under the table.
  nlohmann::json notes = nlohmann::json::object();
};

using RunFunction = std::function<void(Instance&, RunContext&)>;

}  // namespace ompref
