/// @file
/// @brief Chapter 04 (gemv): declarations shared by the versions, the executable and the tests.
///
/// Two operations on one row-major M x K fp32 matrix A:
///
///     y = A x      (x has K elements, y has M)    "Ax"  versions v0_... v6_...
///     y = A^T x    (x has M elements, y has K)    "ATx" versions t0_... t2_...
///
/// The registry, versions(), is the only list of versions: the executable, --list, the tests
/// and the JSON all iterate it.
#pragma once

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/report.hpp"

/// Chapter 04: matrix-vector products, the memory-bound half of linear algebra.
namespace gemv {

/// One run of a version: reads A (M x K, row-major) and x, writes y, enqueued on `stream`.
/// For Op::Ax x has K elements and y has M; for Op::ATx x has M elements and y has K.
using Launch = void (*)(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                        cudaStream_t stream);

/// Which product a version computes.
enum class Op {
  Ax,   ///< y = A x: each output is a dot product with one row of A
  ATx,  ///< y = A^T x: each output is a dot product with one column of A
};

/// "Ax" or "ATx".
const char* op_name(Op op);

/// Length of x for `op` on an M x K matrix.
inline std::int64_t x_length(Op op, std::int64_t M, std::int64_t K) { return op == Op::Ax ? K : M; }
/// Length of y for `op` on an M x K matrix.
inline std::int64_t y_length(Op op, std::int64_t M, std::int64_t K) { return op == Op::Ax ? M : K; }

/// A registered version: everything the executable and the tests need to run and check it.
struct Version {
  tut::VersionInfo info;  ///< name, one-line idea, minimum GPU, kind
  Op op;                  ///< the product it computes (the table it is shown in)
  Launch launch;          ///< runs it (correct for every M, K >= 1 and any alignment)
  /// Null for a general version. For a specialised one: "" if M x K is in the range it was
  /// written for, otherwise the reason the table reports it as skipped. The launcher is correct
  /// outside the range too (the tests run it everywhere); the range only says where it pays.
  std::string (*outside_range)(std::int64_t M, std::int64_t K);
};

/// The registry: every version of the chapter, in table order (Ax ladder, ATx ladder, cuBLAS).
const std::vector<Version>& versions();

/// @name The traffic and work model (the same for every version and both products)
/// @{

/// Minimum bytes moved: A, x and y once each, 4 * (M*K + K + M).
double bytes_moved(std::int64_t M, std::int64_t K);
/// Canonical flop count: one multiply and one add per element of A, 2 * M * K.
double flops(std::int64_t M, std::int64_t K);
/// @}

/// @name Checking (reference.cpp)
/// @{

/// The exact answer of one problem, in double precision, plus what its rounding error scales with.
struct Reference {
  std::vector<double> y;        ///< y_i, exactly (fp32 products are exact in double; L terms summed in double)
  std::vector<double> abs_sum;  ///< sum_k |a_ik x_k| for each output: the scale of its rounding error
  std::int64_t length = 0;      ///< L, the number of terms of each dot product (K for Ax, M for ATx)
};

/// CPU reference of `op` from host copies of A (M x K, row-major) and x (multithreaded).
Reference reference(Op op, const float* A, const float* x, std::int64_t M, std::int64_t K);

/// The same, for an A whose element e is tut::hash_uniform(seed_a, e, -1, 1) and an x whose
/// element e is tut::hash_uniform(seed_x, e, -1, 1): nothing of A is stored, so a [large]
/// matrix of 10 GB can be checked in full (each element is regenerated on the fly).
Reference reference_from_hash(Op op, std::uint64_t seed_a, std::uint64_t seed_x, std::int64_t M, std::int64_t K);

/// The tolerance of a dot product of `length` fp32 terms, relative to the magnitude of its terms
/// (see the chapter page, "How results are checked"): rtol = max_rel_norm = 4 sqrt(L) 2^-24.
tut::Tolerance tolerance(std::int64_t length);

/// Compares `got` (y_length elements) with `ref`: every element within
/// 4 sqrt(L) 2^-24 sum_k |a_ik x_k| of y_i, and ||got - y|| / ||abs_sum|| within the same factor
/// (ErrorStats::add with abs_sum as each element's magnitude; never relative to |y_i| alone,
/// which cancelling terms make arbitrarily small).
tut::ErrorStats check(const float* got, const Reference& ref);

/// @}

/// @name Launch planning (versions.cpp: pure host functions, tested on the CPU)
/// @{

/// How a dimension of `length` elements is cut into `splits` chunks of `chunk` elements.
struct SplitPlan {
  std::int64_t splits = 1;  ///< number of chunks (>= 1, <= 65535: it becomes gridDim.y)
  std::int64_t chunk = 1;   ///< elements per chunk (the last one may be shorter; none is empty)
};

/// Cuts `length` into chunks so that `blocks_per_split * splits` reaches `target_blocks`, with
/// chunks of at least `min_chunk` elements rounded up to a multiple of `align`. One chunk
/// (splits = 1) when the other dimension alone provides enough blocks.
SplitPlan plan_split(std::int64_t length, std::int64_t blocks_per_split, std::int64_t target_blocks,
                     std::int64_t min_chunk, std::int64_t align);

/// Lanes per row of v5_short_rows: the smallest power of two >= the row's float4 count (or
/// element count, if `vectorized` is false), at most 32.
int short_row_lanes(std::int64_t K, bool vectorized);

/// Number of floats from `p` to the next 16-byte boundary (0..3), at most `n`.
std::int64_t float4_peel(const float* p, std::int64_t n);

/// @}

/// @name y = A x: the ladder (one file each)
/// @{

void launch_gemv_v0_thread_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                   cudaStream_t stream);
void launch_gemv_v1_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                  cudaStream_t stream);
void launch_gemv_v2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                 cudaStream_t stream);
void launch_gemv_v3_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                cudaStream_t stream);
void launch_gemv_v4_float4_ilp(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream);
void launch_gemv_v5_short_rows(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream);
void launch_gemv_v6_split_k(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                            cudaStream_t stream);
/// @}

/// @name y = A^T x: the ladder (one file each)
/// @{

void launch_gemvt_t0_thread_per_column(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                       cudaStream_t stream);
void launch_gemvt_t1_split_rows(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                cudaStream_t stream);
void launch_gemvt_t2_float4_columns(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                    cudaStream_t stream);
void launch_gemvt_t3_streaming_loads(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                     cudaStream_t stream);
void launch_gemvt_t4_overlap_clear(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                   cudaStream_t stream);
void launch_gemvt_t5_fine_split(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                cudaStream_t stream);

/// What t3, t4 and t5 change in t2's kernel and launch plan (each sets its own in its file).
struct Float4ColumnsOptions {
  bool streaming = false;      ///< read A with the streaming hint (t3)
  bool overlap_clear = false;  ///< clear y in a kernel that lets the main one start early (t4; implies streaming)
  /// Full waves of blocks the launch plan aims for (rows split into that many chunks per strip).
  /// t2's 4: a search over 1, 2, 4 and 8 waves (H200) found 2 waves 1-2% behind cublasSgemv on
  /// 8192^2 and 4 or 8 waves 1-3% ahead; smaller chunks also shorten the tail. t5 sets its own.
  std::int64_t waves = 4;
  std::int64_t min_rows = 64;  ///< the smallest row chunk a block takes (t5 sets its own)
};
/// t2's kernel and launch plan with `options` (t2: none, t3: streaming, t4: and the overlapped
/// clear, t5: and the finer split). Defined in t2_float4_columns.cu.
void launch_gemvt_float4_columns(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                 Float4ColumnsOptions options, cudaStream_t stream);
/// @}

/// @name The vendor baseline (baseline_cublas.cpp)
/// @{

/// This thread's cuBLAS handle (tut::cublas_handle_on()): main() calls it once, before anything is
/// timed, so that no timed run pays for its creation; destroyed at exit.
cublasHandle_t cublas_handle();
/// y = A x with cublasSgemv (CUBLAS_OP_T on the column-major view of A, see the chapter page).
void launch_cublas_gemv_ax(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                           cudaStream_t stream);
/// y = A^T x with cublasSgemv (CUBLAS_OP_N on the column-major view of A).
void launch_cublas_gemv_atx(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                            cudaStream_t stream);
/// @}

}  // namespace gemv
