/// @file
/// @brief Exercise (chapter 04): y = A x with one warp per row, float4 loads, scalar head and tail.
///
/// Your task: fill in the three TODO(student) blocks of gemv_warp_float4_kernel so that
/// y[i] = sum_k A[i][k] * x[k] for every row i, for ANY M and K (K = 1, 3, 33, 100000, ...)
/// and any alignment of A, x and y.
///
///  - Read chapters/04_gemv/README.md, sections "v2" and "v3", first.
///  - Check it, and time it against the solution, with one command (it rebuilds what changed):
///        python3 tools/exercise.py gemv
///    It fails until you are done; its last line is the verdict (NOT CHECKED without a GPU).
///
/// Budget: every float of A is loaded exactly once, by one 16-byte load in the body (each lane
/// takes float4s lane, lane + 32, ...) or by one 4-byte load in the head or tail; x likewise;
/// five shuffles per row; one store per row.
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace gemv {

namespace {

constexpr int kWarps = 8;  // rows per block

/// y[row] = A[row][:] . x, one warp per row.
__global__ void gemv_warp_float4_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                        float* __restrict__ y, std::int64_t M, std::int64_t K) {
  // Given: which row this warp owns, and the row's split into a scalar head, a float4 body and
  // a scalar tail. When K % 4 != 0, rows start at different offsets of a 16-byte line, so the
  // split is computed per row from its address:
  //     [0, head)                    scalars (at most 3)
  //     [head, head + 4 * n_vec)     float4s a4[0 .. n_vec)
  //     [head + 4 * n_vec, K)        scalars (at most 3)
  [[maybe_unused]] const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= M) return;  // the whole warp leaves: the shuffles below see full warps
  const float* a = A + row * K;
  const std::int64_t to_boundary = static_cast<std::int64_t>((16 - reinterpret_cast<std::uintptr_t>(a) % 16) % 16 / 4);
  const std::int64_t head = to_boundary < K ? to_boundary : K;
  [[maybe_unused]] const std::int64_t n_vec = (K - head) / 4;
  [[maybe_unused]] const float4* a4 = reinterpret_cast<const float4*>(a + head);
  // x is read at the same k as A, but x + head is 16-byte aligned only when x is and head == 0:
  // if x_vec is false, read the 4 floats of x by scalars (x[k], x[k+1], x[k+2], x[k+3]).
  [[maybe_unused]] const bool x_vec = reinterpret_cast<std::uintptr_t>(x + head) % 16 == 0;

  [[maybe_unused]] float sum = 0.0f;

  // TODO(student) 1/3 -- the scalar head and tail (about 2 lines):
  //   the head's `head` elements (at most 3) go to lanes 0 .. head-1, one each; the tail,
  //   elements head + 4 * n_vec .. K-1 (at most 3), is dealt out to the lanes the same way.
  //   Each adds a * x to its lane's sum (fmaf(a, b, sum) is a fused multiply-add).

  // TODO(student) 2/3 -- the float4 body (about 8 lines):
  //   lane `lane` takes the float4s a4[lane], a4[lane + 32], ... (at each step the warp reads 32
  //   consecutive float4s: 512 contiguous bytes of the row). The 4 floats of x that go with
  //   a4[v] start at x + head + 4 * v: one float4 load where x_vec says that is allowed, four
  //   scalar loads where it is not.

  // TODO(student) 3/3 -- the warp's sum and the store (about 2 lines):
  //   combine the 32 lanes' partial sums inside the warp's registers (v2's idea: no shared
  //   memory, no barrier), then one lane writes y[row].
}

}  // namespace

void exercise_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  gemv_warp_float4_kernel<<<tut::blocks_for(M, kWarps), kWarps * 32, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
