/// @file
/// @brief t5 (y = A^T x): t4 with the rows cut into more, shorter chunks.
#include "gemv.hpp"

namespace gemv {

/// t5's split plan: full waves of blocks aimed for (t2-t4: 4).
constexpr std::int64_t kT5Waves = 16;
/// The smallest row chunk of a block in t5 (t2-t4: 64).
constexpr std::int64_t kT5MinRows = 16;

/// @brief t5: t4's kernel and overlapped clear; the launcher aims for 16 waves of blocks with
/// chunks from 16 rows (t2-t4: 4 waves, chunks from 64 rows).
///
/// **Idea.** t2 chose 4 waves of blocks on the H200, where the memset step sat in front of
/// every run. With the clear hidden (t4), a 4096^2 run is ~31 us, and the end of it, when the
/// last blocks finish on some SMs while others are idle, is a visible part of that: more,
/// shorter blocks make the last wave short. The price is more blocks (each block's start, its
/// shared-memory sum and its 128 atomics) and more atomic traffic into y.
///
/// **Changed since t4.** Two constants of the split plan: 16 full waves of blocks as the target
/// (kT5Waves) and 16 rows as the smallest chunk (kT5MinRows). The kernel is t4's.
///
/// **What is still wrong.** As in t4: float atomics, now four times as many (the last bits of y
/// differ from run to run); the overlap of the clear needs sm_90.
///
/// **Predicted.** This step was found, not predicted: a log-only search of t4's split plan on the
/// H100 (4096^2 twice and 8192^2 once, in one run; 1, 2, 4 and 8 waves with 64-row chunks, 4
/// waves with 32- and 128-row chunks, 16 waves with 16-row chunks) put 16 waves with 16-row
/// chunks first: 0.0300-0.0301 ms on 4096^2 (1.033-1.035x cublasSgemv, t4 0.987-0.996x) and
/// 0.1008 ms on 8192^2 (1.047x, t4 1.025x). Expected in the chapter's run: about 1.03x on 4096^2
/// and 8192^2, no change on the largest shapes.
///
/// **Measured (H100 run at 0b38325).** 4096^2: 0.0305 ms, 2200 GB/s, 73.2% of the copy roof, 1.03x
/// cublasSgemv; 8192^2: 1.05x; 16384^2: 0.364 ms, 98.2%, 1.08x; 65536 x 1024: 1.10x; 1024 x 65536:
/// 1.03x: the best A^T x version on every listed shape, as the search expected (about 1.03x on
/// 4096^2 and 8192^2), and a little ahead of t4 on the large shapes too. On 2097152 x 32 t1 stays
/// best (t5: 0.919x, t1: 1.05x).
// [launch]
void launch_gemvt_t5_fine_split(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                cudaStream_t stream) {
  Float4ColumnsOptions options;  // t4's kernel and overlapped clear ...
  options.streaming = true;
  options.overlap_clear = true;
  options.waves = kT5Waves;  // ... with the finer split, the one new thing
  options.min_rows = kT5MinRows;
  launch_gemvt_float4_columns(A, x, y, M, K, options, stream);
}
// [launch]

}  // namespace gemv
