#pragma once
// stream's device data: the arrays its kernels read and write, declared once and
// defined in src/omp_target/stream.cpp beside the kernels of the pair. Every other
// variant of the same kernels includes this header: the offload steps (src/omp_target/stream_*.cpp) and the CUDA twin (src/native_cuda/stream.cu).
// The runner enters the data before timing and exits it after
// (src/common/device_data.hpp).
#include "common/device_data.hpp"

namespace ompref::stream {

class StreamInstance;

DeviceData device_data(StreamInstance& s);

}  // namespace ompref::stream
