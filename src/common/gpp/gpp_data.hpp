#pragma once
// gpp's device data: the arrays its kernels read and write, declared once and
// defined in src/omp_target/gpp.cpp beside the kernels of the pair. Every other
// variant of the same kernels includes this header: the offload steps (src/omp_target/gpp_*.cpp), the CUDA twins (src/native_cuda/gpp.cu) and the MPI form (src/mpi/gpp_ranks.cpp).
// The runner enters the data before timing and exits it after
// (src/common/device_data.hpp).
#include "common/device_data.hpp"

namespace ompref::gpp {

class GppInstance;

DeviceData device_data(GppInstance& s);

}  // namespace ompref::gpp
