#include "common/report.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace tut {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::ours: return "ours";
    case Kind::library: return "library";
    case Kind::exercise: return "exercise";
    case Kind::solution: return "solution";
  }
  return "?";
}

namespace {

double throughput(const ResultRow& row, Metric metric) { return metric == Metric::gbps ? row.gbps : row.tflops; }

bool timed(const ResultRow& row) { return !row.skipped && row.time.reps > 0 && row.time.median_ms > 0.0; }

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

const ResultRow* ProblemResult::find(const std::string& version) const {
  for (const auto& row : rows) {
    if (row.info.name == version) return &row;
  }
  return nullptr;
}

void ProblemResult::finalize() {
  for (auto& row : rows) {
    if (!timed(row)) continue;
    const double seconds = row.time.median_ms * 1e-3;
    row.gbps = row.bytes / seconds / 1e9;
    row.tflops = row.flops / seconds / 1e12;
    row.pct_of_peak = peak > 0.0 ? 100.0 * throughput(row, metric) / peak : 0.0;
  }
  const ResultRow* base = baseline.empty() ? nullptr : find(baseline);
  const ResultRow* lib = library.empty() ? nullptr : find(library);
  for (const auto& row : rows) {
    if (base == nullptr && row.info.kind == Kind::ours && timed(row)) base = &row;
    if (lib == nullptr && row.info.kind == Kind::library && timed(row)) lib = &row;
  }
  baseline = base != nullptr ? base->info.name : "";
  library = lib != nullptr ? lib->info.name : "";
  for (auto& row : rows) {
    if (!timed(row)) continue;
    row.speedup = base != nullptr && timed(*base) ? base->time.median_ms / row.time.median_ms : 0.0;
    const double lib_throughput = lib != nullptr && timed(*lib) ? throughput(*lib, metric) : 0.0;
    row.vs_library = lib_throughput > 0.0 ? throughput(row, metric) / lib_throughput : 0.0;
  }
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  return fixed(bytes, u == 0 ? 0 : 2) + " " + units[u];
}

std::string relative_error_text(double rel_err) {
  if (!std::isfinite(rel_err)) return "NaN/Inf";
  if (rel_err == 0.0) return "0";
  char text[32];
  std::snprintf(text, sizeof(text), "%.1e", rel_err);
  return text;
}

void print_table(std::ostream& os, const ProblemResult& p) {
  const bool bw = p.metric == Metric::gbps;
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"version", "kind", "median ms", "min..max ms", bw ? "GB/s" : "TFLOP/s", "% peak", "vs v0",
                   "vs lib", "rel. err", "check"});
  for (const auto& r : p.rows) {
    if (r.skipped) {
      cells.push_back(
          {r.info.name, kind_name(r.info.kind), "-", "-", "-", "-", "-", "-", "-", "skipped: " + r.skip_reason});
      continue;
    }
    const bool t = timed(r);
    const std::string verdict = r.correct ? "ok" : "WRONG";
    cells.push_back({r.info.name, kind_name(r.info.kind), t ? fixed(r.time.median_ms, 4) : "-",
                     t ? fixed(r.time.min_ms, 4) + ".." + fixed(r.time.max_ms, 4) : "-",
                     t ? fixed(bw ? r.gbps : r.tflops, bw ? 0 : 2) : "-", t && p.peak > 0 ? fixed(r.pct_of_peak, 1) : "-",
                     t && r.speedup > 0 ? fixed(r.speedup, 2) + "x" : "-",
                     t && r.vs_library > 0 ? fixed(r.vs_library, 3) : "-", relative_error_text(r.rel_err), verdict});
  }
  std::vector<std::size_t> width(cells[0].size(), 0);
  for (const auto& line : cells)
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());

  os << "\n== " << p.label << " (" << p.dtype << ")";
  if (p.peak > 0) os << "   peak: " << fixed(p.peak, bw ? 0 : 2) << (bw ? " GB/s " : " TFLOP/s ") << p.peak_name;
  os << "\n";
  for (std::size_t l = 0; l < cells.size(); ++l) {
    for (std::size_t c = 0; c < cells[l].size(); ++c) {
      const bool left = c < 2 || c + 1 == cells[l].size();
      const std::string& s = cells[l][c];
      const std::string pad(width[c] - s.size(), ' ');
      os << (c == 0 ? "" : "  ") << (left ? s + (c + 1 == cells[l].size() ? "" : pad) : pad + s);
    }
    os << "\n";
    if (l == 0) {  // the rule spans the columns up to the header of the last (a skip reason may be long)
      std::size_t total = cells[0].back().size();
      for (std::size_t c = 0; c + 1 < width.size(); ++c) total += width[c] + 2;
      os << std::string(total, '-') << "\n";
    }
  }
}

Json RunReport::to_json() const {
  Json root = Json::object();
  root.set("chapter", chapter);
  root.set("git", git);
  Json dev = Json::object();
  dev.set("name", device.name);
  dev.set("compute_capability", std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor));
  dev.set("sm_count", device.sm_count);
  dev.set("l2_bytes", static_cast<std::int64_t>(device.l2_bytes));
  dev.set("memory_bytes", static_cast<std::int64_t>(device.global_bytes));
  dev.set("copy_gbps", device.copy_gbps);
  dev.set("copy_bytes", static_cast<std::int64_t>(device.copy_bytes));
  root.set("device", std::move(dev));
  Json problems_json = Json::array();
  for (const auto& p : problems) {
    Json pj = Json::object();
    pj.set("label", p.label);
    Json shape = Json::object();
    for (const auto& [k, v] : p.shape) shape.set(k, v);
    pj.set("shape", std::move(shape));
    pj.set("dtype", p.dtype);
    pj.set("metric", p.metric == Metric::gbps ? "gbps" : "tflops");
    pj.set("peak", p.peak);
    pj.set("peak_name", p.peak_name);
    pj.set("baseline", p.baseline);
    pj.set("library", p.library);
    Json results = Json::array();
    for (const auto& r : p.rows) {
      Json rj = Json::object();
      rj.set("version", r.info.name);
      rj.set("kind", kind_name(r.info.kind));
      rj.set("summary", r.info.summary);
      rj.set("skipped", r.skipped);
      if (r.skipped) rj.set("skip_reason", r.skip_reason);
      rj.set("correct", r.skipped ? Json() : Json(r.correct));  // null: never ran
      rj.set("rel_err", r.rel_err);
      rj.set("max_abs_err", r.max_abs_err);
      const bool t = timed(r);
      rj.set("median_ms", t ? Json(r.time.median_ms) : Json());
      rj.set("min_ms", t ? Json(r.time.min_ms) : Json());
      rj.set("max_ms", t ? Json(r.time.max_ms) : Json());
      rj.set("reps", r.time.reps);
      rj.set("bytes", r.bytes);
      rj.set("flops", r.flops);
      rj.set("gbps", t ? Json(r.gbps) : Json());
      rj.set("tflops", t ? Json(r.tflops) : Json());
      rj.set("pct_of_peak", t && p.peak > 0 ? Json(r.pct_of_peak) : Json());
      rj.set("speedup_vs_baseline", t && r.speedup > 0 ? Json(r.speedup) : Json());
      rj.set("vs_library", t && r.vs_library > 0 ? Json(r.vs_library) : Json());
      results.push(std::move(rj));
    }
    pj.set("results", std::move(results));
    problems_json.push(std::move(pj));
  }
  root.set("problems", std::move(problems_json));
  return root;
}

std::string RunReport::to_csv() const {
  std::ostringstream os;
  os << "chapter,problem,dtype,version,kind,skipped,correct,median_ms,min_ms,max_ms,gbps,tflops,pct_of_peak,"
        "speedup,vs_library\n";
  for (const auto& p : problems) {
    for (const auto& r : p.rows) {
      const bool t = timed(r);
      os << chapter << ",\"" << p.label << "\"," << p.dtype << "," << r.info.name << "," << kind_name(r.info.kind)
         << "," << (r.skipped ? 1 : 0) << "," << (r.correct ? 1 : 0) << ",";
      if (t) {
        os << r.time.median_ms << "," << r.time.min_ms << "," << r.time.max_ms << "," << r.gbps << "," << r.tflops
           << "," << r.pct_of_peak << "," << r.speedup << "," << r.vs_library;
      } else {
        os << ",,,,,,,";
      }
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace tut
