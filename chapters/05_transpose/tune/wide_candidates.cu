/// @file
/// @brief The tuning search's plain candidates (the configurations tune::T0 .. T24 of tune.hpp)
/// as registry entries: wide-tile transposes (wide_tiles.cuh, v09's kernel), and the tiled copy
/// of each (copy_wide_tiles(): the roof of that shape and order).
#include <cstdint>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "tune/tune.hpp"
#include "tune/wide_copy.cuh"
#include "wide_tiles.cuh"

namespace transpose {

/// @brief B = A with the tiles, threads and order of the transpose (wide_copy()): the roof of
/// a configuration.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads)
    copy_wide_tiles(const float* __restrict__ A, float* __restrict__ B, std::int64_t R, std::int64_t C,
                    unsigned tiles_r, unsigned tiles_c) {
  const TileCoord t = tile_banded(blockIdx.x, tiles_r, tiles_c, Cfg::kBand);
  wide_copy<Cfg>(A, B, R, C, t.row * Cfg::kRows, t.col * Cfg::kCols, static_cast<int>(threadIdx.x));
}

/// @brief Runs copy_wide_tiles with the configuration `Tile` (a WideTile; B = A) on any R x C >= 1;
/// scalar when vector_path() is false.
template <class Tile>
void launch_copy_wide_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  using Cfg = WideTileConfig<Tile>;
  if (R <= 0 || C <= 0) return;
  if constexpr (Cfg::kVector) {
    if (!vector_path(A, B, R, C)) {
      launch_copy_wide_tiles<ScalarAccesses<Tile>>(A, B, R, C, stream);
      return;
    }
  }
  const std::int64_t tiles_r = ceil_div(R, Cfg::kRows), tiles_c = ceil_div(C, Cfg::kCols);
  const unsigned blocks = tut::blocks_for(tiles_r * tiles_c, 1);
  copy_wide_tiles<Cfg><<<blocks, Cfg::kThreads, 0, stream>>>(A, B, R, C, static_cast<unsigned>(tiles_r),
                                                             static_cast<unsigned>(tiles_c));
  CUDA_CHECK_LAUNCH();
}

namespace {

/// @brief A configuration's name in the search's table: `<prefix><rows>x<cols>_t<threads>_<access>_<order>`,
/// e.g. "tr64x64_t256_f4_g8" is WideTile with order = 8 (tune::T3); access f4 = float4 loads and
/// stores, f1 = scalar both, f1f4 = scalar loads, float4 stores; "_cs" = streaming hints.
template <class Tile>
std::string config_name(const char* prefix) {
  using Cfg = WideTileConfig<Tile>;
  const char* access = Cfg::kVecRead ? "f4" : Cfg::kVecWrite ? "f1f4" : "f1";
  return prefix + std::to_string(Cfg::kRows) + "x" + std::to_string(Cfg::kCols) + "_t" +
         std::to_string(Cfg::kThreads) + "_" + access + "_" + order_name(Cfg::kBand) + (Cfg::kStreaming ? "_cs" : "");
}

/// The transpose of configuration `Tile` as a registry entry ("tr...").
template <class Tile>
Version transpose_candidate() {
  return {{config_name<Tile>("tr"), "transpose: " + config_summary<Tile>(), 75, tut::Kind::ours}, Output::transposed,
          launch_transpose_wide_tiles<Tile>, smem_unavailable<Tile>};
}

/// The copy of configuration `Tile` as a registry entry ("cp...").
template <class Tile>
Version copy_candidate() {
  using Cfg = WideTileConfig<Tile>;
  const bool vec = Cfg::kVecRead && Cfg::kVecWrite;
  return {{config_name<Tile>("cp"),
           "copy B = A: " + std::to_string(Cfg::kRows) + "x" + std::to_string(Cfg::kCols) + " tiles, " +
               std::to_string(Cfg::kThreads) + " threads, " + (vec ? "float4" : "scalar") +
               ", no shared memory, " + (Cfg::kStreaming ? "streaming hints, " : "") + order_summary(Cfg::kBand),
           75, tut::Kind::ours},
          Output::copied, launch_copy_wide_tiles<Tile>, nullptr};
}

}  // namespace

const std::vector<Version>& tune_candidates() {
  static const std::vector<Version> list = [] {
    using namespace tune;
    std::vector<Version> all = {
        transpose_candidate<T0>(), transpose_candidate<T1>(), transpose_candidate<T2>(),
        transpose_candidate<T3>(), transpose_candidate<T4>(), transpose_candidate<T5>(),
        transpose_candidate<T6>(), transpose_candidate<T7>(), transpose_candidate<T8>(),
        transpose_candidate<T9>(), transpose_candidate<T10>(), transpose_candidate<T11>(),
        transpose_candidate<T12>(), transpose_candidate<T13>(), transpose_candidate<T14>(),
        transpose_candidate<T15>(), transpose_candidate<T16>(), transpose_candidate<T17>(),
        transpose_candidate<T18>(), transpose_candidate<T19>(), transpose_candidate<T20>(),
        transpose_candidate<T21>(), transpose_candidate<T22>(), transpose_candidate<T23>(),
        transpose_candidate<T24>(),
        copy_candidate<Copy1D>(), copy_candidate<T0>(), copy_candidate<T1>(), copy_candidate<T2>(),
        copy_candidate<T3>(), copy_candidate<T4>(), copy_candidate<T5>(), copy_candidate<T6>(),
        copy_candidate<T7>(), copy_candidate<T8>(), copy_candidate<T9>(), copy_candidate<T10>(),
        copy_candidate<T13>(), copy_candidate<T20>(), copy_candidate<T21>(), copy_candidate<T23>(),
        copy_candidate<T24>(), copy_candidate<Copy1DStreaming>(),
    };
    for (const Version& v : tune_tma_candidates()) all.push_back(v);
    return all;
  }();
  return list;
}

}  // namespace transpose
