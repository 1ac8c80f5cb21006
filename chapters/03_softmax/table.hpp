/// @file
/// @brief One problem of chapter 03's tables, checked then timed: what the chapter executable
/// (main.cpp) and its search (tune/main.cpp) share, so that both check every row the same way.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/device_compare.hpp"
#include "common/harness.hpp"
#include "softmax.hpp"

namespace softmax {

/// The five shapes (rows, cols) of the chapter's default table: square, long, short, very long
/// rows, and a large square.
const std::vector<std::pair<std::int64_t, std::int64_t>>& table_shapes();

/// The problem of an R x C softmax whose rows start `offset` floats past a 16-byte boundary: its
/// label, shape and memory needs. Throws tut::UsageError when R x C is too large.
tut::Problem table_problem(std::int64_t rows, std::int64_t cols, std::int64_t offset);

/// The inputs, the CPU reference and the copy roof's reference of one problem, and the
/// check-then-time of one row of its table (session.measure()).
class Table {
 public:
  /// Makes x (seeded, uniform in [-8, 8)), its double reference, and opens the problem's table
  /// in `session` with `baseline` as the "vs v0" row and `library` as the ratio's reference.
  Table(const tut::Problem& problem, tut::Session& session, const std::string& baseline, const std::string& library);
  /// Checks and times one row: `launch` on x, held to the bound of its summation `order` (a copy
  /// roof, `copy`, must reproduce x exactly); `skip` non-empty reports it skipped with that reason.
  void measure(const tut::VersionInfo& info, Launch launch, std::string skip, bool copy, Order order,
               const std::string& chapter);

 private:
  const tut::DeviceReference& copy_reference();  // x itself, made on first use

  tut::Session& session_;
  std::int64_t rows_, cols_, off_;
  std::size_t n_;
  tut::DeviceBuffer<float> x_, y_;
  std::vector<float> hx_;
  tut::DeviceReference reference_;
  tut::DeviceReference copy_reference_;
};

}  // namespace softmax
