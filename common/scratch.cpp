/// @file
/// @brief tut::Scratch (see scratch.hpp).
#include "common/scratch.hpp"

#include <utility>

#include "common/check.hpp"

namespace tut {

Scratch::Lease::Lease(Lease&& other) noexcept
    : lock_(std::move(other.lock_)), data_(other.data_), done_(other.done_), stream_(other.stream_) {
  other.done_ = nullptr;
}

Scratch::Lease::~Lease() {
  // The point after this call's work: the next lease, on any stream, waits for it. (No throw from
  // a destructor: a failed record leaves the next lease waiting on the previous point, which this
  // call's stream had already passed.)
  if (done_ != nullptr) cudaEventRecord(done_, stream_);
}

Scratch::~Scratch() {
  for (auto& [device, slot] : slots_) {  // at exit; errors ignored (the context may be gone)
    (void)device;
    if (slot.ptr != nullptr) cudaFree(slot.ptr);
    if (slot.done != nullptr) cudaEventDestroy(slot.done);
  }
}

Scratch::Lease Scratch::lease(std::size_t bytes, cudaStream_t stream) {
  std::unique_lock<std::mutex> lock(mutex_);
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  Slot& slot = slots_[device];
  if (slot.done == nullptr) CUDA_CHECK(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming));
  if (bytes > slot.bytes) {
    CUDA_CHECK(cudaEventSynchronize(slot.done));  // the previous lease's work is done with the old buffer
    if (slot.ptr != nullptr) CUDA_CHECK(cudaFree(slot.ptr));
    slot.ptr = nullptr;
    slot.bytes = 0;
    CUDA_CHECK(cudaMalloc(&slot.ptr, bytes));
    slot.bytes = bytes;
  }
  CUDA_CHECK(cudaStreamWaitEvent(stream, slot.done, 0));
  return Lease(std::move(lock), slot.ptr, slot.done, stream);
}

}  // namespace tut
