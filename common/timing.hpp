/// @file
/// @brief Timing GPU work with CUDA events: warm-up, repetitions, median/min/max, L2 flush.
///
/// How we time (docs/guides/methodology.md explains why):
/// - CUDA events recorded on the stream just before and after the work, so only GPU time counts;
/// - a few untimed warm-up runs first (module load, clocks, caches of the driver);
/// - many repetitions, reporting the median (robust to outliers) plus min and max;
/// - before every repetition, an untimed memset of twice the L2's size evicts the inputs, so a
///   small problem is not timed out of cache.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "common/device_buffer.hpp"

namespace tut {

/// Summary of a set of timed repetitions, in milliseconds.
struct TimingStats {
  double median_ms = 0.0;  ///< median over the repetitions
  double min_ms = 0.0;     ///< fastest repetition
  double max_ms = 0.0;     ///< slowest repetition
  int reps = 0;            ///< number of repetitions (0: not timed)
};

/// Median, min and max of `samples_ms` (the median of an even count averages the middle two).
/// Throws std::invalid_argument on an empty list or a non-finite / negative sample.
TimingStats summarize(std::vector<double> samples_ms);

/// How many runs to do.
struct TimingOptions {
  int warmup = 3;        ///< untimed runs before timing
  int reps = 20;         ///< timed runs (at most)
  bool flush_l2 = true;  ///< evict L2 before each timed run
  /// If > 0: a version so slow that `reps` runs would take longer than this many milliseconds
  /// gets fewer repetitions, as many as fit in it but at least `min_reps`, and only one warm-up
  /// if that one took over `budget_ms / 20` (the clocks and caches are warm by then). The
  /// first warm-up run, timed with events, gives the estimate. Keeps a naive version at
  /// 0.5 s per run from taking half a minute of a chapter's run.
  double budget_ms = 0.0;
  int min_reps = 5;  ///< the fewest repetitions a budget leaves
};

/// Evicts the L2 cache by writing a buffer twice its size (untimed, on the given stream).
class L2Flusher {
 public:
  /// Allocates 2 x `l2_bytes` of scratch (at least 1 MiB).
  explicit L2Flusher(std::size_t l2_bytes);
  /// Enqueues the eviction on `stream`.
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer<unsigned char> scratch_;
};

/// Work to time: enqueue everything on the given stream, do not synchronize.
using StreamWork = std::function<void(cudaStream_t)>;

/// Times `work` on `stream`. `before_each` (optional, untimed) runs before every repetition,
/// e.g. to restore an output that the work accumulates into. `flusher` may be null. The
/// returned `reps` says how many repetitions were timed (fewer than options.reps under a budget).
TimingStats time_on_stream(const StreamWork& work, const TimingOptions& options, cudaStream_t stream,
                           L2Flusher* flusher = nullptr, const StreamWork& before_each = {});

}  // namespace tut
