#pragma once
// The registration of a mesh target variant: the pair (src/omp_target/mesh.cpp)
// and the tuned steps (src/omp_target/mesh_*.cpp) name the kernel a variant
// runs once, and its device data follows from it.
#include <string>
#include <utility>

#include "common/mesh/mesh.hpp"
#include "common/mesh/mesh_data.hpp"
#include "common/variant.hpp"

namespace ompref::mesh {

// ompref::target_variant for the mesh kernel tagged `kernel` in the kernel
// table (common/mesh/mesh_kernels.cpp): the variant runs that kernel
// (Variant::kernel: its model, check and observables) and its device data is
// that kernel's row (kernel_data), entered by the runner before timing and
// exited after. The workload stays the first argument, as in every
// registration: cmake/step_variants.cmake finds a file's variants by it.
inline Variant target_variant(std::string workload, std::string name, std::string sentence,
                              void (*run)(MeshInstance&, RunContext&), const std::string& kernel,
                              const char* file = __builtin_FILE()) {
  return ompref::target_variant(
             std::move(workload), std::move(name), std::move(sentence), run,
             [kernel](MeshInstance& m) { return kernel_data(m, kernel); }, file)
      .for_kernel(kernel);
}

}  // namespace ompref::mesh
