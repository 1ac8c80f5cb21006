/// @file
/// @brief t3 (y = A^T x): t2 with A read under the streaming cache hint (`__ldcs`).
#include "gemv.hpp"

namespace gemv {

/// @brief t3: t2's kernel and launch plan; every load of A carries the streaming hint.
///
/// **Idea.** Each element of A is read exactly once, but a plain load still gives its line the
/// normal place in L2's replacement order, so streaming a 64 MiB matrix through a 50 MiB L2
/// pushes out whatever L2 held before, and what it held may be dirty: lines written by the
/// previous kernel (here, the L2 flush between timed runs; in an application, the producer of
/// x or of anything else) must then be written back to DRAM *during* our kernel, competing
/// with our reads. `ld.global.cs` (`__ldcs`, "cache streaming, likely accessed once") allocates
/// the line evict-first: A's lines replace each other, the older lines stay, and DRAM serves
/// only our reads. ncu on the H100 (4096^2, timed repetitions, no cache control) showed the
/// difference: during t2, about 21 MB were written to DRAM besides the 67 MB read; during
/// cublasSgemv (no atomics, no memset, one wave of 128 blocks of 512 threads), about 5 MB.
///
/// **Changed since t2.** One template flag: `load_once<true>` (`__ldcs`) instead of `__ldg` for
/// A. x is still read through the read-only cache: every strip of blocks reads it again.
///
/// **What is still wrong.** As in t2: float atomics (run-to-run differences in the last bits)
/// and a memset of y before the kernel. The hint helps only when A is not much larger than L2:
/// a matrix of several times L2's size evicts everything in any case.
///
/// **Predicted.** On 4096^2 (64 MiB, about 1.3x L2) most of the ~20 MB of write-backs
/// disappear: about 15% faster than t2, level with cublasSgemv. On 8192^2 (256 MiB) a few
/// percent; on 16384^2 nothing.
///
/// **Measured (H100 run at 0b38325).** 4096^2: 0.0335 ms, 2010 GB/s, 66.8% of the copy roof, 0.935x
/// cublasSgemv, 1.11x t2 (0.0371 ms); 8192^2: 1.01x (t2: 1.01x); 16384^2: 0.373 ms, 1.05x (t2:
/// 1.07x). Under ncu (an earlier H100 run) t3's kernel wrote 6.9 MB to DRAM (t2: 21 MB). Predicted
/// 15% and "level with cuBLAS", measured 11% and 0.935x: the rest was the memset step (t4). As
/// predicted, no gain on the larger shapes.
// [launch]
void launch_gemvt_t3_streaming_loads(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                     cudaStream_t stream) {
  Float4ColumnsOptions options;
  options.streaming = true;
  launch_gemvt_float4_columns(A, x, y, M, K, options, stream);
}
// [launch]

}  // namespace gemv
