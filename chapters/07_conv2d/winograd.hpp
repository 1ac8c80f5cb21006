/// @file
/// @brief The three transforms of Winograd's F(2x2, 3x3) (Lavin and Gray, 2016), as host-device
/// functions: v05's kernels call them, and the CPU tests check them against the direct sum.
///
/// A 2x2 tile of outputs of a 3x3 cross-correlation comes from the 4x4 input tile d under it:
///
///     Y (2x2) = A^T [ (G g G^T) (.) (B^T d B) ] A        (.) = elementwise, 16 products
///
///           [1  0 -1  0]         [1    0    0  ]         [1  1  1  0]
///     B^T = [0  1  1  0]     G = [1/2  1/2  1/2]   A^T = [0  1 -1 -1]
///           [0 -1  1  0]         [1/2 -1/2  1/2]
///           [0  1  0 -1]         [0    0    1  ]
///
/// 16 multiplications per tile and channel instead of 36: 2.25x fewer. The transforms are
/// additions (and halves, in G), done once per input tile (shared by all K filters), once per
/// filter (shared by all tiles), and once per output tile (after the sum over channels).
#pragma once

#include <cuda_runtime.h>

namespace conv2d::winograd {

/// U = G g G^T: the 4x4 transformed filter of a 3x3 filter g (row-major, u[4 i + j]).
// [filter_transform]
__host__ __device__ inline void filter_transform(const float (&g)[9], float (&u)[16]) {
  float gg[4][3];  // G g: rows g0, (g0 + g1 + g2) / 2, (g0 - g1 + g2) / 2, g2
  for (int j = 0; j < 3; ++j) {
    gg[0][j] = g[j];
    gg[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
    gg[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
    gg[3][j] = g[6 + j];
  }
  for (int i = 0; i < 4; ++i) {  // (G g) G^T: the same on the columns
    u[4 * i + 0] = gg[i][0];
    u[4 * i + 1] = 0.5f * (gg[i][0] + gg[i][1] + gg[i][2]);
    u[4 * i + 2] = 0.5f * (gg[i][0] - gg[i][1] + gg[i][2]);
    u[4 * i + 3] = gg[i][2];
  }
}
// [filter_transform]

/// V = B^T d B: the 4x4 transformed input tile (row-major d[4 i + j] and v[4 i + j]).
// [input_transform]
__host__ __device__ inline void input_transform(const float (&d)[16], float (&v)[16]) {
  float e[4][4];  // B^T d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3
  for (int j = 0; j < 4; ++j) {
    e[0][j] = d[j] - d[8 + j];
    e[1][j] = d[4 + j] + d[8 + j];
    e[2][j] = d[8 + j] - d[4 + j];
    e[3][j] = d[4 + j] - d[12 + j];
  }
  for (int i = 0; i < 4; ++i) {  // (B^T d) B: the same on the columns
    v[4 * i + 0] = e[i][0] - e[i][2];
    v[4 * i + 1] = e[i][1] + e[i][2];
    v[4 * i + 2] = e[i][2] - e[i][1];
    v[4 * i + 3] = e[i][1] - e[i][3];
  }
}
// [input_transform]

/// Y = A^T m A: the 2x2 outputs (y[2 i + j]) from the 16 sums m[4 i + j] of the Winograd domain.
// [output_transform]
__host__ __device__ inline void output_transform(const float (&m)[16], float (&y)[4]) {
  float a[2][4];  // A^T m: rows m0 + m1 + m2, m1 - m2 - m3
  for (int j = 0; j < 4; ++j) {
    a[0][j] = m[j] + m[4 + j] + m[8 + j];
    a[1][j] = m[4 + j] - m[8 + j] - m[12 + j];
  }
  for (int i = 0; i < 2; ++i) {  // (A^T m) A
    y[2 * i + 0] = a[i][0] + a[i][1] + a[i][2];
    y[2 * i + 1] = a[i][1] - a[i][2] - a[i][3];
  }
}
// [output_transform]

}  // namespace conv2d::winograd
