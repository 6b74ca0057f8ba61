#pragma once
// What tells a slower code from a busy or changed machine in `ompref
// compare`: the rank test on two runs' repetitions, the figures of a result
// file that speak for the machine (its ceilings, the host's FP64 probe, the
// load while it ran) compared between two files, and the settings that differ
// between files (flags, environment, threads, build, commit, driver).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ompref {

// The two-sided p-value of the Mann-Whitney U test (the Wilcoxon rank-sum
// test) that `a` and `b` come from one distribution: exact (the distribution
// of U over every arrangement) where no value is tied and each sample has at
// most 20 values, else the normal approximation with the tie and continuity
// corrections. 1 where either sample is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// The gate uses the rank test where both runs have at least this many
// repetitions: slower beyond the threshold on the medians and p below alpha.
inline constexpr std::size_t rank_test_min_samples = 5;
inline constexpr double rank_test_alpha = 0.05;

// Beyond these, two files' machine figures differ beyond their noise: a
// ceiling or the FP64 probe by more than ceiling_change_percent or twice the
// quieter file's own spread of it; the share of runnable time this process's
// threads waited for a CPU by more than wait_change; the CPUs kept busy by
// other processes by more than busy_change of the CPUs; CPU steal by more
// than steal_change_points percentage points.
inline constexpr double ceiling_change_percent = 10;
inline constexpr double wait_change = 0.2;
inline constexpr double busy_change = 0.25;
inline constexpr double steal_change_points = 5;

// One way file k's machine differs from the first file's, beyond noise.
// place: "host" (then it concerns every run of the file: the host drives the
// devices too) or "device N" (the runs on that device).
struct MachineChange {
  std::string place;
  std::string what;  // the figure, e.g. "host FP64 probe 35.1 -> 16.8 GFLOP/s (-52%; noise 10%)"
};
// `first` and `other`: the top of two result documents (ceilings, load, host).
std::vector<MachineChange> machine_changes(const nlohmann::json& first, const nlohmann::json& other);
// Whether a change concerns a run at `place` ("host", "device 0", "device 0 #2").
bool concerns(const MachineChange& change, const std::string& place);

// The header of `ompref compare`: per setting that differs between the files
// (compiler, offload, build type, flags, commit, OpenMP runtime, device code,
// environment variables, CPU, threads, devices, driver, machine record), a
// line "  <setting>: [1] value, [2] value"; each file's load while it ran; and
// per file k the machine changes against [1]. `docs`: the tops of the files.
std::string settings_that_differ(const std::vector<nlohmann::json>& docs);
std::string load_lines(const std::vector<nlohmann::json>& docs);
std::string machine_change_lines(const std::vector<nlohmann::json>& docs);

}  // namespace ompref
