/// @file
/// @brief The tuning search of chapter 05 (`transpose_tune`): the candidate configurations it
/// times, as registry entries (tune_candidates.cu, tune_tma.cu).
///
/// Each candidate is a transpose::Version like the ladder's, correct for every R, C >= 1 (the
/// GPU tests run all of them over edge shapes), so the executable checks and times them the way
/// the chapter executable does its versions. v9_tuned_tiles runs one of the wide-tile
/// configurations (V9Config in v9_tuned_tiles.cu), set from the search's measured winner.
#pragma once

#include <vector>

#include "transpose.hpp"
#include "wide_tile_phases.cuh"  // TileConfig

namespace transpose {

/// The configurations the search times. Names in the table: `tr<Rows>x<Cols>_t<Threads>_<access>_<order>`
/// (config_name()); T0-T10, T13, T20, T21, T23 and T24 are also timed as a copy (`cp...`), the tiled copy of that shape and order.
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
/// Bytes in flight: 128 threads x 8 float4 loads, about twice T3's tiles (and bytes requested) per SM.
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
/// Second round, around the first round's winner T10 (scalar accesses, padded tile).
/// T10 with 128 threads: 32 loads per thread (two batches of 16 in flight).
using T12 = TileConfig<64, 64, 128, false, false, 8>;
/// T10 with 512 threads: 8 loads per thread, twice the warps per tile.
using T13 = TileConfig<64, 64, 512, false, false, 8>;
/// T10's accesses on 32 x 32 tiles (v4's tile, 4 loads per thread), bands of 8.
using T14 = TileConfig<32, 32, 256, false, false, 8>;
/// T10 in bands of 4 tile rows.
using T15 = TileConfig<64, 64, 256, false, false, 4>;
/// T10 in bands of 16 tile rows.
using T16 = TileConfig<64, 64, 256, false, false, 16>;
/// T10 in row-major tile order (does the band matter for scalar accesses?).
using T17 = TileConfig<64, 64, 256, false, false, kRowMajor>;
/// Scalar 128 x 64 tiles: 256-byte pieces of 128 A rows, 512-byte pieces of 64 B rows; 32 loads per thread.
using T18 = TileConfig<128, 64, 256, false, false, 8>;
/// Scalar 64 x 128 tiles: 512-byte pieces of 64 A rows, 256-byte pieces of 128 B rows.
using T19 = TileConfig<64, 128, 256, false, false, 8>;
/// Third round (H100): v5's float4 32 x 32 tile (T0) in bands of 8 tile rows.
using T20 = TileConfig<32, 32, 256, true, true, 8>;
/// T0 in bands of 32 tile rows (runs of ~4 KiB on both sides).
using T21 = TileConfig<32, 32, 256, true, true, 32>;
/// T0 with 128 threads: two float4 loads per thread.
using T22 = TileConfig<32, 32, 128, true, true, kRowMajor>;
/// Fifth round (H100): T13 (v9's configuration) with streaming hints (evict-first in L2).
using T23 = TileConfig<64, 64, 512, false, false, 8, true>;
/// T0 with streaming hints.
using T24 = TileConfig<32, 32, 256, true, true, kRowMajor, true>;
/// Copy only: 1 x 1024 tiles, one float4 per thread, streaming hints.
using Copy1DStreaming = TileConfig<1, 1024, 256, true, true, kRowMajor, true>;
/// Copy only: 1 x 1024 tiles, one float4 per thread: the access pattern of a plain 1-D copy.
using Copy1D = TileConfig<1, 1024, 256, true, true, kRowMajor>;
}  // namespace tune
// [candidates]

/// The plain candidates (wide-tile transposes and their copies), then the TMA ones.
const std::vector<Version>& tune_candidates();

/// The TMA candidates alone (box shape, pipeline depth, tiles per block, order); sm_90.
const std::vector<Version>& tune_tma_candidates();

}  // namespace transpose
