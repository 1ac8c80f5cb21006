/// @file
/// @brief `attention_pipe_probe`: which of the SM's pipes the softmax's instructions share, measured
/// (v23's page section). Each kernel runs eight independent chains of one instruction (or of one of
/// each of two instructions) per thread, 16 warps per SM on every SM; the table gives the results
/// per cycle and SM of each instruction of the loop. Two instructions on different pipes together
/// take the time of the slower one; on one pipe, the sum of their times. Hopper (sm_90) only: the
/// bf16x2 exponential needs it, and the target is compiled for sm_90a alone. No arguments (`--help` says so).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/check.hpp"

namespace {

constexpr int kChains = 8;     // independent chains per thread: enough to cover each pipe's latency
constexpr int kSteps = 512;    // loop trips timed
constexpr int kThreads = 512;  // 16 warps per block, one block per SM

// One instruction each, as inline PTX so that the compiler neither removes nor merges them.
__device__ __forceinline__ float ex2_f32(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ std::uint32_t cvt_bf16x2(std::uint32_t a, std::uint32_t b) {
  std::uint32_t d;
  asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b)));
  return d;
}
__device__ __forceinline__ float max_f32(float a) {
  float d;
  asm volatile("max.f32 %0, %1, -1.0;" : "=f"(d) : "f"(a));
  return d;
}
__device__ __forceinline__ float add_f32(float a) {
  float d;
  asm volatile("add.f32 %0, %1, 0f3F800000;" : "=f"(d) : "f"(a));
  return d;
}
__device__ __forceinline__ std::uint32_t ex2_f16x2(std::uint32_t a) {
  std::uint32_t d;
  asm volatile("ex2.approx.f16x2 %0, %1;" : "=r"(d) : "r"(a));
  return d;
}
__device__ __forceinline__ std::uint32_t ex2_bf16x2(std::uint32_t a) {
  std::uint32_t d;
  asm volatile("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(d) : "r"(a));
  return d;
}

enum Op : unsigned { kEx2 = 1, kPack = 2, kMax = 4, kAdd = 8, kEx2F16x2 = 16, kEx2Bf16x2 = 32 };

/// The loop: each chain feeds an instruction its own last result (a float chain and an integer one).
template <unsigned kOps>
__global__ void __launch_bounds__(kThreads) probe(float* sink, long long* cycles) {
  float x[kChains];
  std::uint32_t u[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    x[c] = -0.001f * static_cast<float>(threadIdx.x + c);
    u[c] = __float_as_uint(x[c]);
  }
  __syncthreads();
  const long long start = clock64();
  for (int i = 0; i < kSteps; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      if (kOps & kEx2) x[c] = ex2_f32(x[c]);
      if (kOps & kPack) u[c] = cvt_bf16x2(u[c], u[c] ^ 1u);
      if (kOps & kMax) x[c] = max_f32(x[c]);
      if (kOps & kAdd) x[c] = add_f32(x[c]);
      if (kOps & kEx2F16x2) u[c] = ex2_f16x2(u[c]);
      if (kOps & kEx2Bf16x2) u[c] = ex2_bf16x2(u[c]);
    }
  }
  __syncthreads();
  const long long stop = clock64();
  float keep = 0.0f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) keep += x[c] + __uint_as_float(u[c]);
  sink[blockIdx.x * blockDim.x + threadIdx.x] = keep;
  if (threadIdx.x == 0) cycles[blockIdx.x] = stop - start;
}

/// Runs probe<kOps> on every SM (once to warm up, once timed) and prints the results per cycle and
/// SM of each instruction of the loop (a pair of bf16 or f16 values counts as one result).
template <unsigned kOps>
void row(const char* what, int sms, float* sink, long long* cycles) {
  for (int rep = 0; rep < 2; ++rep) {
    probe<kOps><<<sms, kThreads>>>(sink, cycles);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<long long> c(static_cast<std::size_t>(sms));
  CUDA_CHECK(cudaMemcpy(c.data(), cycles, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  double mean = 0.0;
  for (long long v : c) mean += static_cast<double>(v) / sms;
  std::printf("| %-58s | %6.1f |\n", what, double(kThreads) * kSteps * kChains / mean);
}

}  // namespace

/// Prints the probe's table (the rows v23's section quotes) for the current GPU; exit status 1
/// without a usable sm_90 GPU, 2 for any argument but --help.
int main(int argc, char** argv) {
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("usage: attention_pipe_probe\n"
                "Measures, on the current GPU (sm_90), the results per cycle and SM of the softmax's\n"
                "instructions alone and in pairs: which pipes they share (chapter 08, v23).\n");
    return 0;
  }
  if (argc != 1) {
    std::fprintf(stderr, "attention_pipe_probe: error: takes no arguments (--help says what it does)\n");
    return 2;
  }
  int device = 0, count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "attention_pipe_probe: no usable CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  if (prop.major != 9) {  // its code is sm_90a's alone, which no other GPU runs
    std::fprintf(stderr, "attention_pipe_probe: needs a Hopper GPU, sm_90 (this one is sm_%d%d)\n", prop.major, prop.minor);
    return 1;
  }
  float* sink = nullptr;
  long long* cycles = nullptr;
  CUDA_CHECK(cudaMalloc(&sink, sizeof(float) * kThreads * prop.multiProcessorCount));
  CUDA_CHECK(cudaMalloc(&cycles, sizeof(long long) * prop.multiProcessorCount));
  std::printf("%s: results per cycle and SM, %d warps per SM, %d chains per thread\n\n", prop.name, kThreads / 32,
              kChains);
  std::printf("| %-58s | %6s |\n|---|---:|\n", "instructions in the loop (each counted alone)", "result");
  const int sms = prop.multiProcessorCount;
  row<kEx2>("MUFU.EX2 (ex2.approx.ftz.f32)", sms, sink, cycles);
  row<kPack>("F2FP.BF16.F32.PACK_AB (cvt.rn.bf16x2.f32)", sms, sink, cycles);
  row<kMax>("FMNMX (max.f32)", sms, sink, cycles);
  row<kAdd>("FADD (add.f32)", sms, sink, cycles);
  row<kEx2 | kPack>("MUFU.EX2 and F2FP, one of each per step", sms, sink, cycles);
  row<kPack | kMax>("F2FP and FMNMX, one of each per step", sms, sink, cycles);
  row<kPack | kAdd>("F2FP and FADD, one of each per step", sms, sink, cycles);
  row<kEx2F16x2>("ex2.approx.f16x2 (a pair per result)", sms, sink, cycles);
  row<kEx2Bf16x2>("ex2.approx.ftz.bf16x2 (a pair per result)", sms, sink, cycles);
  CUDA_CHECK(cudaFree(sink));
  CUDA_CHECK(cudaFree(cycles));
  return 0;
}
