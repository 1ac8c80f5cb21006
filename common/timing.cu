#include "common/timing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/check.hpp"

namespace tut {

TimingStats summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("summarize: no timing samples");
  for (double s : samples_ms) {
    if (!(std::isfinite(s) && s >= 0.0)) throw std::invalid_argument("summarize: invalid timing sample");
  }
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  TimingStats t;
  t.reps = static_cast<int>(n);
  t.min_ms = samples_ms.front();
  t.max_ms = samples_ms.back();
  t.median_ms = n % 2 == 1 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  return t;
}

L2Flusher::L2Flusher(std::size_t l2_bytes) : scratch_(std::max<std::size_t>(2 * l2_bytes, std::size_t{1} << 20)) {}

void L2Flusher::flush(cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_.bytes(), stream));
}

namespace {

/// Owns a CUDA event (created with timing enabled).
class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace

TimingStats time_on_stream(const StreamWork& work, const TimingOptions& options, cudaStream_t stream,
                           L2Flusher* flusher, const StreamWork& before_each) {
  if (options.reps < 1) throw std::invalid_argument("time_on_stream: reps must be at least 1");
  int reps = options.reps;
  for (int i = 0; i < options.warmup; ++i) {
    if (before_each) before_each(stream);
    if (i == 0 && options.budget_ms > 0.0) {
      // The first warm-up, timed: how long is one run? (A cold run: an overestimate, if anything.)
      Event first_start, first_stop;
      CUDA_CHECK(cudaEventRecord(first_start.get(), stream));
      work(stream);
      CUDA_CHECK(cudaEventRecord(first_stop.get(), stream));
      CUDA_CHECK(cudaEventSynchronize(first_stop.get()));
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, first_start.get(), first_stop.get()));
      if (ms * reps > options.budget_ms) {
        reps = std::max(std::min(options.min_reps, options.reps), static_cast<int>(options.budget_ms / ms));
      }
      if (ms > options.budget_ms / 20.0) break;  // one long run warms everything up
      continue;
    }
    work(stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));

  // All repetitions are enqueued back to back, each between its own pair of events; the host
  // waits once at the end, so no host latency leaks into the measurement.
  std::vector<Event> start(reps), stop(reps);
  for (int i = 0; i < reps; ++i) {
    if (before_each) before_each(stream);
    if (flusher != nullptr && options.flush_l2) flusher->flush(stream);
    CUDA_CHECK(cudaEventRecord(start[i].get(), stream));
    work(stream);
    CUDA_CHECK(cudaEventRecord(stop[i].get(), stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<double> samples(reps);
  for (int i = 0; i < reps; ++i) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start[i].get(), stop[i].get()));
    samples[i] = ms;
  }
  return summarize(std::move(samples));
}

}  // namespace tut
