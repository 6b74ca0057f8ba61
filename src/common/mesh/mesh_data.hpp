#pragma once
// The mesh kernels' device data, declared once: each kernel's row of the
// kernel table (src/common/mesh/mesh_kernels.cpp) lists the arrays it reads,
// its outputs and the device-only scratch of its variants, and kernel_data
// turns the row into the DeviceData the runner maps for every variant of the
// kernel: the pair (src/omp_target/mesh.cpp), the tuned steps
// (src/omp_target/mesh_*.cpp) and the CUDA twins (src/native_cuda/mesh.cu).
// The memory checked before an instance is allocated (device_bytes_for) is
// the same rows' sizes.
#include <string>

#include "common/device_data.hpp"

namespace ompref::mesh {

class MeshInstance;

// Inputs and scratch mapped `to` and released after, outputs mapped
// (NaN-poisoned) `to` and brought back. Throws std::logic_error for a tag
// that is not in the table.
DeviceData kernel_data(MeshInstance& m, const std::string& tag);

}  // namespace ompref::mesh
