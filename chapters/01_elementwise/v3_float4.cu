/// @file
/// @brief v3: 16-byte float4 loads and stores, with a scalar head and tail for any n and alignment.
#include <algorithm>
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "elementwise.hpp"

namespace elementwise {

/// @brief out = a + b with float4 accesses for the aligned middle, scalars for head and tail.
///
/// Layout of the n elements (`head` = elements before the first 16-byte boundary, the same for
/// all three pointers; computed by the launcher):
///
///     [0, head)                    scalar   (at most 3 elements)
///     [head, head + 4 * n_vec)     float4   (n_vec whole vectors)
///     [head + 4 * n_vec, n)        scalar   (at most 3 elements)
///
/// If the pointers are misaligned differently, head = n and everything is scalar (correct,
/// slower): a float4 access must be 16-byte aligned, or the kernel faults.
// [kernel]
__global__ void add_v3_float4(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                              std::int64_t n, std::int64_t head) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t n_vec = (n - head) / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a + head);  // 16-byte aligned by choice of head
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* out4 = reinterpret_cast<float4*>(out + head);

  for (std::int64_t v = first; v < n_vec; v += stride) {
    const float4 x = a4[v];  // one 16-byte load (LDG.E.128) instead of four 4-byte loads
    const float4 y = b4[v];
    out4[v] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  for (std::int64_t i = first; i < head; i += stride) out[i] = a[i] + b[i];  // head
  for (std::int64_t i = head + 4 * n_vec + first; i < n; i += stride) out[i] = a[i] + b[i];  // tail
}
// [kernel]

/// @brief v3: float4 (16-byte) loads and stores in a grid-stride loop.
///
/// **Idea.** Move 16 bytes per load instruction instead of 4. A quarter of the load/store
/// instructions and of the address arithmetic for the same bytes, and each request carries
/// four times the data, so fewer requests are needed to keep the same bytes in flight.
///
/// **Changed since v2.** The loop runs over float4s; a scalar head aligns the start, a scalar
/// tail finishes the last n % 4 elements. `__restrict__` promises the arrays do not overlap.
///
/// **What is still wrong.** Each thread has one 16-byte load per input in flight per loop
/// trip: the next trip's loads wait for this trip's store.
///
/// **Predicted.** A few percent over v2 on an H100 (v2 is already near the roof; the gain of
/// wider accesses is larger on GPUs where the load pipeline, not DRAM, is the limit).
///
/// **Measured (H200, n = 2^28).** 4133 GB/s, 97% of the copy roof: 13% over v2, much more than the
/// few percent predicted. On Hopper the 4-byte loads were costing more than we thought. **H100 run
/// at 0b38325 (the chapter page's table):** 1.11 ms, 2890 GB/s, 96.2% of the copy roof, 0.964x
/// cudaMemcpy: 4.9% over v2, the few percent predicted.
// [launch]
void launch_add_v3_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const std::int64_t head = float4_peel(n, a, b, out);
  const std::int64_t work = std::max((n - head) / 4, head) + 1;  // float4s (or scalars, if all-scalar)
  const unsigned blocks = tut::grid_stride_blocks(add_v3_float4, work, kThreads, kThreads);
  add_v3_float4<<<blocks, kThreads, 0, stream>>>(a, b, out, n, head);
  CUDA_CHECK_LAUNCH();
}
// [launch]

}  // namespace elementwise
