/// @file
/// @brief One-input operations on v4's loop: the copy roof, ReLU, sigmoid, and fusion.
///
/// Every operation here moves the same bytes per element as a copy (one read, one write), so
/// all of them should run at the copy kernel's speed: on a GPU, elementwise arithmetic is free
/// next to the memory traffic. Fusion is the exception that proves it: y = relu(a*x + b) as
/// two kernels moves twice the bytes of the fused kernel, and takes twice the time.
#include <algorithm>
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "elementwise.hpp"

namespace elementwise {

/// float4s each thread loads before it stores any (as in v4).
constexpr int kMapUnroll = 4;

/// @brief y[i] = op(x[i]) with v4's structure: float4 accesses, kMapUnroll loads in flight,
/// scalar head and tail. No `__restrict__`: the unfused pipeline runs it in place (x == y).
template <class Op>
__global__ void map_float4_ilp(const float* x, float* y, std::int64_t n, std::int64_t head, Op op) {
  const std::int64_t n_vec = (n - head) / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  float4* y4 = reinterpret_cast<float4*>(y + head);
  const std::int64_t block_span = static_cast<std::int64_t>(blockDim.x) * kMapUnroll;
  const std::int64_t grid_span = block_span * gridDim.x;
  for (std::int64_t base = blockIdx.x * block_span + threadIdx.x; base < n_vec; base += grid_span) {
    float4 v[kMapUnroll];
#pragma unroll
    for (int u = 0; u < kMapUnroll; ++u) {
      const std::int64_t k = base + u * static_cast<std::int64_t>(blockDim.x);
      if (k < n_vec) v[u] = x4[k];
    }
#pragma unroll
    for (int u = 0; u < kMapUnroll; ++u) {
      const std::int64_t k = base + u * static_cast<std::int64_t>(blockDim.x);
      if (k < n_vec) y4[k] = make_float4(op(v[u].x), op(v[u].y), op(v[u].z), op(v[u].w));
    }
  }
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = first; i < head; i += stride) y[i] = op(x[i]);
  for (std::int64_t i = head + 4 * n_vec + first; i < n; i += stride) y[i] = op(x[i]);
}

/// Launches map_float4_ilp<Op> with a full-wave grid.
template <class Op>
void launch_map(const float* x, float* y, std::int64_t n, cudaStream_t stream, Op op = Op{}) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const std::int64_t head = float4_peel(n, x, x, y);
  const std::int64_t work = std::max((n - head) / 4, head) + 1;
  const unsigned blocks = tut::grid_stride_blocks(map_float4_ilp<Op>, work, kThreads, kThreads * kMapUnroll);
  map_float4_ilp<Op><<<blocks, kThreads, 0, stream>>>(x, y, n, head, op);
  CUDA_CHECK_LAUNCH();
}

/// y = x.
struct Identity {
  /// Returns x.
  __device__ float operator()(float x) const { return x; }
};
/// y = max(x, 0).
struct Relu {
  /// Returns max(x, 0).
  __device__ float operator()(float x) const { return fmaxf(x, 0.0f); }
};
/// y = 1 / (1 + e^-x), with the accurate expf (max 2 ulp), not the __expf intrinsic.
struct Sigmoid {
  /// Returns the logistic function of x.
  __device__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); }
};
/// y = kAlpha * x + kBeta, one rounding (fma).
struct Axpb {
  /// Returns fma(kAlpha, x, kBeta).
  __device__ float operator()(float x) const { return fmaf(kAlpha, x, kBeta); }
};
/// y = max(kAlpha * x + kBeta, 0): Axpb then Relu, in registers.
struct AxpbRelu {
  /// Returns relu(fma(kAlpha, x, kBeta)).
  __device__ float operator()(float x) const { return fmaxf(fmaf(kAlpha, x, kBeta), 0.0f); }
};

/// @brief The best copy kernel: v4's loop with nothing to compute. The roof for our kernels.
void launch_copy_float4_ilp(const float* in, float* out, std::int64_t n, cudaStream_t stream) {
  launch_map<Identity>(in, out, n, stream);
}

/// @brief cudaMemcpyAsync device-to-device: the driver's copy, the bandwidth roof of the table.
void launch_copy_memcpy(const float* in, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  CUDA_CHECK(cudaMemcpyAsync(out, in, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
}

/// @brief y = relu(x) on v4's loop: same bytes as a copy, so the same time.
void launch_relu(const float* x, float* y, std::int64_t n, cudaStream_t stream) { launch_map<Relu>(x, y, n, stream); }

/// @brief y = sigmoid(x) on v4's loop: an exp and a division per element, still memory-bound.
void launch_sigmoid(const float* x, float* y, std::int64_t n, cudaStream_t stream) {
  launch_map<Sigmoid>(x, y, n, stream);
}

/// @brief y = relu(kAlpha*x + kBeta) as two kernels: t = kAlpha*x + kBeta, then y = relu(t).
///
/// The intermediate t goes to memory and comes back: x read, t written, t read, y written,
/// 16 bytes per element (t lives in y: the second kernel runs in place).
void launch_axpb_relu_unfused(const float* x, float* y, std::int64_t n, cudaStream_t stream) {
  launch_map<Axpb>(x, y, n, stream);
  launch_map<Relu>(y, y, n, stream);
}

/// @brief y = relu(kAlpha*x + kBeta) as one kernel: t stays in a register. 8 bytes per element.
///
/// **Predicted.** Half the bytes of the unfused pair, so half its time (2x faster).
void launch_axpb_relu_fused(const float* x, float* y, std::int64_t n, cudaStream_t stream) {
  launch_map<AxpbRelu>(x, y, n, stream);
}

}  // namespace elementwise
