#pragma once
// How the host waits for an NVIDIA device: the `--device-wait` knob
// (docs/native.md, "How the host waits"). LLVM's CUDA plugin creates each
// device's primary context with CU_CTX_SCHED_BLOCKING_SYNC: every wait for a
// target region sleeps and is woken tens of microseconds after the kernel
// ended, a fixed cost per construct that a CUDA program, spinning by default,
// does not pay. `spin` makes each CUDA device's primary context active with
// CU_CTX_SCHED_SPIN before OpenMP first uses the device (the plugin keeps an
// active context's flags); `runtime` leaves the choice to the OpenMP runtime.
#include <string>

namespace ompref {

enum class DeviceWait { spin, runtime };

// Applies `mode` once, before any target region; records what it did.
void apply_device_wait(DeviceWait mode);
// What was applied, for the header and the provenance: "spin (2 CUDA devices)",
// "runtime", "runtime (no CUDA driver)".
std::string device_wait_description();

}  // namespace ompref
