/// @file
/// @brief The tuning search of chapter 05 (`transpose_tune`, tune/main.cpp): the wide-tile
/// configurations it times (named structs, tune::T0 ...), and its candidates as registry entries
/// (wide_candidates.cu, tma_candidates.cu).
///
/// Each candidate is a transpose::Version like the ladder's, correct for every R, C >= 1 (the
/// GPU tests run all of them over edge shapes), so the executable checks and times them the way
/// the chapter executable does its versions. v09_tuned_tiles runs one of the wide-tile
/// configurations (V9Tiles in v09_tuned_tiles.cu, T13's fields), v10_tma_tuned one of the TMA
/// ones (V10Tiles in v10_tma_tuned.cu, M25's fields).
#pragma once

#include <string>
#include <vector>

#include "tiles.cuh"  // kRowMajor, kColMajor
#include "transpose.hpp"
#include "wide_tile_phases.cuh"  // WideTile

namespace transpose {

/// The configurations the search times. Each restates only the WideTile fields it changes
/// (WideTile: v06's 64 x 64 tile, 256 threads, float4 loads and stores, row-major order). Names
/// in the table: `tr<rows>x<cols>_t<threads>_<access>_<order>` (config_name()); T0-T10, T13,
/// T20, T21, T23 and T24 are also timed as a copy (`cp...`), the tiled copy of that shape and order.
// [candidates]
namespace tune {
/// v05's tile (32 x 32, one float4 per thread), row-major, with the interior fast path.
struct T0 : WideTile {
  static constexpr int rows = 32;  ///< 32 tile rows
  static constexpr int cols = 32;  ///< 32 tile columns
};
/// v06's tile (64 x 64, four float4 loads per thread), row-major.
struct T1 : WideTile {};
/// Order: column-major (B rows written in long runs, A rows read in 256-byte pieces).
struct T2 : WideTile {
  static constexpr unsigned order = kColMajor;  ///< column-major tile order
};
/// Order: bands of 8 tile rows (runs of ~2 KiB on both sides).
struct T3 : WideTile {
  static constexpr unsigned order = 8;  ///< bands of 8 tile rows
};
/// Order: bands of 32 tile rows.
struct T4 : WideTile {
  static constexpr unsigned order = 32;  ///< bands of 32 tile rows
};
/// Bytes in flight: 128 threads x 8 float4 loads, about twice T3's tiles (and bytes requested) per SM.
struct T5 : T3 {
  static constexpr int threads = 128;  ///< 128 threads per block
};
/// Shape: 32 x 128 (each block reads 512-byte pieces of A rows, writes 128-byte pieces of B rows).
struct T6 : T3 {
  static constexpr int rows = 32;   ///< 32 tile rows
  static constexpr int cols = 128;  ///< 128 tile columns
};
/// Shape: 128 x 32 (128-byte pieces of A rows, 512-byte pieces of B rows).
struct T7 : T3 {
  static constexpr int rows = 128;  ///< 128 tile rows
  static constexpr int cols = 32;   ///< 32 tile columns
};
/// Shape: 128 x 64, 8 float4 loads per thread.
struct T8 : T3 {
  static constexpr int rows = 128;  ///< 128 tile rows
};
/// Shape: 128 x 128 (512-byte pieces on both sides), 16 float4 loads per thread, 64 KiB per block.
struct T9 : T3 {
  static constexpr int rows = 128;  ///< 128 tile rows
  static constexpr int cols = 128;  ///< 128 tile columns
};
/// Accesses: T3 with scalar loads and stores (padded tile).
struct T10 : T3 {
  static constexpr bool vec_read = false;   ///< scalar loads
  static constexpr bool vec_write = false;  ///< scalar stores
};
/// Accesses: T3 with scalar loads, float4 stores (swizzled tile).
struct T11 : T3 {
  static constexpr bool vec_read = false;  ///< scalar loads
};
/// Second round, around the first round's winner T10 (scalar accesses, padded tile).
/// T10 with 128 threads: 32 loads per thread (two batches of 16 in flight).
struct T12 : T10 {
  static constexpr int threads = 128;  ///< 128 threads per block
};
/// T10 with 512 threads: 8 loads per thread, twice the warps per tile (v09's configuration).
struct T13 : T10 {
  static constexpr int threads = 512;  ///< 512 threads per block
};
/// T10's accesses on 32 x 32 tiles (v04's tile, 4 loads per thread), bands of 8.
struct T14 : T10 {
  static constexpr int rows = 32;  ///< 32 tile rows
  static constexpr int cols = 32;  ///< 32 tile columns
};
/// T10 in bands of 4 tile rows.
struct T15 : T10 {
  static constexpr unsigned order = 4;  ///< bands of 4 tile rows
};
/// T10 in bands of 16 tile rows.
struct T16 : T10 {
  static constexpr unsigned order = 16;  ///< bands of 16 tile rows
};
/// T10 in row-major tile order (does the band matter for scalar accesses?).
struct T17 : T10 {
  static constexpr unsigned order = kRowMajor;  ///< row-major tile order
};
/// Scalar 128 x 64 tiles: 256-byte pieces of 128 A rows, 512-byte pieces of 64 B rows; 32 loads per thread.
struct T18 : T10 {
  static constexpr int rows = 128;  ///< 128 tile rows
};
/// Scalar 64 x 128 tiles: 512-byte pieces of 64 A rows, 256-byte pieces of 128 B rows.
struct T19 : T10 {
  static constexpr int cols = 128;  ///< 128 tile columns
};
/// Third round (H100): v05's float4 32 x 32 tile (T0) in bands of 8 tile rows.
struct T20 : T0 {
  static constexpr unsigned order = 8;  ///< bands of 8 tile rows
};
/// T0 in bands of 32 tile rows (runs of ~4 KiB on both sides).
struct T21 : T0 {
  static constexpr unsigned order = 32;  ///< bands of 32 tile rows
};
/// T0 with 128 threads: two float4 loads per thread.
struct T22 : T0 {
  static constexpr int threads = 128;  ///< 128 threads per block
};
/// Fifth round (H100): T13 (v09's configuration) with streaming hints (evict-first in L2).
struct T23 : T13 {
  static constexpr bool streaming = true;  ///< streaming (evict-first) hints
};
/// T0 with streaming hints.
struct T24 : T0 {
  static constexpr bool streaming = true;  ///< streaming (evict-first) hints
};
/// Copy only: 1 x 1024 tiles, one float4 per thread: the access pattern of a plain 1-D copy.
struct Copy1D : WideTile {
  static constexpr int rows = 1;     ///< 1 tile rows
  static constexpr int cols = 1024;  ///< 1024 tile columns
};
/// Copy only: Copy1D with streaming hints.
struct Copy1DStreaming : Copy1D {
  static constexpr bool streaming = true;  ///< streaming (evict-first) hints
};
}  // namespace tune
// [candidates]

/// The name of a tile order in the candidates' names: "rm", "cm" or "g<band>".
inline std::string order_name(unsigned band) {
  return band == kRowMajor ? "rm" : band == kColMajor ? "cm" : "g" + std::to_string(band);
}

/// The plain candidates (wide-tile transposes and their copies), then the TMA ones.
const std::vector<Version>& tune_candidates();

/// The TMA candidates alone (box shape, pipeline depth, tiles per block, order); sm_90.
const std::vector<Version>& tune_tma_candidates();

}  // namespace transpose

