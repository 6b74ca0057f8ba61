#pragma once
// lbm's device data: the arrays its kernels read and write, declared once and
// defined in src/omp_target/lbm.cpp beside the kernels of the pair. Every other
// variant of the same kernels includes this header: the offload steps (src/omp_target/lbm_*.cpp) and the CUDA twins (src/native_cuda/lbm.cu).
// The runner enters the data before timing and exits it after
// (src/common/device_data.hpp).
#include "common/device_data.hpp"

namespace ompref::lbm {

class LbmInstance;

DeviceData device_data(LbmInstance& s);
// The in-place variants' (target_inplace, its twin): one lattice, psi and the mask.
DeviceData device_data_in_place(LbmInstance& s);

}  // namespace ompref::lbm
