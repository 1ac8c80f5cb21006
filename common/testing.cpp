#include "common/testing.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "common/check.hpp"

namespace tut::testing {

namespace {
bool g_skipped = false;
constexpr std::uint32_t kSentinelBits = 0x7F7F7F7Fu;  // a finite float (3.4e38), unlike the NaN poison
}  // namespace

std::vector<std::int64_t> sizes_1d() {
  std::vector<std::int64_t> sizes = {1,    2,    3,    4,    5,    7,     8,     13,    31,           32,
                                     33,   63,   64,   65,   127,  128,   129,   255,   256,          257,
                                     511,  1000, 1023, 1024, 1025, 4096,  4097,  65535, 65536,        65537,
                                     (1 << 20) - 1, (1 << 20) + 3, 3 * (1 << 20) + 1};
  for (std::int64_t n : extra_sizes()) sizes.push_back(n);
  if (sanitizing()) {
    std::vector<std::int64_t> small;
    for (auto n : sizes)
      if (n <= 70000) small.push_back(n);
    return small;
  }
  return sizes;
}

std::vector<std::int64_t> extra_sizes() {
  std::vector<std::int64_t> sizes;
  if (const char* extra = std::getenv("TUTORIAL_EXTRA_SIZES")) {
    std::stringstream ss(extra);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (!item.empty()) sizes.push_back(std::stoll(item));
    }
  }
  return sizes;
}

std::vector<Shape2> sanitizer_sized(const std::vector<Shape2>& shapes) {
  if (!sanitizing()) return shapes;
  std::vector<Shape2> small;
  for (const auto& s : shapes)
    if (s.first * s.second <= 70000) small.push_back(s);
  return small;
}

std::uint64_t seed() {
  if (const char* s = std::getenv("TUTORIAL_SEED")) return std::strtoull(s, nullptr, 10);
  return 20240601;
}

bool sanitizing() {
  const char* s = std::getenv("TUTORIAL_SANITIZE");
  return s != nullptr && std::string(s) == "1";
}

void skip_run(const std::string& reason) {
  std::cout << "SKIPPED: " << reason << "\n";
  g_skipped = true;
}

bool run_was_skipped() { return g_skipped; }

std::size_t free_device_bytes() {
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return 0;
  return free_bytes;
}

GuardedBuffer::GuardedBuffer(std::size_t n, std::size_t offset)
    : n_(n), offset_(offset), total_(2 * kGuard + offset + n) {
  CUDA_CHECK(cudaMalloc(&base_, total_ * sizeof(float)));
  poison();
}

GuardedBuffer::~GuardedBuffer() { cudaFree(base_); }

void GuardedBuffer::poison() {
  std::vector<float> host(total_);
  float sentinel = 0.0f;
  std::memcpy(&sentinel, &kSentinelBits, sizeof sentinel);
  std::fill(host.begin(), host.end(), sentinel);
  CUDA_CHECK(cudaMemcpy(base_, host.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(data(), 0xFF, n_ * sizeof(float)));  // NaN
}

void GuardedBuffer::upload(const std::vector<float>& values) {
  if (values.size() != n_) throw std::invalid_argument("GuardedBuffer::upload: wrong number of values");
  poison();
  CUDA_CHECK(cudaMemcpy(data(), values.data(), n_ * sizeof(float), cudaMemcpyHostToDevice));
}

std::vector<float> GuardedBuffer::to_host() const {
  std::vector<float> host(n_);
  CUDA_CHECK(cudaMemcpy(host.data(), base_ + kGuard + offset_, n_ * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

std::string GuardedBuffer::check_guards() const {
  std::vector<std::uint32_t> host(total_);
  CUDA_CHECK(cudaMemcpy(host.data(), base_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
  const std::size_t first = kGuard + offset_, last = first + n_;
  for (std::size_t i = 0; i < total_; ++i) {
    if (i >= first && i < last) continue;
    if (host[i] != kSentinelBits) {
      const long long rel = static_cast<long long>(i) - static_cast<long long>(first);
      return "write outside the output: element " + std::to_string(rel) + " (valid: 0.." + std::to_string(n_ - 1) +
             ") was overwritten";
    }
  }
  return "";
}

std::vector<std::size_t> sample_indices(std::size_t n, std::size_t dense_from, std::size_t run, std::size_t pitch) {
  if (run == 0 || run > pitch) throw std::invalid_argument("sample_indices: need 0 < run <= pitch");
  dense_from = std::min(dense_from, n);
  const std::size_t rows = dense_from / pitch;  // runs [k * pitch, k * pitch + run), all below dense_from
  std::vector<std::size_t> index;
  index.reserve(rows * run + (n - dense_from));
  for (std::size_t k = 0; k < rows; ++k)
    for (std::size_t j = 0; j < run; ++j) index.push_back(k * pitch + j);
  for (std::size_t i = dense_from; i < n; ++i) index.push_back(i);
  return index;
}

DeviceSample sample_device_array(const float* device, std::size_t n, std::size_t dense_from, std::size_t run,
                                 std::size_t pitch) {
  if (run == 0 || run > pitch) throw std::invalid_argument("sample_device_array: need 0 < run <= pitch");
  DeviceSample s;
  s.index = sample_indices(n, dense_from, run, pitch);
  dense_from = std::min(dense_from, n);
  const std::size_t rows = dense_from / pitch;
  const std::size_t sparse = rows * run;
  s.value.resize(s.index.size());
  if (rows > 0) {
    CUDA_CHECK(cudaMemcpy2D(s.value.data(), run * sizeof(float), device, pitch * sizeof(float), run * sizeof(float),
                            rows, cudaMemcpyDeviceToHost));
  }
  if (n > dense_from) {
    CUDA_CHECK(cudaMemcpy(s.value.data() + sparse, device + dense_from, (n - dense_from) * sizeof(float),
                          cudaMemcpyDeviceToHost));
  }
  return s;
}

std::string compare_bits(const std::vector<float>& got, const std::vector<float>& expected) {
  if (got.size() != expected.size()) return "sizes differ";
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0) {
      return "input element " + std::to_string(i) + " was modified (" + std::to_string(expected[i]) + " -> " +
             std::to_string(got[i]) + ")";
    }
  }
  return "";
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

/// One kernel's lines of a `ptxas -v` report (-1 where the report did not say).
struct PtxasUsage {
  std::string function;  // the entry function's (mangled) name
  int registers = -1, stack = -1, spill_stores = -1, spill_loads = -1;
};

/// Parses `ptxas -v` output: "Compiling entry function 'X'", then "N bytes stack frame, N bytes
/// spill stores, N bytes spill loads", then "Used N registers", per kernel.
std::vector<PtxasUsage> parse_ptxas(const std::string& log) {
  std::vector<PtxasUsage> out;
  const std::regex entry(R"(Compiling entry function '([^']+)')");
  const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  const std::regex regs(R"(Used (\d+) registers)");
  std::istringstream lines(log);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, entry)) {
      out.push_back({m[1], -1, -1, -1, -1});
    } else if (!out.empty() && std::regex_search(line, m, frame) && out.back().stack < 0) {
      out.back().stack = std::stoi(m[1]);
      out.back().spill_stores = std::stoi(m[2]);
      out.back().spill_loads = std::stoi(m[3]);
    } else if (!out.empty() && std::regex_search(line, m, regs) && out.back().registers < 0) {
      out.back().registers = std::stoi(m[1]);
    }
  }
  return out;
}

}  // namespace

void require_no_spills(const std::string& ptxas_log) {
  const std::vector<PtxasUsage> kernels = parse_ptxas(ptxas_log);
  REQUIRE_FALSE(kernels.empty());
  for (const PtxasUsage& u : kernels) {
    INFO(u.function << ": " << u.registers << " registers, " << u.stack << " bytes stack, " << u.spill_stores
                    << " bytes spill stores, " << u.spill_loads << " bytes spill loads");
    REQUIRE(u.registers > 0);
    REQUIRE(u.stack == 0);
    REQUIRE(u.spill_stores == 0);
    REQUIRE(u.spill_loads == 0);
  }
}

void require_wgmma_as_written(const std::string& ptxas_log) {
  INFO(ptxas_log);
  for (const char* code : {"C7517", "C7510", "C7513", "C7508", "serialized"}) {
    REQUIRE(ptxas_log.find(code) == std::string::npos);
  }
}

}  // namespace tut::testing
