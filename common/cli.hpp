/// @file
/// @brief The command line shared by every chapter executable.
///
/// Flags are declared once with a destination and limits; parse() fills them or throws
/// UsageError with one clear line. Both `--flag value` and `--flag=value` work. Integers are
/// decimal, or a power of two written `2^k` (e.g. `--n 2^28`); anything else is an error.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tut {

/// Bad command-line input: the message is one line meant for the user; exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses a positive-or-zero integer with limits; throws UsageError naming `flag` otherwise.
std::int64_t parse_integer(const std::string& flag, const std::string& text, std::int64_t min, std::int64_t max);

struct CommonOptions;

/// A declarative command-line parser. `-h` is accepted as `--help`. An unknown flag's error
/// names the program's own integer flags (its problem sizes: `--n`, `--m --n --k`, `--rows
/// --cols`, ...), that is, those not declared by add_common_options().
class Cli {
 public:
  /// `program` and a one-line `description` for --help.
  Cli(std::string program, std::string description);

  /// A switch without a value: sets `*dst` to true.
  void add_flag(const std::string& name, const std::string& help, bool* dst);
  /// An integer in [min, max].
  void add_int(const std::string& name, const std::string& metavar, const std::string& help, std::int64_t* dst,
               std::int64_t min, std::int64_t max);
  /// A string value.
  void add_string(const std::string& name, const std::string& metavar, const std::string& help, std::string* dst);
  /// A string value chosen from `choices`.
  void add_choice(const std::string& name, const std::string& help, std::string* dst, std::vector<std::string> choices);
  /// A repeatable string value (each occurrence appends).
  void add_list(const std::string& name, const std::string& metavar, const std::string& help,
                std::vector<std::string>* dst);

  /// Parses argv[1..argc); throws UsageError on any problem. Returns the flags that were given.
  std::vector<std::string> parse(int argc, const char* const* argv);
  /// The --help text.
  std::string help() const;

 private:
  struct Option {
    std::string name, metavar, help;
    bool takes_value = true;
    std::function<void(const std::string&)> apply;
    bool integer = false;  ///< declared with add_int
    bool common = false;   ///< declared by add_common_options
  };
  const Option* find(const std::string& name) const;
  void add(Option option);
  /// The program's own integer flags (its sizes), e.g. "--m --n --k"; empty if none.
  std::string size_flags() const;
  friend void add_common_options(Cli& cli, CommonOptions& options);

  std::string program_, description_;
  std::vector<Option> options_;
};

/// The flags every chapter executable shares (see DESIGN.md, "Command line").
struct CommonOptions {
  bool help = false;                  ///< --help
  bool list = false;                  ///< --list
  std::vector<std::string> versions;  ///< --version NAME (repeatable; empty: all but the exercise)
  std::int64_t reps = 20;             ///< --reps
  std::int64_t warmup = 3;            ///< --warmup
  /// Milliseconds of timed repetitions a slow version may take: it gets fewer repetitions (at
  /// least 5) and one warm-up. Set to 0 (no budget) when --reps or --warmup is given.
  double time_budget_ms = 2000.0;
  bool check_only = false;            ///< --check-only
  bool sweep = false;                 ///< --sweep
  std::string json;                   ///< --json FILE
  std::string csv;                    ///< --csv FILE
  std::int64_t seed = 2024;           ///< --seed
};

/// Declares the shared flags on `cli`, writing into `options`.
void add_common_options(Cli& cli, CommonOptions& options);

}  // namespace tut
