// The registry of chapter 07: the only list of versions (executable, --list, tests, JSON).
#include <cuda_runtime.h>

#include "common/check.hpp"
#include "conv2d.hpp"

namespace conv2d {

const std::vector<Version>& versions() {
  using tut::Kind;
  constexpr Precision fp32 = Precision::fp32, bf16 = Precision::bf16;
  constexpr Layout nchw = Layout::nchw, nhwc = Layout::nhwc;
  // max_flops: above it the executable reports "too slow at this size" to keep the default run
  // short; the tests run every version at every size.
  static const std::vector<Version> list = {
      {{"v00_naive_nchw", "[NCHW fp32] one thread per output, every operand from global memory", 75, Kind::ours},
       {fp32, nchw, launch_conv2d_v00_naive, nullptr, false}, nullptr, 1e10},
      {{"v01_smem_tile_nchw", "[NCHW fp32] 16x16 output tile per block; input tile with halo and filter taps in shared memory",
        75, Kind::ours},
       {fp32, nchw, launch_conv2d_v01_smem_tile, nullptr, false}, supports_v01, 2e10},
      {{"v02_register_tile_nchw", "[NCHW fp32] 8 output channels x 8 outputs of a row per thread, from shared tiles", 75,
        Kind::ours},
       {fp32, nchw, launch_conv2d_v02_register_tile, nullptr, false}, supports_v02, 0.0},
      {{"v03_im2col_cublas_nchw", "[NCHW fp32] im2col matrix written out, then cuBLAS SGEMM (batched over N)", 75,
        Kind::ours},
       {fp32, nchw, launch_conv2d_v03_im2col_cublas, nullptr, false}, supports_v03, 0.0},
      {{"v04_implicit_gemm_nhwc", "[NHWC fp32] implicit GEMM: im2col addresses in the tile loader, 128x64 tiles, cp.async, split-K",
        80, Kind::ours},
       {fp32, nhwc, launch_conv2d_v04_implicit_gemm, nullptr, false}, nullptr, 0.0},
      {{"v05_winograd_nhwc", "[NHWC fp32] Winograd F(2x2,3x3): transforms + v04's kernel as 16 batched 1x1 GEMMs", 80,
        Kind::ours},
       {fp32, nhwc, launch_conv2d_v05_winograd, nullptr, true}, supports_v05, 0.0},
      {{"v06_winograd_fused_nhwc",
        "[NHWC fp32] fused Winograd F(2x2,3x3): input transform, 16 GEMMs and output transform in one kernel", 80,
        Kind::ours},
       {fp32, nhwc, launch_conv2d_v06_winograd_fused, nullptr, true}, supports_v06, 0.0},
      {{"v07_mma_bf16_nhwc", "[NHWC bf16] implicit GEMM on tensor cores: mma.sync m16n8k16, ldmatrix, swizzle, 4 cp.async stages",
        80, Kind::ours},
       {bf16, nhwc, nullptr, launch_conv2d_v07_mma_bf16, false}, supports_v07, 0.0},
      {{"v08_wgmma_bf16_nhwc",
        "[NHWC bf16] v07 with Hopper's wgmma m64n64k16 from 128-byte-swizzled shared memory (C % 64 == 0, sm_90a)", 90,
        Kind::ours},
       {bf16, nhwc, nullptr, launch_conv2d_v08_wgmma_bf16, false}, supports_v08, 0.0},
      {{"v09_lean_wgmma_bf16_nhwc",
        "[NHWC bf16] v08 with less integer work: one pointer per row and one offset per slice, persistent 64x64 tiles (sm_90a)",
        90, Kind::ours},
       {bf16, nhwc, nullptr, launch_conv2d_v09_lean_wgmma_bf16, false}, supports_v08, 0.0},
      {{"v10_padded_channels_bf16_nhwc",
        "[NHWC bf16] v07 on x and w padded with zero channels to a multiple of 8, for layers whose C is not (the stem)", 80,
        Kind::ours},
       {bf16, nhwc, nullptr, launch_conv2d_v10_padded_channels, false}, supports_v10, 0.0},
      {{"v11_tma_im2col_bf16_nhwc",
        "[NHWC bf16] v09 with its copies on TMA: an im2col tensor map for x, a tiled one for w, a producer warp and mbarriers (sm_90a)",
        90, Kind::ours},
       {bf16, nhwc, nullptr, launch_conv2d_v11_tma_im2col_bf16, false}, supports_v11, 0.0},
      {{"v12_tma_store_bf16_nhwc",
        "[NHWC bf16] v11 with the epilogue through shared memory (swizzled) and one TMA store per tile (sm_90a)", 90,
        Kind::ours},
       {bf16, nhwc, nullptr, launch_conv2d_v12_tma_store_bf16, false}, supports_v11, 0.0},
      {{"v13_shared_filters_bf16_nhwc",
        "[NHWC bf16] v12 with 128-pixel tiles where they fill the GPU: two consumer warpgroups share each filter slice (sm_90a)",
        90, Kind::ours},
       {bf16, nhwc, nullptr, launch_conv2d_v13_shared_filters_bf16, false}, supports_v11, 0.0},
      {{"v14_one_wave_bf16_nhwc",
        "[NHWC bf16] v13 with 192-pixel tiles where one wave of them covers the layer: three warpgroups share each filter slice (sm_90a)",
        90, Kind::ours},
       {bf16, nhwc, nullptr, launch_conv2d_v14_one_wave_bf16, false}, supports_v11, 0.0},
      {{"cudnn_fp32_nchw", "[NCHW fp32] cuDNN forward, FMA math (no TF32), fastest algorithm found", 75, Kind::library},
       {fp32, nchw, launch_cudnn_fp32_nchw, nullptr, false}, supports_cudnn, 0.0},
      {{"cudnn_fp32_nhwc", "[NHWC fp32] cuDNN forward, FMA math (no TF32), fastest algorithm found", 75, Kind::library},
       {fp32, nhwc, launch_cudnn_fp32_nhwc, nullptr, false}, supports_cudnn, 0.0},
      {{"cudnn_bf16_nchw", "[NCHW bf16] cuDNN forward, tensor-op math, fp32 accumulation, fastest algorithm found", 80,
        Kind::library},
       {bf16, nchw, nullptr, launch_cudnn_bf16_nchw, false}, supports_cudnn, 0.0},
      {{"cudnn_bf16_nhwc", "[NHWC bf16] cuDNN forward, tensor-op math, fp32 accumulation, fastest algorithm found", 80,
        Kind::library},
       {bf16, nhwc, nullptr, launch_cudnn_bf16_nhwc, false}, supports_cudnn, 0.0},
  };
  return list;
}

int sm_count() {
  static int cached[64] = {};
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) dev = 0;
  if (cached[dev] == 0) CUDA_CHECK(cudaDeviceGetAttribute(&cached[dev], cudaDevAttrMultiProcessorCount, dev));
  return cached[dev];
}

}  // namespace conv2d
