/// @file
/// @brief Chapter 03 (softmax): declarations shared by the versions, the executable and the tests.
///
/// Row-wise softmax of an R x C fp32 matrix, row-major: y[r][c] = exp(x[r][c] - m_r) / d_r with
/// m_r the row's max and d_r = sum_c exp(x[r][c] - m_r). Entries of -inf contribute 0; a row of
/// only -inf entries gives all zeros (see online_softmax.cuh). The registry, versions(), is the
/// only list of versions: the executable, --list, the tests and the JSON all iterate it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/report.hpp"

/// Chapter 03: row-wise softmax, from one thread per row to one read and one write per element.
namespace softmax {

/// One run of a version: y = softmax(x) row by row, `rows` x `cols`, row-major, enqueued on
/// `stream`. rows = 0 or cols = 0 is an empty matrix (nothing to do); a negative size, or a
/// shape the version cannot run (see Version::unsupported), throws std::invalid_argument
/// before anything is launched.
using Launch = void (*)(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// The order in which a version adds a row's C terms of the denominator: it decides the bound
/// of its rounding error (tolerance()).
enum class Order {
  tree,    ///< trees of partial sums (short serial runs per thread first): error ~ sqrt(C) u
  serial,  ///< one chain of C additions (v0: one thread per row): worst case ~ C u
};

/// A registered version: everything the executable and the tests need to run and check it.
struct Version {
  tut::VersionInfo info;  ///< name, one-line idea, minimum GPU, kind
  Launch launch;          ///< runs it
  /// "" if the version can run an R x C problem on the current GPU; otherwise why not (the
  /// table's skip reason, and what the launcher's exception says).
  std::string (*unsupported)(std::int64_t rows, std::int64_t cols);
  bool defines_all_neg_inf_rows;  ///< gives zeros for a row of only -inf (ours: yes; cuDNN: no promise)
  bool copy_roof = false;  ///< not a softmax: copies x to y, the bandwidth roof at this very size
  Order order = Order::tree;  ///< how it adds the denominator: the error bound it is held to
};

/// The registry: every version of the chapter, in table order (ladder, then the library).
const std::vector<Version>& versions();

/// The tolerance of a version that adds the denominator in `order`, on rows of `cols`
/// columns, and why (see the chapter page, "Accuracy"): relative error per element and in norm
/// (212 + s(C)) * 2^-24, with the sum's rounding s(C) = 8 + 8 sqrt(C) for a tree (a
/// probabilistic bound, Higham & Mary 2019) and s(C) = ((1 + u)^C - 1) / u, about C, for one
/// serial chain (the worst case; a chain of tiny terms also drifts, it does not only wander).
tut::Tolerance tolerance(std::int64_t cols, Order order = Order::tree);

/// @name The ladder (one file each: v0_thread_per_row.cu ... v7_cluster_rows.cu)
/// @{
void launch_softmax_v0_thread_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                      cudaStream_t stream);
void launch_softmax_v1_block_tree(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream);
void launch_softmax_v2_block_shuffle(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                     cudaStream_t stream);
void launch_softmax_v3_online(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);
void launch_softmax_v4_warp_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                      cudaStream_t stream);
void launch_softmax_v5_block_shared(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                    cudaStream_t stream);
void launch_softmax_v6_float4(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);
void launch_softmax_v7_cluster_rows(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                    cudaStream_t stream);
/// @}

/// @name Shapes the limited versions accept
/// @{

/// Most columns v4 holds in registers: 32 lanes x 32 values.
constexpr std::int64_t kWarpRowMaxCols = 1024;
/// v4: "" if cols <= kWarpRowMaxCols, else why not.
std::string v4_unsupported(std::int64_t rows, std::int64_t cols);
/// v5: "" if a row of `cols` floats fits in this GPU's shared memory per block, else why not.
std::string v5_unsupported(std::int64_t rows, std::int64_t cols);
/// Largest row (in floats) that fits in the current GPU's opt-in shared memory per block,
/// next to the kernels' own static shared memory.
std::int64_t max_shared_row_floats();
/// @}

/// @name v7's tiles (v7_cluster_rows.cu; the search that chose them is in tune/)
/// @{

/// Most blocks v7 puts in a cluster (the portable limit of CUDA clusters).
constexpr int kV7MaxCluster = 8;

/// @brief What one block of v7 holds: `threads` threads with `vec` float4s each, i.e.
/// 4 x threads x vec columns of a row; a row of C columns takes ceil(C / that) blocks (a cluster).
struct V7Tile {
  int threads;  ///< threads per block (a multiple of 32)
  int vec;      ///< float4s per thread, in registers
};

/// The tile v7 picks for rows of `cols` columns; {0, 0} where it runs v6 instead (C <= 1024,
/// C % 4 != 0, or C > 131072).
V7Tile v7_tile_for(std::int64_t cols);
/// Blocks per cluster for `tile` on rows of `cols` columns: ceil(C/4 / (threads vec)), capped
/// at kV7MaxCluster + 1 (which means "too long for this tile").
int v7_cluster_size(V7Tile tile, std::int64_t cols);
/// v7: "" on an sm_90 GPU with sm_90 code in this build, else why not (any shape otherwise).
std::string v7_unsupported(std::int64_t rows, std::int64_t cols);

/// v7's kernel with `tile` on rows of `cols` columns (v6 where it cannot run: C % 4 != 0,
/// misaligned rows, or more than kV7MaxCluster blocks per row). What the search's candidates
/// (tune/, `softmax_tune`) run; the caller checks v7_unsupported() first. Tiles other than
/// threads x vec = 128..1024 x 2..8 (those the kernel is compiled for) throw std::logic_error.
void launch_softmax_v7_tile(V7Tile tile, const float* x, float* y, std::int64_t rows, std::int64_t cols,
                            cudaStream_t stream);
/// @}

/// @name The library baseline (cudnn_baseline.cu)
/// @{

/// cudnnSoftmaxForward (accurate, per instance) over an R x C x 1 x 1 NCHW tensor.
void launch_softmax_cudnn(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);
/// "" if cuDNN was found at configure time and holds the shape, else why not.
std::string cudnn_unsupported(std::int64_t rows, std::int64_t cols);
/// True if the build found cuDNN.
bool cudnn_available();
/// @}

/// @name The copy roof (shapes.cpp)
/// @{

/// y = x with cudaMemcpyAsync: the same two streams of bytes as a softmax, with nothing to
/// compute. Shown in every table, so a shape's % of the 1 GiB copy roof can be read against
/// what a copy of exactly that size achieves.
void launch_softmax_copy(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);
/// @}

/// @name Launch helpers (shapes.cpp)
/// @{

/// Throws std::invalid_argument if rows or cols is negative; returns true if the matrix is
/// empty (nothing to launch). Inline, so that an exercise file may call it: the exercise's
/// runner links no chapter library.
inline bool empty_or_invalid(std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0) {
    throw std::invalid_argument("softmax: rows and cols must be >= 0 (got " + std::to_string(rows) + " x " +
                                std::to_string(cols) + ")");
  }
  return rows == 0 || cols == 0;
}
/// Grid of a block-per-row kernel that loops over rows: min(rows, 2^31 - 1) blocks.
unsigned row_blocks(std::int64_t rows);
/// Threads of a block that owns a row of `units` work items (floats or float4s): about
/// `units / per_thread`, rounded up to a power of two, clamped to [128, 1024].
int block_threads_for(std::int64_t units, int per_thread);
/// @}

// ------------------------------------------------------------------------------------------
// CPU side (reference.cpp).

/// The reference in double precision: y[r*cols + c] for the rows x cols matrix x, on all the
/// CPU's threads. All -inf rows give zeros.
void reference_softmax(const float* x, double* y, std::int64_t rows, std::int64_t cols);

/// The reference of one row (cols values) into y.
void reference_row(const float* x, double* y, std::int64_t cols);

/// Range of the random inputs of the tests and of the exercise's checker: [-kInputRange, kInputRange).
constexpr float kInputRange = 8.0f;

/// Kinds of awkward rows awkward_matrix() cycles through.
constexpr std::int64_t kAwkwardKinds = 10;

/// A rows x cols matrix of awkward rows, every version's edge cases: row r is of kind r % 10,
///
///     0  random                              5  all 1e30 (uniform output 1/C)
///     1  random, every third entry -inf      6  random, every fourth entry -1e30
///        (from the second; so C = 1 stays finite)
///     2  all -inf (zeros, by definition)     7  all -1e30 (uniform)
///     3  -inf except one entry (one-hot)     8  random in [-80, 80) (exp near underflow)
///     4  random, three entries 1e30          9  random in [-1e30, 1e30) (one-hot at the max)
///
/// "random" is uniform in [-kInputRange, kInputRange). With `all_neg_inf_row` false, rows of
/// kind 2 are random instead (for cuDNN, which defines no result for them).
std::vector<float> awkward_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                                  bool all_neg_inf_row = true);

}  // namespace softmax
