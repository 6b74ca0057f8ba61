#pragma once
// Shared arithmetic is written once, in src/common, as inline functions that
// every back end compiles: OpenMP's host and device passes read them inside
// `#pragma omp declare target` blocks; nvcc, which ignores OpenMP pragmas,
// needs the functions marked for both the host and the device. This one
// attribute says so where nvcc compiles (native twins, src/native_cuda) and is
// empty everywhere else. It marks functions only; it never expands into
// arithmetic, pragmas or declarations.
#if defined(__CUDACC__)
#define OMPREF_HOST_DEVICE __host__ __device__
#else
#define OMPREF_HOST_DEVICE
#endif
