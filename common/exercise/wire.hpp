/// @file
/// @brief What the exercise checker hands the student's process, and what that process hands back.
///
/// An exercise is checked by two processes (docs/guides/grading.md, "What a submission can and
/// cannot affect"):
/// - the **runner** (`exercise_<chapter>`, `solution_<chapter>`) links the harness and one exercise
///   file, nothing else. It reads a *request* (cases: parameters, array sizes, input data), runs the
///   exercise's launcher on the GPU, and writes a *response* (every output, the guard zones around
///   every array, the times). It decides nothing;
/// - the **checker** (`check_<chapter>`) never loads student code. It makes the inputs, starts the
///   runner in a process of its own, reads the response, compares every output with the CPU
///   reference and writes the verdict.
///
/// Both sides use this file. The format is plain little-endian binary (both processes run on the
/// same machine); the reader checks every length, because a response is written by student code
/// and may be malformed on purpose or by accident.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tut::exercise {

/// Element type of an array.
enum class DType : std::uint8_t { f32 = 1, bf16 = 2, i32 = 3 };

/// Bytes per element of `t`.
std::size_t dtype_bytes(DType t);

/// What the runner does with an array.
enum class Role : std::uint8_t {
  in = 1,       ///< uploaded before every run; must come back unchanged
  out = 2,      ///< poisoned (all bytes 0xFF: NaN for floats) before every run; checked after it
  inout = 3,    ///< uploaded before every run (e.g. C when beta != 0); checked after it
  scratch = 4,  ///< a workspace: poisoned before every run, not checked (its guards are)
};

/// One device array of a case. The runner allocates it with kGuardBytes of guard on each side and
/// places its first element `offset` elements past a 256-byte boundary (a misaligned start).
struct ArraySpec {
  std::string name;          ///< the launcher's name for it, e.g. "a"
  DType dtype = DType::f32;  ///< element type
  Role role = Role::in;      ///< what the runner does with it
  std::uint64_t count = 0;   ///< elements
  std::uint32_t offset = 0;  ///< elements past an aligned address

  /// count * dtype_bytes(dtype).
  std::uint64_t bytes() const { return count * dtype_bytes(dtype); }
};

/// Bytes of guard on each side of every array (filled with kGuardByte).
constexpr std::size_t kGuardBytes = 4096;
/// The guard fill: 0xA5A5A5A5 is a finite float (-2.9e-16), unlike the NaN poison.
constexpr unsigned char kGuardByte = 0xA5;
/// The poison of outputs and workspaces.
constexpr unsigned char kPoisonByte = 0xFF;

/// One case of a request.
///
/// A correctness case (`reps == 0`) is run twice: directly on input set 0, and as a CUDA graph
/// captured while set 0 is loaded and launched after set 1 is loaded (when `sets >= 2`), so that an
/// answer computed on the host at capture time, or remembered from the last call, is wrong. A
/// timed case (`reps > 0`) runs `warmup` untimed calls on set 0, then `reps` timed calls, each on
/// the input set `order[r]`, reloaded and with the outputs poisoned and L2 flushed before it; every
/// repetition's outputs come back.
struct CaseRequest {
  std::string name;                                         ///< e.g. "m=7 n=5 k=3 alpha=-1.5 beta=0.75"
  std::vector<std::pair<std::string, std::int64_t>> ints;   ///< integer parameters of the launcher
  std::vector<std::pair<std::string, double>> reals;        ///< real parameters of the launcher
  std::vector<ArraySpec> arrays;                            ///< every array the launcher is given
  std::uint32_t sets = 1;                                   ///< input sets in `data`
  std::uint32_t reps = 0;                                   ///< 0: correctness case; > 0: timed case
  std::uint32_t warmup = 0;                                 ///< untimed calls before a timed case
  std::vector<std::uint32_t> order;                         ///< timed: the set of each repetition
  /// data[set][i]: the bytes of the i-th array whose role is in or inout, for input set `set`.
  std::vector<std::vector<std::vector<unsigned char>>> data;

  /// Indices (into `arrays`) of the arrays that are uploaded: role in or inout, in order.
  std::vector<std::size_t> uploaded() const;
};

/// One array as it came back from a run: the guard before it (with the `offset` elements before
/// the first element), its bytes, and the guard after it. Timed runs send only `data`.
struct ArrayBack {
  std::vector<unsigned char> before;  ///< the guard before the array (and the `offset` elements before it)
  std::vector<unsigned char> data;    ///< the array's bytes
  std::vector<unsigned char> after;   ///< the guard after it
};

/// One run of a case.
struct RunBack {
  std::uint32_t set = 0;           ///< the input set it ran on
  bool captured = false;           ///< launched as the captured graph
  double ms = -1.0;                ///< timed runs: elapsed GPU time between the events
  std::vector<ArrayBack> arrays;   ///< as many as the case's arrays (timed runs: out/inout filled only)
};

/// Everything that came back for one case.
struct CaseBack {
  std::string error;                  ///< empty: the launcher returned and the GPU finished; else why not
  std::int32_t kernel_nodes = -1;     ///< kernels in the captured graph (-1: not captured)
  std::int32_t host_nodes = -1;       ///< host callbacks in it
  std::string capture_error;          ///< why the launcher could not be captured, if it could not
  std::vector<std::string> libraries; ///< shared objects loaded in the runner after the case
  std::vector<RunBack> runs;          ///< the runs, in the order they ran
};

/// Thrown by the readers on a malformed or truncated file.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Writes the request file (all cases). Throws std::runtime_error on I/O failure.
void write_request(const std::string& path, const std::vector<CaseRequest>& cases);

/// Reads a request file. Throws FormatError.
std::vector<CaseRequest> read_request(const std::string& path);

/// Appends records to a response file, one case at a time (flushed after each, so that a process
/// that dies in case k leaves cases 0..k-1 readable).
class ResponseWriter {
 public:
  /// Creates (truncates) the response file at `path`.
  explicit ResponseWriter(const std::string& path);
  ~ResponseWriter();
  ResponseWriter(const ResponseWriter&) = delete;
  ResponseWriter& operator=(const ResponseWriter&) = delete;

  /// Starts case `index`: its error, capture facts, libraries, and how many runs follow.
  void begin_case(std::uint32_t index, const CaseBack& header, std::uint32_t runs);
  /// One run of the current case.
  void run(const RunBack& run);
  /// Ends the current case and flushes.
  void end_case();

 private:
  std::FILE* file_ = nullptr;
};

/// Reads a response file written by ResponseWriter, one case at a time, runs included. Tolerates a
/// truncated tail (the process died): next() then returns false and truncated() says so.
class ResponseReader {
 public:
  /// Opens `path`; `cases` is the request it answers (the sizes every array must have).
  ResponseReader(const std::string& path, const std::vector<CaseRequest>& cases);
  ~ResponseReader();
  ResponseReader(const ResponseReader&) = delete;
  ResponseReader& operator=(const ResponseReader&) = delete;

  /// Reads the next whole case into `index` and `back`; false at the end (or a truncated record).
  /// Throws FormatError when what is there is not a response to this request.
  bool next(std::uint32_t& index, CaseBack& back);
  /// True when the file ended inside a record (the runner died while writing).
  bool truncated() const { return truncated_; }

 private:
  std::FILE* file_ = nullptr;
  const std::vector<CaseRequest>& cases_;
  bool truncated_ = false;
};

}  // namespace tut::exercise
