/// @file
/// @brief The shapes with which test_gpu.cpp runs the Hopper steps that choose among paths (v18-v20,
/// v23, v24), shared with test_cpu.cpp, which checks that on an H100 (132 SMs) they reach every path
/// the GPU test names: a test shape that silently took another path would test less than it says.
#pragma once

#include <vector>

#include "gemm.hpp"

namespace gemm::testing {

/// v18-v20's paths on an H100: 1000 x 1000 x 300 runs v18's half tiles (64 of them, one wave);
/// 300 x 200 x 4100 splits each of its 6 half tiles into 4 shares of 16-17 k-slices (the last slice
/// partial: K is not a multiple of 64, nor of 8, so the operands are repacked first); 513 x 260 x
/// 2049 splits 15 tiles in 2 uneven shares (16 and 17 slices); 300 x 201 x 4100 would split but
/// cannot (N % 4 != 0: no TMA reduce into C) and runs v18; 130 x 132 x 2048 (4 tiles, 2 shares) is
/// the sanitizers' shape. v20 runs its 128 x 64 tiles on all five.
inline std::vector<Shape> v18_v20_path_shapes() {
  return {{1000, 1000, 300}, {300, 200, 4100}, {513, 260, 2049}, {300, 201, 4100}, {130, 132, 2048}};
}

/// v24's paths on an H100 (66 clusters of two): pairs at 300 x 201 x 4100 (6 tiles, 65 k-slices,
/// the last partial; N % 4 != 0: C stored from the registers; K % 8 != 0: operands repacked), at
/// 513 x 260 x 2049 (15 tiles, 33 slices: shares of 16 and 17), at 130 x 132 x 2048 (4 tiles, 16
/// slices each: the sanitizers' shape) and at 640 x 700 x 2100 (30 tiles, 33 slices); v20 at
/// 1000 x 1000 x 300 (5 k-slices: too few to split).
inline std::vector<Shape> v24_path_shapes() {
  return {{300, 201, 4100}, {513, 260, 2049}, {130, 132, 2048}, {640, 700, 2100}, {1000, 1000, 300}};
}

/// v23's paths on an H100: 1000 x 1000 runs 64-row tiles, 2048 x 1000 128-row tiles, 2048 x 2048
/// 256-row tiles (v21's); K = 333 and 200: 11 and 7 slices of 32, an odd count, rounded up.
inline std::vector<Shape> v23_path_shapes() { return {{1000, 1000, 333}, {2048, 1000, 200}, {2048, 2048, 200}}; }

}  // namespace gemm::testing
