// The registry of chapter 04: the only list of versions (executable, --list, tests, JSON), the
// traffic model, and the host-side launch planning helpers shared by the versions.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gemv.hpp"

namespace gemv {

namespace {

/// v5 is written for rows of at most 128 floats (at most 32 float4s: one warp or less).
std::string short_rows_only(std::int64_t /*M*/, std::int64_t K) {
  if (K <= 128) return "";
  return "written for short rows (K <= 128); with K = " + std::to_string(K) + " it is v3 with extra arithmetic";
}

/// v6 is written for rows long enough to split (K >= 4096).
std::string long_rows_only(std::int64_t /*M*/, std::int64_t K) {
  if (K >= 4096) return "";
  return "written for long rows (K >= 4096); with K = " + std::to_string(K) + " one warp per row already fills the GPU";
}

}  // namespace

const char* op_name(Op op) { return op == Op::Ax ? "Ax" : "ATx"; }

double flops(std::int64_t M, std::int64_t K) { return 2.0 * static_cast<double>(M) * static_cast<double>(K); }

const std::vector<Version>& versions() {
  using tut::Kind;
  static const std::vector<Version> list = {
      // y = A x
      {{"v0_thread_per_row", "one thread per row: each warp load touches 32 rows (uncoalesced)", 75, Kind::ours},
       Op::Ax, launch_gemv_v0_thread_per_row, nullptr},
      {{"v1_block_per_row", "one block per row, coalesced, shared-memory tree reduction", 75, Kind::ours},
       Op::Ax, launch_gemv_v1_block_per_row, nullptr},
      {{"v2_warp_per_row", "one warp per row, 8 rows per block, shuffle reduction", 75, Kind::ours},
       Op::Ax, launch_gemv_v2_warp_per_row, nullptr},
      {{"v3_warp_float4", "warp per row with float4 loads, scalar head/tail for any K", 75, Kind::ours},
       Op::Ax, launch_gemv_v3_warp_float4, nullptr},
      {{"v4_float4_ilp", "v3 with 4 float4 loads in flight per lane", 75, Kind::ours},
       Op::Ax, launch_gemv_v4_float4_ilp, nullptr},
      {{"v5_short_rows", "short rows (K <= 128): several rows per warp", 75, Kind::ours},
       Op::Ax, launch_gemv_v5_short_rows, short_rows_only},
      {{"v6_split_k", "long rows (K >= 4096): K split across blocks, atomicAdd", 75, Kind::ours},
       Op::Ax, launch_gemv_v6_split_k, long_rows_only},
      {{"cublasSgemv_Ax", "cuBLAS: cublasSgemv(CUBLAS_OP_T) on the column-major view", 75, Kind::library},
       Op::Ax, launch_cublas_gemv_ax, nullptr},
      // y = A^T x
      {{"t0_thread_per_column", "one thread per column: coalesced, but only K threads", 75, Kind::ours},
       Op::ATx, launch_gemvt_t0_thread_per_column, nullptr},
      {{"t1_split_rows", "rows split across 8 warps and across blocks, atomicAdd", 75, Kind::ours},
       Op::ATx, launch_gemvt_t1_split_rows, nullptr},
      {{"t2_float4_columns", "t1 with 4 columns per lane (float4) and unrolled rows", 75, Kind::ours},
       Op::ATx, launch_gemvt_t2_float4_columns, nullptr},
      {{"t3_streaming_loads", "t2 reading A with the streaming hint (__ldcs: evict-first in L2)", 75, Kind::ours},
       Op::ATx, launch_gemvt_t3_streaming_loads, nullptr},
      {{"t4_overlap_clear", "t3 with y cleared by a kernel that the main one overlaps (dependent launch)", 75,
        Kind::ours},
       Op::ATx, launch_gemvt_t4_overlap_clear, nullptr},
      {{"t5_fine_split", "t4 with the rows cut finer: 16 waves of blocks, chunks from 16 rows", 75, Kind::ours},
       Op::ATx, launch_gemvt_t5_fine_split, nullptr},
      {{"cublasSgemv_ATx", "cuBLAS: cublasSgemv(CUBLAS_OP_N) on the column-major view", 75, Kind::library},
       Op::ATx, launch_cublas_gemv_atx, nullptr},
  };
  return list;
}

SplitPlan plan_split(std::int64_t length, std::int64_t blocks_per_split, std::int64_t target_blocks,
                     std::int64_t min_chunk, std::int64_t align) {
  if (length < 1 || blocks_per_split < 1 || min_chunk < 1 || align < 1) {
    throw std::invalid_argument("plan_split: every argument must be positive");
  }
  SplitPlan plan;
  std::int64_t splits = 1;
  if (blocks_per_split < target_blocks) {
    const std::int64_t wanted = (target_blocks + blocks_per_split - 1) / blocks_per_split;
    const std::int64_t most = std::max<std::int64_t>(1, length / min_chunk);  // every chunk >= min_chunk
    splits = std::min({wanted, most, std::int64_t{65535}});
  }
  std::int64_t chunk = (length + splits - 1) / splits;
  chunk = (chunk + align - 1) / align * align;
  plan.chunk = chunk;
  plan.splits = (length + chunk - 1) / chunk;  // rounding up the chunk may leave fewer, never empty, splits
  return plan;
}

int short_row_lanes(std::int64_t K, bool vectorized) {
  const std::int64_t items = vectorized ? (K + 3) / 4 : K;
  int lanes = 1;
  while (lanes < 32 && lanes < items) lanes *= 2;
  return lanes;
}

std::int64_t float4_peel(const float* p, std::int64_t n) {
  const auto misalign = reinterpret_cast<std::uintptr_t>(p) % 16;
  const std::int64_t peel = static_cast<std::int64_t>((16 - misalign) % 16 / sizeof(float));
  return std::min(peel, n);
}

}  // namespace gemv
