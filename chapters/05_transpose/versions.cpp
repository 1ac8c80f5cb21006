// The registry of chapter 05: the only list of versions (executable, --list, tests, JSON), the
// traffic model, and the vector-path test shared by v05-v09.
#include <cstdint>

#include "transpose.hpp"

namespace transpose {

const std::vector<Version>& versions() {
  using tut::Kind;
  static const std::vector<Version> list = {
      {{"copy_tile", "roof: B = A with v04's tile mapping (reads and writes coalesced)", 75, Kind::ours},
       Output::copied, launch_copy_tile, nullptr},
      {{"copy_shared", "roof: the same copy through a shared-memory tile", 75, Kind::ours},
       Output::copied, launch_copy_shared, nullptr},
      {{"v00_read_coalesced", "naive: threads along A's rows, coalesced reads, strided writes", 75, Kind::ours},
       Output::transposed, launch_transpose_v00_read_coalesced, nullptr},
      {{"v01_write_coalesced", "naive: threads along A's columns, strided reads, coalesced writes", 75, Kind::ours},
       Output::transposed, launch_transpose_v01_write_coalesced, nullptr},
      {{"v02_smem_tile", "32x32 shared-memory tile: both sides coalesced, 32-way bank conflicts", 75, Kind::ours},
       Output::transposed, launch_transpose_v02_smem_tile, nullptr},
      {{"v03_padded_tile", "tile[32][33]: one padding column removes the bank conflicts", 75, Kind::ours},
       Output::transposed, launch_transpose_v03_padded_tile, nullptr},
      {{"v04_tile_32x8", "padded tile with 32x8 threads, 4 elements per thread", 75, Kind::ours},
       Output::transposed, launch_transpose_v04_tile_32x8, nullptr},
      {{"v05_float4_swizzle", "float4 loads and stores, XOR-swizzled tile (R, C % 4 == 0)", 75, Kind::ours},
       Output::transposed, launch_transpose_v05_float4_swizzle, nullptr},
      {{"v06_four_tiles", "v05 with four 32x32 tiles per block: 4 float4 loads in flight", 75, Kind::ours},
       Output::transposed, launch_transpose_v06_four_tiles, nullptr},
      {{"v07_diagonal", "experiment: v06 with the tiles visited in diagonal order", 75, Kind::ours},
       Output::transposed, launch_transpose_v07_diagonal, nullptr},
      {{"v08_tma", "Hopper TMA: tiles moved by cp.async.bulk.tensor, mbarrier, 2 stages", 90, Kind::ours},
       Output::transposed, launch_transpose_v08_tma, tma_unavailable},
      {{"v09_tuned_tiles", v9_summary(), 75, Kind::ours},
       Output::transposed, launch_transpose_v09_tuned_tiles, v9_unavailable},
      {{"v10_tma_tuned", v10_summary(), 90, Kind::ours},
       Output::transposed, launch_transpose_v10_tma_tuned, tma_unavailable},
      {{"cudaMemcpy", "cudaMemcpyAsync device-to-device of the same bytes: the roof", 75, Kind::library},
       Output::copied, launch_copy_memcpy, nullptr},
      {{"cublasSgeam", "cuBLAS: cublasSgeam(CUBLAS_OP_T) on the column-major views", 75, Kind::library},
       Output::transposed, launch_cublas_geam, nullptr},
  };
  return list;
}

bool vector_path(const float* A, const float* B, std::int64_t R, std::int64_t C) {
  const auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return R % 4 == 0 && C % 4 == 0 && aligned(A) && aligned(B);
}

}  // namespace transpose
