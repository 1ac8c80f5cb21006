#include "common/launch.hpp"

#include <map>
#include <mutex>
#include <set>
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

void allow_dynamic_smem(const void* kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;  // the default limit
  static std::mutex mutex;
  static std::set<std::pair<const void*, int>> done;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  if (done.count({kernel, device}) != 0) return;
  int optin = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (static_cast<std::size_t>(optin) < bytes) {
    throw std::runtime_error("this GPU gives a block " + std::to_string(optin / 1024) +
                             " KiB of shared memory; the kernel needs " + std::to_string(bytes / 1024) + " KiB");
  }
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  done.insert({kernel, device});
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
