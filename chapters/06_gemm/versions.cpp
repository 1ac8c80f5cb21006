// The registry of chapter 06: the only list of versions (executable, --list, tests, JSON).
#include "gemm.hpp"

namespace gemm {

namespace {

/// FLOPs of an n x n x n problem: the per-version caps below are written in these terms.
constexpr double cube_flops(double n) { return 2.0 * n * n * n; }

}  // namespace

const std::vector<Version>& versions() {
  using tut::Kind;
  constexpr Precision fp32 = Precision::fp32, tf32 = Precision::tf32, bf16 = Precision::bf16;
  // max_flops: above it the executable reports "too slow at this size" to keep the default run
  // short (v00 takes seconds per run at 4096^3); the tests run every version at every size.
  static const std::vector<Version> list = {
      {{"v00_naive", "one thread per C element, threadIdx.x walks down a column (uncoalesced)", 75, Kind::ours},
       {fp32, launch_gemm_v00_naive, nullptr}, cube_flops(2048)},
      {{"v01_coalesced", "one thread per C element, threadIdx.x walks along a row (coalesced)", 75, Kind::ours},
       {fp32, launch_gemm_v01_coalesced, nullptr}, cube_flops(4096)},
      {{"v02_smem_tiles", "32x32 tiles of A and B staged in shared memory", 75, Kind::ours},
       {fp32, launch_gemm_v02_smem_tiles, nullptr}, cube_flops(4096)},
      {{"v03_blocktile_1d", "64x64 block tile, a column of 8 outputs per thread", 75, Kind::ours},
       {fp32, launch_gemm_v03_blocktile_1d, nullptr}, 0.0},
      {{"v04_blocktile_2d", "128x128 block tile, BK=8, an 8x8 register tile per thread", 75, Kind::ours},
       {fp32, launch_gemm_v04_blocktile_2d, nullptr}, 0.0},
      {{"v05_vectorized", "float4 global loads, A transposed in shared memory, float4 shared reads", 75, Kind::ours},
       {fp32, launch_gemm_v05_vectorized, nullptr}, 0.0},
      {{"v06_warptile", "32x64 warp tiles of 4x8 lanes: compact per-warp shared-memory footprint", 75, Kind::ours},
       {fp32, launch_gemm_v06_warptile, nullptr}, 0.0},
      {{"v07_pipelined", "3-stage cp.async pipeline: loads of later k-slices overlap the math", 80, Kind::ours},
       {fp32, launch_gemm_v07_pipelined, nullptr}, 0.0},
      {{"v08_tuned", "v07's kernel with the parameters that won the search (gemm_tune)", 80, Kind::ours},
       {fp32, launch_gemm_v08_tuned, nullptr}, 0.0},
      {{"v09_by_shape", "fp32: v07's kernel in the configuration chosen by shape (tile count, B's alignment), as a library does", 80, Kind::ours},
       {fp32, launch_gemm_v09_by_shape, nullptr}, 0.0},
      {{"v10_wmma_tf32", "tensor cores via WMMA: TF32 16x16x8 fragments, fp32 accumulate", 80, Kind::ours},
       {tf32, launch_gemm_v10_wmma_tf32, nullptr}, 0.0},
      {{"v11_mma_bf16", "mma.sync m16n8k16 BF16 in PTX, ldmatrix, swizzled smem, 3 cp.async stages of BK 64, double-buffered fragments, 2 blocks/SM", 80, Kind::ours},
       {bf16, nullptr, launch_gemm_v11_mma_bf16}, 0.0},
      {{"v12_tma_wgmma", "TMA loads (128-byte swizzle) into a 4-stage mbarrier ring, wgmma m64n128k16 from shared memory, one warpgroup, 128x128 tiles", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v12_tma_wgmma}, 0.0, hopper_unavailable},
      {{"v13_two_warpgroups", "v12's kernel with 128x256 tiles: two warpgroups, each issuing m64n256k16", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v13_two_warpgroups}, 0.0, hopper_unavailable},
      {{"v14_warp_specialized", "a producer warpgroup issuing TMA, two consumer warpgroups issuing wgmma, setmaxnreg 40/232", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v14_warp_specialized}, 0.0, hopper_unavailable},
      {{"v15_persistent", "v14 as a persistent grid: one block per SM strides over the tiles in grouped order", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v15_persistent}, 0.0, hopper_unavailable},
      {{"v16_tma_store", "v15 with the epilogue through shared memory (swizzled boxes) and TMA stores", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v16_tma_store}, 0.0, hopper_unavailable},
      {{"v17_cluster_multicast", "v16 in clusters of 2 CTAs along M sharing B through TMA multicast", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v17_cluster_multicast}, 0.0, hopper_unavailable},
      {{"v18_tile_by_waves", "v16, with 128x128 tiles where their waves end sooner than 128x256 tiles' (wave quantization)", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v18_tile_by_waves}, 0.0, hopper_unavailable},
      {{"v19_split_k", "v18, with each 128x128 tile's k-slices split over blocks that add into C through TMA reduce-adds where the tiles leave SMs idle", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v19_split_k}, 0.0, hopper_unavailable},
      {{"v20_narrow_tiles", "v18's choice by waves over three tiles: 128x256, 128x128 and 128x64 (wgmma n = 64), no split", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v20_narrow_tiles}, 0.0, hopper_unavailable},
      {{"v21_wgmma_tf32", "TF32 on the warp-specialized TMA + wgmma pipeline: C^T = B^T A^T, A's tile the K-major shared-memory operand, B^T's fragments from registers, m64n256k8", 90, Kind::ours},
       {tf32, launch_gemm_v21_wgmma_tf32, nullptr}, 0.0, hopper_unavailable},
      {{"v22_split_tf32", "fp32 from TF32 tensor cores: each operand split into hi + lo TF32 parts, three wgmma products (v21's kernel), fp32 accumulation", 90, Kind::ours},
       {fp32, launch_gemm_v22_split_tf32, nullptr}, 0.0, hopper_unavailable},
      {{"v23_tf32_tile_by_waves", "v21 with 256, 128 or 64 rows of C per block, chosen by how the waves fill the GPU (v18's rule, for TF32)", 90, Kind::ours},
       {tf32, launch_gemm_v23_tf32_tile_by_waves, nullptr}, 0.0, hopper_unavailable},
      {{"v24_cluster_split_k", "v20, with each 128x128 tile's k-slices split over the two CTAs of a cluster where the tiles leave SMs idle, the halves added through distributed shared memory", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v24_cluster_split_k}, 0.0, hopper_unavailable},
      {{"v25_descriptor_steps", "v24, with each wgmma's shared-memory descriptors advanced by a constant per k-step instead of rebuilt from the stage's address", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v25_descriptor_steps}, 0.0, hopper_unavailable},
      {{"v26_serpentine_ffma", "fp32: v09, each thread's FFMAs walking its tile in a serpentine (row i left to right, row i + 1 right to left)", 80, Kind::ours},
       {fp32, launch_gemm_v26_serpentine_ffma, nullptr}, 0.0},
      {{"v27_sleeping_waits", "v25, with the stage waits' mbarrier.try_wait given a suspend-time hint: waiting warps sleep instead of polling the barriers", 90, Kind::ours},
       {bf16, nullptr, launch_gemm_v27_sleeping_waits}, 0.0, hopper_unavailable},
      {{"cublas_sgemm", "cuBLAS SGEMM, default math mode (fp32 FFMA)", 75, Kind::library},
       {fp32, launch_cublas_sgemm, nullptr}, 0.0},
      {{"cublas_tf32", "cuBLAS GemmEx, CUBLAS_COMPUTE_32F_FAST_TF32 (TF32 tensor cores)", 80, Kind::library},
       {tf32, launch_cublas_tf32, nullptr}, 0.0},
      {{"cublas_bf16", "cuBLAS GemmEx, BF16 inputs, fp32 accumulate and output", 80, Kind::library},
       {bf16, nullptr, launch_cublas_bf16}, 0.0},
  };
  return list;
}

}  // namespace gemm
