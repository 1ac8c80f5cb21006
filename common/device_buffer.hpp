/// @file
/// @brief DeviceBuffer: RAII ownership of device memory, with copies and NaN poisoning.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/check.hpp"

namespace tut {

/// An array of `T` in device memory, freed when the buffer goes out of scope (move-only).
template <class T>
class DeviceBuffer {
 public:
  /// An empty buffer (no allocation).
  DeviceBuffer() = default;

  /// Allocates `count` elements (uninitialized; call poison() or copy_from()).
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
  }

  /// Allocates and uploads a host vector.
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { copy_from(host); }

  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);  // no throw from a destructor
  }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Takes over another buffer's allocation.
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}

  /// Frees this buffer's allocation and takes over the other's.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      if (ptr_ != nullptr) cudaFree(ptr_);
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  /// Device pointer to the first element.
  T* data() { return ptr_; }
  /// Device pointer to the first element (read-only).
  const T* data() const { return ptr_; }
  /// Number of elements.
  std::size_t size() const { return count_; }
  /// Size in bytes.
  std::size_t bytes() const { return count_ * sizeof(T); }

  /// Uploads `host` into the start of the buffer (at most size() elements).
  void copy_from(const std::vector<T>& host) { copy_from(host.data(), host.size()); }

  /// Uploads `count` elements from host memory into the start of the buffer.
  void copy_from(const T* host, std::size_t count) {
    if (count > count_) throw std::out_of_range("DeviceBuffer::copy_from: more elements than the buffer holds");
    if (count > 0) CUDA_CHECK(cudaMemcpy(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }

  /// Downloads the whole buffer (synchronizes with the device).
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

  /// Fills every byte with 0xFF: for float, half and bfloat16 that is NaN, so an element a
  /// kernel forgets to write can never pass a check.
  void poison(cudaStream_t stream = nullptr) {
    if (count_ > 0) CUDA_CHECK(cudaMemsetAsync(ptr_, 0xFF, bytes(), stream));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace tut
