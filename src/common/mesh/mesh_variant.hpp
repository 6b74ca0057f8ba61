#pragma once
// The registration of a mesh target or native variant: the pair
// (src/omp_target/mesh.cpp), the tuned steps (src/omp_target/mesh_*.cpp) and
// the CUDA twins (src/native_cuda/mesh.cu) name the kernel a variant runs
// once, and its device data follows from it.
#include <string>
#include <utility>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_data.hpp"
#include "common/registry.hpp"
#include "common/variant.hpp"

namespace ompref::mesh {

// The device data of the mesh kernel tagged `kernel` in the kernel table
// (common/mesh/mesh_kernels.cpp): its row, kernel_data.
inline auto data_of_kernel(std::string kernel) {
  return [kernel](MeshInstance& m) { return kernel_data(m, kernel); };
}

// ompref::target_variant and ompref::native_variant for the mesh kernel
// tagged `kernel`: the variant runs that kernel (Variant::kernel: its model,
// check and observables) and its device data is that kernel's, entered by the
// runner before timing and exited after. The workload stays the first
// argument, as in every registration: cmake/step_variants.cmake finds a
// file's variants by it.
inline Variant target_variant(std::string workload, std::string name, std::string sentence,
                              void (*run)(MeshInstance&, RunContext&), const std::string& kernel,
                              const char* file = __builtin_FILE()) {
  return ompref::target_variant(workload, name, sentence, run, data_of_kernel(kernel), file).for_kernel(kernel);
}
inline Variant native_variant(std::string workload, std::string name, std::string sentence,
                              void (*run)(MeshInstance&, RunContext&), const std::string& kernel,
                              const char* file = __builtin_FILE()) {
  return ompref::native_variant(workload, name, sentence, run, data_of_kernel(kernel), file).for_kernel(kernel);
}

}  // namespace ompref::mesh
