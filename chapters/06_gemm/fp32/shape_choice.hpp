/// @file
/// @brief v09's choice of a configuration by shape: which of its two FFMA configurations an
/// m x n problem gets (defined in fp32/v09_by_shape.cu; the tests check it on the CPU).
#pragma once

#include <cstdint>

namespace gemm {

/// The configurations v09 chooses from by shape (fp32/v09_by_shape.cu).
enum class ShapeConfig {
  large,  ///< 128 x 256 tiles, one block per SM (v08's configuration)
  small,  ///< 64 x 128 tiles of 128 threads (8 x 8 each), 4 stages, three blocks per SM, C staged when unaligned
};

/// v09's choice for an m x n problem on a GPU with `sms` SMs: Large when its tiles fill at least
/// 90% of the rounds they need (B's alignment does not enter: v09 pads an unaligned B first).
ShapeConfig choose_config(std::int64_t m, std::int64_t n, int sms);

}  // namespace gemm
