#pragma once
// What the native (CUDA) sources share: error checks that throw (the runner
// turns them into one line and exit status 2), the device copies of a
// variant's declared arrays, and the device's multiprocessor count that
// launch shapes are sized by. Included by src/native_cuda/*.cu only.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ompref::native {

// Throws std::runtime_error naming the call and CUDA's message.
inline void check(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) {
    cudaGetLastError();  // clears a non-sticky error
    throw std::runtime_error(what + ": " + cudaGetErrorString(status));
  }
}

// After a kernel launch: a bad launch configuration is reported here, a fault
// inside the kernel by the next synchronisation.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), std::string("launch of ") + kernel); }

// The device copy of a host array entered by the native back end (backend.cu)
// for `device`, as OpenMP finds a mapped array present: the host address is
// the key. Throws when the array was not entered (a DeviceData declaration
// that misses it).
void* present_bytes(const void* host, int device);
template <class T>
T* present(T* host, int device) {
  return static_cast<T*>(present_bytes(host, device));
}

// Waits for the work queued on the default stream (every native kernel runs
// there) by polling it, as CUDA's default scheduling spins. Not
// cudaDeviceSynchronize: when LLVM's OpenMP CUDA plugin creates the device's
// primary context first, it sets it to CU_CTX_SCHED_BLOCKING_SYNC, under which
// every cudaDeviceSynchronize sleeps and wakes tens of microseconds after the
// kernel ended; the native variants are timed as a CUDA program runs.
inline void wait_for_device() {
  cudaError_t status;
  while ((status = cudaStreamQuery(0)) == cudaErrorNotReady) {
  }
  check(status, "waiting for the device (cudaStreamQuery)");
}

// Multiprocessors of `device` (launch shapes are k blocks per multiprocessor).
int multiprocessors(int device);

// Makes `device` the calling thread's current CUDA device.
inline void select(int device) { check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")"); }

// n values of T in pinned host memory (page-locked, portable to every
// device), never freed: a result comes back into it by an asynchronous copy
// and a polled wait, where a synchronous copy would wait the blocking way.
template <class T>
T* pinned_host(std::size_t n) {
  void* p = nullptr;
  check(cudaHostAlloc(&p, n * sizeof(T), cudaHostAllocPortable), "cudaHostAlloc");
  return static_cast<T*>(p);
}

// Device memory that frees itself (the probes' own arrays).
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n) {
    check(cudaMalloc(&data_, n * sizeof(T)), "cudaMalloc of " + std::to_string(n * sizeof(T)) + " bytes");
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* data() const { return data_; }
  std::size_t size() const { return n_; }

 private:
  T* data_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace ompref::native
