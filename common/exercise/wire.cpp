#include "common/exercise/wire.hpp"

#include <algorithm>
#include <cstring>

namespace tut::exercise {

namespace {

constexpr char kRequestMagic[8] = {'T', 'U', 'T', 'R', 'E', 'Q', '1', '\n'};
constexpr char kResponseMagic[8] = {'T', 'U', 'T', 'R', 'E', 'S', '1', '\n'};
constexpr std::uint32_t kCaseMark = 0x43415345u;  // "CASE"
constexpr std::uint32_t kRunMark = 0x52554E21u;   // "RUN!"
constexpr std::uint32_t kEndMark = 0x454E4421u;   // "END!"
// Limits on what a reader accepts: a response is written by student code.
constexpr std::uint64_t kMaxString = 1u << 20;
constexpr std::uint64_t kMaxItems = 1u << 20;

/// Little-endian scalar and string output on a FILE*.
class Out {
 public:
  explicit Out(std::FILE* f) : f_(f) {}
  void bytes(const void* p, std::size_t n) {
    if (n > 0 && std::fwrite(p, 1, n, f_) != n) throw std::runtime_error("exercise wire: write failed");
  }
  template <class T>
  void put(T v) {
    bytes(&v, sizeof v);
  }
  void str(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  void blob(const std::vector<unsigned char>& b) {
    put<std::uint64_t>(b.size());
    bytes(b.data(), b.size());
  }

 private:
  std::FILE* f_;
};

/// The matching input, with every length checked; `eof_ok` lets a reader stop cleanly at a record
/// boundary.
class In {
 public:
  explicit In(std::FILE* f) : f_(f) {}
  /// Reads exactly n bytes; returns false on a short read (end of file).
  bool try_bytes(void* p, std::size_t n) { return n == 0 || std::fread(p, 1, n, f_) == n; }
  void bytes(void* p, std::size_t n) {
    if (!try_bytes(p, n)) throw Truncated{};
  }
  template <class T>
  T get() {
    T v{};
    bytes(&v, sizeof v);
    return v;
  }
  std::uint64_t count(std::uint64_t most, const char* what) {
    const auto n = get<std::uint64_t>();
    if (n > most) throw FormatError(std::string("exercise wire: ") + what + " too large");
    return n;
  }
  std::string str() {
    std::string s(count(kMaxString, "string"), '\0');
    bytes(s.data(), s.size());
    return s;
  }
  std::vector<unsigned char> blob(std::uint64_t expected) {
    const auto n = get<std::uint64_t>();
    if (n != expected) {
      throw FormatError("exercise wire: an array came back with " + std::to_string(n) + " bytes, " +
                        std::to_string(expected) + " expected");
    }
    std::vector<unsigned char> b(n);
    bytes(b.data(), n);
    return b;
  }
  struct Truncated {};

 private:
  std::FILE* f_;
};

std::FILE* open_or_throw(const std::string& path, const char* mode) {
  std::FILE* f = std::fopen(path.c_str(), mode);
  if (f == nullptr) throw std::runtime_error("exercise wire: cannot open " + path);
  return f;
}

}  // namespace

std::size_t dtype_bytes(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::bf16: return 2;
    case DType::i32: return 4;
  }
  throw FormatError("exercise wire: unknown element type");
}

std::vector<std::size_t> CaseRequest::uploaded() const {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    if (arrays[i].role == Role::in || arrays[i].role == Role::inout) idx.push_back(i);
  }
  return idx;
}

void write_request(const std::string& path, const std::vector<CaseRequest>& cases) {
  std::FILE* f = open_or_throw(path, "wb");
  try {
    Out o(f);
    o.bytes(kRequestMagic, sizeof kRequestMagic);
    o.put<std::uint64_t>(cases.size());
    for (const CaseRequest& c : cases) {
      o.str(c.name);
      o.put<std::uint64_t>(c.ints.size());
      for (const auto& [k, v] : c.ints) {
        o.str(k);
        o.put<std::int64_t>(v);
      }
      o.put<std::uint64_t>(c.reals.size());
      for (const auto& [k, v] : c.reals) {
        o.str(k);
        o.put<double>(v);
      }
      o.put<std::uint64_t>(c.arrays.size());
      for (const ArraySpec& a : c.arrays) {
        o.str(a.name);
        o.put<std::uint8_t>(static_cast<std::uint8_t>(a.dtype));
        o.put<std::uint8_t>(static_cast<std::uint8_t>(a.role));
        o.put<std::uint64_t>(a.count);
        o.put<std::uint32_t>(a.offset);
      }
      o.put<std::uint32_t>(c.sets);
      o.put<std::uint32_t>(c.reps);
      o.put<std::uint32_t>(c.warmup);
      o.put<std::uint64_t>(c.order.size());
      for (std::uint32_t s : c.order) o.put<std::uint32_t>(s);
      const std::vector<std::size_t> up = c.uploaded();
      if (c.data.size() != c.sets) throw std::invalid_argument("write_request: " + c.name + ": data sets != sets");
      for (const auto& set : c.data) {
        if (set.size() != up.size()) throw std::invalid_argument("write_request: " + c.name + ": wrong array count");
        for (std::size_t i = 0; i < up.size(); ++i) {
          if (set[i].size() != c.arrays[up[i]].bytes()) {
            throw std::invalid_argument("write_request: " + c.name + ": array " + c.arrays[up[i]].name +
                                        " has the wrong size");
          }
          o.blob(set[i]);
        }
      }
    }
  } catch (...) {
    std::fclose(f);
    throw;
  }
  if (std::fclose(f) != 0) throw std::runtime_error("exercise wire: cannot write " + path);
}

std::vector<CaseRequest> read_request(const std::string& path) {
  std::FILE* f = open_or_throw(path, "rb");
  std::vector<CaseRequest> cases;
  try {
    In in(f);
    char magic[8];
    in.bytes(magic, sizeof magic);
    if (std::memcmp(magic, kRequestMagic, sizeof magic) != 0) throw FormatError("exercise wire: not a request file");
    const std::uint64_t n = in.count(kMaxItems, "case count");
    for (std::uint64_t ci = 0; ci < n; ++ci) {
      CaseRequest c;
      c.name = in.str();
      for (std::uint64_t i = 0, m = in.count(kMaxItems, "ints"); i < m; ++i) {
        std::string k = in.str();
        c.ints.emplace_back(std::move(k), in.get<std::int64_t>());
      }
      for (std::uint64_t i = 0, m = in.count(kMaxItems, "reals"); i < m; ++i) {
        std::string k = in.str();
        c.reals.emplace_back(std::move(k), in.get<double>());
      }
      for (std::uint64_t i = 0, m = in.count(kMaxItems, "arrays"); i < m; ++i) {
        ArraySpec a;
        a.name = in.str();
        a.dtype = static_cast<DType>(in.get<std::uint8_t>());
        a.role = static_cast<Role>(in.get<std::uint8_t>());
        a.count = in.get<std::uint64_t>();
        a.offset = in.get<std::uint32_t>();
        (void)dtype_bytes(a.dtype);  // validates
        c.arrays.push_back(std::move(a));
      }
      c.sets = in.get<std::uint32_t>();
      c.reps = in.get<std::uint32_t>();
      c.warmup = in.get<std::uint32_t>();
      for (std::uint64_t i = 0, m = in.count(kMaxItems, "order"); i < m; ++i) c.order.push_back(in.get<std::uint32_t>());
      const std::vector<std::size_t> up = c.uploaded();
      c.data.resize(c.sets);
      for (auto& set : c.data) {
        for (std::size_t i : up) set.push_back(in.blob(c.arrays[i].bytes()));
      }
      cases.push_back(std::move(c));
    }
  } catch (const In::Truncated&) {
    std::fclose(f);
    throw FormatError("exercise wire: " + path + " is truncated");
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::fclose(f);
  return cases;
}

ResponseWriter::ResponseWriter(const std::string& path) : file_(open_or_throw(path, "wb")) {
  Out(file_).bytes(kResponseMagic, sizeof kResponseMagic);
  std::fflush(file_);
}

ResponseWriter::~ResponseWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void ResponseWriter::begin_case(std::uint32_t index, const CaseBack& header, std::uint32_t runs) {
  Out o(file_);
  o.put<std::uint32_t>(kCaseMark);
  o.put<std::uint32_t>(index);
  o.str(header.error);
  o.put<std::int32_t>(header.kernel_nodes);
  o.put<std::int32_t>(header.host_nodes);
  o.str(header.capture_error);
  o.put<std::uint64_t>(header.libraries.size());
  for (const std::string& lib : header.libraries) o.str(lib);
  o.put<std::uint32_t>(runs);
}

void ResponseWriter::run(const RunBack& r) {
  Out o(file_);
  o.put<std::uint32_t>(kRunMark);
  o.put<std::uint32_t>(r.set);
  o.put<std::uint8_t>(r.captured ? 1 : 0);
  o.put<double>(r.ms);
  o.put<std::uint64_t>(r.arrays.size());
  for (const ArrayBack& a : r.arrays) {
    o.blob(a.before);
    o.blob(a.data);
    o.blob(a.after);
  }
}

void ResponseWriter::end_case() {
  Out(file_).put<std::uint32_t>(kEndMark);
  if (std::fflush(file_) != 0) throw std::runtime_error("exercise wire: cannot write the response");
}

ResponseReader::ResponseReader(const std::string& path, const std::vector<CaseRequest>& cases)
    : file_(std::fopen(path.c_str(), "rb")), cases_(cases) {
  if (file_ == nullptr) {
    truncated_ = true;  // nothing was written at all
    return;
  }
  char magic[8];
  In in(file_);
  if (!in.try_bytes(magic, sizeof magic)) {
    truncated_ = true;
    return;
  }
  if (std::memcmp(magic, kResponseMagic, sizeof magic) != 0) throw FormatError("the response file is not a response");
}

ResponseReader::~ResponseReader() {
  if (file_ != nullptr) std::fclose(file_);
}

bool ResponseReader::next(std::uint32_t& index, CaseBack& back) {
  if (file_ == nullptr || truncated_) return false;
  In in(file_);
  std::uint32_t mark = 0;
  if (!in.try_bytes(&mark, sizeof mark)) return false;  // clean end
  try {
    if (mark != kCaseMark) throw FormatError("exercise wire: a case record was expected");
    index = in.get<std::uint32_t>();
    if (index >= cases_.size()) throw FormatError("exercise wire: a response to a case that was not asked for");
    const CaseRequest& c = cases_[index];
    back = CaseBack{};
    back.error = in.str();
    back.kernel_nodes = in.get<std::int32_t>();
    back.host_nodes = in.get<std::int32_t>();
    back.capture_error = in.str();
    for (std::uint64_t i = 0, m = in.count(4096, "libraries"); i < m; ++i) back.libraries.push_back(in.str());
    const auto runs = in.get<std::uint32_t>();
    if (runs > std::max<std::uint32_t>(2, c.reps)) throw FormatError("exercise wire: more runs than asked for");
    for (std::uint32_t r = 0; r < runs; ++r) {
      if (in.get<std::uint32_t>() != kRunMark) throw FormatError("exercise wire: a run record was expected");
      RunBack run;
      run.set = in.get<std::uint32_t>();
      if (run.set >= c.sets) throw FormatError("exercise wire: a run on an input set that does not exist");
      run.captured = in.get<std::uint8_t>() != 0;
      run.ms = in.get<double>();
      const auto arrays = in.count(c.arrays.size(), "arrays");
      if (arrays != c.arrays.size()) throw FormatError("exercise wire: a run with the wrong number of arrays");
      for (const ArraySpec& spec : c.arrays) {
        ArrayBack a;
        // Timed runs send the outputs' bytes only (no guards, no inputs); other runs everything.
        const bool timed = c.reps > 0;
        const bool checked = spec.role == Role::out || spec.role == Role::inout;
        const std::uint64_t guard_before = kGuardBytes + std::uint64_t{spec.offset} * dtype_bytes(spec.dtype);
        a.before = in.blob(timed ? 0 : guard_before);
        a.data = in.blob(timed && !checked ? 0 : spec.bytes());
        a.after = in.blob(timed ? 0 : kGuardBytes);
        run.arrays.push_back(std::move(a));
      }
      back.runs.push_back(std::move(run));
    }
    if (in.get<std::uint32_t>() != kEndMark) throw FormatError("exercise wire: a case record did not end");
  } catch (const In::Truncated&) {
    truncated_ = true;
    return false;
  }
  return true;
}

}  // namespace tut::exercise
