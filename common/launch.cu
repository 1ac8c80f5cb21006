#include "common/launch.hpp"

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "common/check.hpp"
#include "common/device_info.hpp"

namespace tut {

int full_wave_blocks_of(const void* kernel, int threads, std::size_t dynamic_smem) {
  // The occupancy query costs microseconds: cache it so launchers stay cheap inside timing loops.
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, std::size_t, int>, int> cache;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_tuple(kernel, threads, dynamic_smem, device);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
  const int blocks = (per_sm > 0 ? per_sm : 1) * current_sm_count();
  cache.emplace(key, blocks);
  return blocks;
}

bool can_launch_dependent_early(const void* kernel) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, bool> cache;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_pair(kernel, device);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const bool ok = current_cc() >= 90 && attributes.ptxVersion >= 90;
  cache.emplace(key, ok);
  return ok;
}

unsigned blocks_for(std::int64_t items, std::int64_t per_block) {
  if (items < 0 || per_block <= 0) throw std::invalid_argument("blocks_for: negative size or empty block");
  const std::int64_t blocks = (items + per_block - 1) / per_block;
  if (blocks > 2147483647) {
    throw std::invalid_argument("grid of " + std::to_string(blocks) +
                                " blocks exceeds CUDA's limit of 2^31-1: use a grid-stride loop");
  }
  return static_cast<unsigned>(blocks);
}

}  // namespace tut
