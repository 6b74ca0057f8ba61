#pragma once
// The mesh kernels' device data, declared once in src/omp_target/mesh.cpp
// beside the kernels of the pair, and used as they are by every other variant
// of the same kernels: the tuned offload step (src/omp_target/mesh_tuned.cpp)
// and the native CUDA twins (src/native_cuda/mesh.cu). One declaration per
// kernel: its inputs and its outputs.
#include "common/device_data.hpp"

namespace ompref::mesh {

class MeshInstance;

DeviceData direct_data(MeshInstance& m);
DeviceData downward_data(MeshInstance& m);
DeviceData transverse_data(MeshInstance& m);
DeviceData ball_csr_data(MeshInstance& m);
DeviceData ball_binned_data(MeshInstance& m);
DeviceData lumped_atomic_data(MeshInstance& m);
DeviceData lumped_scatter_gather_data(MeshInstance& m);
DeviceData reduce_data(MeshInstance& m);
DeviceData reduce_blocks_data(MeshInstance& m);

}  // namespace ompref::mesh
