// CPU tests of the command line: every accepted form and every rejected one.
#include <limits>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/testing.hpp"

using tut::Cli;
using tut::CommonOptions;
using tut::UsageError;

namespace {

struct Parsed {
  CommonOptions common;
  std::int64_t n = 1024;
  std::string op = "add";
};

Parsed parse(std::vector<std::string> args) {
  Parsed p;
  Cli cli("prog", "test program");
  tut::add_common_options(cli, p.common);
  cli.add_int("--n", "N", "size", &p.n, 1, std::int64_t{1} << 40);
  cli.add_choice("--op", "operation", &p.op, {"add", "relu"});
  std::vector<const char*> argv = {"prog"};
  for (const auto& a : args) argv.push_back(a.c_str());
  cli.parse(static_cast<int>(argv.size()), argv.data());
  return p;
}

}  // namespace

TEST_CASE("defaults hold when nothing is given", "[cli]") {
  const Parsed p = parse({});
  REQUIRE(p.n == 1024);
  REQUIRE(p.common.reps == 20);
  REQUIRE(p.common.versions.empty());
  REQUIRE_FALSE(p.common.check_only);
}

TEST_CASE("values: separate, inline, powers of two, repeatable", "[cli]") {
  const Parsed p = parse({"--n", "2^28", "--reps=7", "--version", "v1", "--version=v3", "--check-only", "--op", "relu",
                          "--json", "out.json", "--seed", "99"});
  REQUIRE(p.n == (std::int64_t{1} << 28));
  REQUIRE(p.common.reps == 7);
  REQUIRE(p.common.versions == std::vector<std::string>{"v1", "v3"});
  REQUIRE(p.common.check_only);
  REQUIRE(p.op == "relu");
  REQUIRE(p.common.json == "out.json");
  REQUIRE(p.common.seed == 99);
}

TEST_CASE("bad sizes are usage errors with a clear message", "[cli]") {
  const auto message = [](std::vector<std::string> args) {
    try {
      parse(args);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  REQUIRE(message({"--n", "0"}) == "--n: must be at least 1 (got '0')");
  REQUIRE(message({"--n", "-5"}) == "--n: must be at least 1 (got '-5')");
  REQUIRE(message({"--n", "abc"}) == "--n: expected a whole number or 2^k (got 'abc')");
  REQUIRE(message({"--n", "12x"}) == "--n: expected a whole number or 2^k (got '12x')");
  REQUIRE(message({"--n", "1.5"}) == "--n: expected a whole number or 2^k (got '1.5')");
  REQUIRE(message({"--n", ""}) == "--n: expected a number (got '')");
  REQUIRE(message({"--n", "2^"}) == "--n: expected a whole number or 2^k (got '2^')");
  REQUIRE(message({"--n", "2^63"}) == "--n: too large (got '2^63')");
  REQUIRE(message({"--n", "99999999999999999999"}) == "--n: too large (got '99999999999999999999')");
  REQUIRE(message({"--n", "2^41"}).find("must be at most") != std::string::npos);
}

TEST_CASE("unknown flags, missing values and stray arguments are usage errors", "[cli]") {
  REQUIRE_THROWS_AS(parse({"--frobnicate"}), UsageError);
  REQUIRE_THROWS_AS(parse({"--n"}), UsageError);
  REQUIRE_THROWS_AS(parse({"stray"}), UsageError);
  REQUIRE_THROWS_AS(parse({"--check-only=yes"}), UsageError);
  REQUIRE_THROWS_AS(parse({"--op", "mul"}), UsageError);
  REQUIRE_THROWS_AS(parse({"--reps", "0"}), UsageError);
  REQUIRE_THROWS_AS(parse({"--json", ""}), UsageError);
  try {
    parse({"--frobnicate"});
    FAIL("no error");
  } catch (const UsageError& e) {
    // The program's own integer flags (its sizes) are named; --reps, --seed etc. are not.
    REQUIRE(std::string(e.what()) == "unknown flag --frobnicate (this chapter's size flags: --n; see --help)");
  }
  CommonOptions o;
  Cli bare("prog", "no size flags");
  tut::add_common_options(bare, o);
  const char* argv[] = {"prog", "--frobnicate"};
  try {
    bare.parse(2, argv);
    FAIL("no error");
  } catch (const UsageError& e) {
    REQUIRE(std::string(e.what()) == "unknown flag --frobnicate (see --help)");
  }
}

TEST_CASE("-h is --help", "[cli]") {
  REQUIRE(parse({"-h"}).common.help);
  REQUIRE(parse({"--help"}).common.help);
  REQUIRE_THROWS_AS(parse({"-x"}), UsageError);
}

TEST_CASE("help lists every flag and the exit statuses", "[cli]") {
  CommonOptions o;
  Cli cli("prog", "test program");
  tut::add_common_options(cli, o);
  const std::string h = cli.help();
  for (const char* flag : {"--help", "--list", "--version", "--reps", "--check-only", "--json", "--csv", "--seed",
                           "--sweep"}) {
    REQUIRE(h.find(flag) != std::string::npos);
  }
  REQUIRE(h.find("exit status") != std::string::npos);
}

TEST_CASE("a flag declared twice is a programming error", "[cli]") {
  bool a = false;
  Cli cli("prog", "x");
  cli.add_flag("--a", "a", &a);
  REQUIRE_THROWS_AS(cli.add_flag("--a", "again", &a), std::logic_error);
}

TEST_CASE("parse_integer limits are inclusive", "[cli]") {
  REQUIRE(tut::parse_integer("--k", "5", 5, 5) == 5);
  REQUIRE(tut::parse_integer("--k", "2^0", 1, 10) == 1);
  REQUIRE(tut::parse_integer("--k", "9223372036854775807", 0, std::numeric_limits<std::int64_t>::max()) ==
          std::numeric_limits<std::int64_t>::max());
}
