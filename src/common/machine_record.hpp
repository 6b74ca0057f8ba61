#pragma once
// What a result says of the machine beyond its CPU and devices: the
// operating system and kernel, the NUMA nodes, the CPU frequency governor,
// and the user's own note (`--note TEXT`). In every result file ("machine")
// and shown by `ompref devices`.
#include <string>

#include <nlohmann/json.hpp>

namespace ompref {

// Remembers `--note TEXT` for the result files of this process.
void set_machine_note(const std::string& text);

// {"os", "kernel", "numa_nodes", "cpu_governor", "note"}: null where the
// system does not tell (no cpufreq in a VM: no governor), note null unless given.
nlohmann::json machine_record();
// The record as lines "  os: Debian GNU/Linux 12 (bookworm)", for `devices`.
std::string machine_record_text(const nlohmann::json& record);

}  // namespace ompref
