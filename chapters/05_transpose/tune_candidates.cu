/// @file
/// @brief The tuning search's plain candidates: wide-tile transposes (wide_tiles.cuh) that vary
/// one parameter at a time around a 64 x 64 tile, and the tiled copy of each (the roof of that
/// shape and order).
#include <string>
#include <vector>

#include "tune.hpp"
#include "wide_tiles.cuh"

namespace transpose {

/// The configurations the search times. Names in the table: `tr<Rows>x<Cols>_t<Threads>_<access>_<order>`
/// (config_name()); each is also timed as a copy (`cp...`), except T11, whose copy would be T10's.
// [candidates]
namespace tune {
/// v5's tile (32 x 32, one float4 per thread), row-major, with the interior fast path.
using T0 = TileConfig<32, 32, 256, true, true, kRowMajor>;
/// v6's tile (64 x 64, four float4 loads per thread), row-major.
using T1 = TileConfig<64, 64, 256, true, true, kRowMajor>;
/// Order: column-major (B rows written in long runs, A rows read in 256-byte pieces).
using T2 = TileConfig<64, 64, 256, true, true, kColMajor>;
/// Order: bands of 8 tile rows (runs of ~2 KiB on both sides).
using T3 = TileConfig<64, 64, 256, true, true, 8>;
/// Order: bands of 32 tile rows.
using T4 = TileConfig<64, 64, 256, true, true, 32>;
/// Bytes in flight: 128 threads x 8 float4 loads (13 blocks, 208 KiB of loads per SM).
using T5 = TileConfig<64, 64, 128, true, true, 8>;
/// Shape: 32 x 128 (each block reads 512-byte pieces of A rows, writes 128-byte pieces of B rows).
using T6 = TileConfig<32, 128, 256, true, true, 8>;
/// Shape: 128 x 32 (128-byte pieces of A rows, 512-byte pieces of B rows).
using T7 = TileConfig<128, 32, 256, true, true, 8>;
/// Shape: 128 x 64, 8 float4 loads per thread.
using T8 = TileConfig<128, 64, 256, true, true, 8>;
/// Shape: 128 x 128 (512-byte pieces on both sides), 16 float4 loads per thread, 64 KiB per block.
using T9 = TileConfig<128, 128, 256, true, true, 8>;
/// Accesses: T3 with scalar loads and stores (padded tile).
using T10 = TileConfig<64, 64, 256, false, false, 8>;
/// Accesses: T3 with scalar loads, float4 stores (swizzled tile).
using T11 = TileConfig<64, 64, 256, false, true, 8>;
/// Copy only: 1 x 1024 tiles, one float4 per thread: the access pattern of a plain 1-D copy.
using Copy1D = TileConfig<1, 1024, 256, true, true, kRowMajor>;
}  // namespace tune
// [candidates]

namespace {

template <class Cfg>
Version transpose_candidate() {
  return {{config_name<Cfg>("tr"), "transpose: " + config_summary<Cfg>(), 75, tut::Kind::ours}, Output::transposed,
          launch_transpose_wide_tiles<Cfg>, smem_unavailable<Cfg>};
}

template <class Cfg>
Version copy_candidate() {
  const bool vec = Cfg::kVecRead && Cfg::kVecWrite;
  return {{config_name<Cfg>("cp"),
           "copy B = A: " + std::to_string(Cfg::kRows) + "x" + std::to_string(Cfg::kCols) + " tiles, " +
               std::to_string(Cfg::kThreads) + " threads, " + (vec ? "float4" : "scalar") +
               ", no shared memory, " + order_summary(Cfg::kBand),
           75, tut::Kind::ours},
          Output::copied, launch_copy_wide_tiles<Cfg>, nullptr};
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
        copy_candidate<Copy1D>(), copy_candidate<T0>(), copy_candidate<T1>(), copy_candidate<T2>(),
        copy_candidate<T3>(), copy_candidate<T4>(), copy_candidate<T5>(), copy_candidate<T6>(),
        copy_candidate<T7>(), copy_candidate<T8>(), copy_candidate<T9>(), copy_candidate<T10>(),
    };
    for (const Version& v : tune_tma_candidates()) all.push_back(v);
    return all;
  }();
  return list;
}

}  // namespace transpose
