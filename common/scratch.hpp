/// @file
/// @brief tut::Scratch: device memory a launcher keeps between calls (a padded copy of an
/// operand, transformed filters), one buffer per device for the whole process, lent to one call
/// at a time in stream order.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

namespace tut {

/// Scratch memory shared by every call of a launcher in the process (a function-local static).
/// A call leases it for the work it enqueues on its stream: the lease waits, on the GPU, for the
/// work of the previous lease, on whatever stream that ran, and keeps other host threads out
/// until it ends; when it ends, it records that point. So calls on several streams at once (a
/// PyTorch user's) never share the bytes, and a call on the stream of the previous one waits for
/// nothing. The buffer grows when a call needs more (reallocating after the previous lease's
/// work is done: the untimed first call of a larger size) and is freed at exit.
class Scratch {
 public:
  /// The bytes of one call, valid for the work enqueued on `stream` while the lease lives.
  class Lease {
   public:
    /// Takes the lease over (the moved-from object then records nothing).
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;       ///< a lease is not reassigned
    Lease(const Lease&) = delete;             ///< nor copied
    Lease& operator=(const Lease&) = delete;  ///< (see above)
    /// Records the point after the work enqueued on the stream so far, and lets other threads in.
    ~Lease();
    /// The leased bytes (256-byte aligned, as cudaMalloc returns them).
    void* data() const { return data_; }
    /// The bytes at `offset` (a multiple of the type's alignment) as T*.
    template <class T>
    T* at(std::size_t offset = 0) const {
      return reinterpret_cast<T*>(static_cast<unsigned char*>(data_) + offset);
    }

   private:
    friend class Scratch;
    Lease(std::unique_lock<std::mutex> lock, void* data, cudaEvent_t done, cudaStream_t stream)
        : lock_(std::move(lock)), data_(data), done_(done), stream_(stream) {}
    std::unique_lock<std::mutex> lock_;
    void* data_ = nullptr;
    cudaEvent_t done_ = nullptr;
    cudaStream_t stream_ = nullptr;
  };

  Scratch() = default;                      ///< no memory until the first lease
  Scratch(const Scratch&) = delete;             ///< one per launcher: not copied
  Scratch& operator=(const Scratch&) = delete;  ///< (see above)
  /// Frees the buffers (at exit; errors are ignored, the CUDA context may be gone).
  ~Scratch();

  /// At least `bytes` bytes on the current device for work on `stream` (see the class comment).
  Lease lease(std::size_t bytes, cudaStream_t stream);

 private:
  struct Slot {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    cudaEvent_t done = nullptr;  ///< recorded when the last lease ended
  };
  std::mutex mutex_;
  std::map<int, Slot> slots_;  ///< by device
};

/// `bytes` rounded up to a multiple of 256: offsets of several arrays in one lease.
inline std::size_t round_up_256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace tut
