#include "common/cli.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace tut {

std::int64_t parse_integer(const std::string& flag, const std::string& text, std::int64_t min, std::int64_t max) {
  const auto fail = [&](const std::string& why) -> std::int64_t {
    throw UsageError(flag + ": " + why + " (got '" + text + "')");
  };
  if (text.empty()) return fail("expected a number");
  std::int64_t value = 0;
  if (text.size() > 2 && text[0] == '2' && text[1] == '^') {
    const std::string exponent = text.substr(2);
    if (exponent.empty() || exponent.size() > 2 || exponent.find_first_not_of("0123456789") != std::string::npos) {
      return fail("expected a whole number or 2^k");
    }
    const int k = std::stoi(exponent);
    if (k > 62) return fail("too large");
    value = std::int64_t{1} << k;
  } else {
    const bool negative = text[0] == '-';
    const std::string digits = negative ? text.substr(1) : text;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
      return fail("expected a whole number or 2^k");
    }
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE) return fail("too large");
    value = parsed;
  }
  if (value < min) return fail("must be at least " + std::to_string(min));
  if (value > max) return fail("must be at most " + std::to_string(max));
  return value;
}

Cli::Cli(std::string program, std::string description)
    : program_(std::move(program)), description_(std::move(description)) {}

void Cli::add(Option option) {
  if (find(option.name) != nullptr) throw std::logic_error("Cli: flag declared twice: " + option.name);
  options_.push_back(std::move(option));
}

void Cli::add_flag(const std::string& name, const std::string& help, bool* dst) {
  add({name, "", help, false, [dst](const std::string&) { *dst = true; }});
}

void Cli::add_int(const std::string& name, const std::string& metavar, const std::string& help, std::int64_t* dst,
                  std::int64_t min, std::int64_t max) {
  add({name, metavar, help, true,
       [name, dst, min, max](const std::string& v) { *dst = parse_integer(name, v, min, max); }});
  options_.back().integer = true;
}

void Cli::add_string(const std::string& name, const std::string& metavar, const std::string& help,
                     std::string* dst) {
  add({name, metavar, help, true, [name, dst](const std::string& v) {
         if (v.empty()) throw UsageError(name + ": expected a value");
         *dst = v;
       }});
}

void Cli::add_choice(const std::string& name, const std::string& help, std::string* dst,
                     std::vector<std::string> choices) {
  std::string metavar;
  for (const auto& c : choices) metavar += (metavar.empty() ? "" : "|") + c;
  add({name, metavar, help, true, [name, dst, choices, metavar](const std::string& v) {
         for (const auto& c : choices) {
           if (v == c) {
             *dst = v;
             return;
           }
         }
         throw UsageError(name + ": expected one of " + metavar + " (got '" + v + "')");
       }});
}

void Cli::add_list(const std::string& name, const std::string& metavar, const std::string& help,
                   std::vector<std::string>* dst) {
  add({name, metavar, help, true, [name, dst](const std::string& v) {
         if (v.empty()) throw UsageError(name + ": expected a value");
         dst->push_back(v);
       }});
}

const Cli::Option* Cli::find(const std::string& name) const {
  for (const auto& o : options_) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

std::string Cli::size_flags() const {
  std::string flags;
  for (const auto& o : options_) {
    if (o.integer && !o.common) flags += (flags.empty() ? "" : " ") + o.name;
  }
  return flags;
}

std::vector<std::string> Cli::parse(int argc, const char* const* argv) {
  std::vector<std::string> given;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline_value = false;
    if (arg == "-h" && find("--help") != nullptr) arg = "--help";  // the usual short form
    if (arg.rfind("--", 0) == 0) {
      const auto eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline_value = true;
      }
    } else {
      throw UsageError("unexpected argument '" + arg + "' (see --help)");
    }
    const Option* option = find(arg);
    if (option == nullptr) {
      const std::string sizes = size_flags();
      throw UsageError("unknown flag " + arg + " (" +
                       (sizes.empty() ? std::string() : "this chapter's size flags: " + sizes + "; ") + "see --help)");
    }
    if (option->takes_value) {
      if (!has_inline_value) {
        if (i + 1 >= argc) throw UsageError(arg + ": missing value (see --help)");
        value = argv[++i];
      }
    } else if (has_inline_value) {
      throw UsageError(arg + ": takes no value");
    }
    option->apply(value);
    given.push_back(arg);
  }
  return given;
}

std::string Cli::help() const {
  std::ostringstream os;
  os << "usage: " << program_ << " [options]\n" << description_ << "\n\noptions:\n";
  for (const auto& o : options_) {
    std::string left = "  " + o.name + (o.metavar.empty() ? "" : " " + o.metavar);
    if (left.size() < 28) left.resize(28, ' ');
    else left += "\n" + std::string(28, ' ');
    os << left << o.help << "\n";
  }
  os << "\nexit status: 0 all checks passed, 1 a result was wrong, 2 bad command line,\n"
        "             3 no usable CUDA device, 4 a CUDA or library call failed\n";
  return os.str();
}

void add_common_options(Cli& cli, CommonOptions& o) {
  const std::size_t first = cli.options_.size();
  cli.add_flag("--help", "print this help and exit (also -h)", &o.help);
  cli.add_flag("--list", "list the versions (name, kind, minimum GPU, idea) and exit", &o.list);
  cli.add_list("--version", "NAME", "run only this version (repeatable; default: all but the exercise)",
               &o.versions);
  cli.add_int("--reps", "N",
              "timed repetitions per version (median reported; default 20, fewer but at least 5 for a version "
              "whose 20 runs would take over 2 s)",
              &o.reps, 1, 100000);
  cli.add_int("--warmup", "N", "untimed runs before timing (default 3; 1 for a run that takes over 0.1 s)",
              &o.warmup, 0, 1000);
  cli.add_flag("--check-only", "check correctness against the CPU reference, do not time", &o.check_only);
  cli.add_flag("--sweep", "run the chapter's size sweep instead of one problem", &o.sweep);
  cli.add_string("--json", "FILE", "write all results as JSON", &o.json);
  cli.add_string("--csv", "FILE", "write all results as CSV (one row per version and problem)", &o.csv);
  cli.add_int("--seed", "N", "seed of the random inputs", &o.seed, 0, std::numeric_limits<std::int64_t>::max());
  for (std::size_t i = first; i < cli.options_.size(); ++i) cli.options_[i].common = true;
}

}  // namespace tut
