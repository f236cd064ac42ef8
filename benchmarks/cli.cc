#include "benchmarks/cli.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "benchmarks/output_file.h"
#include "kernels/cpu_features.h"
#include "kernels/registry.h"
#include "plugin/plugin_backend.h"
#include "plugin/self_check.h"

namespace cryptobench::bench {
namespace {

// The temporary --benchmark_out file until it replaces the target: removed
// on every way out of the process but a signal that kills it.
std::string g_pending_output;
void remove_pending_output() {
  if (!g_pending_output.empty()) unlink(g_pending_output.c_str());
}

// complete_json: the file parses as Google Benchmark's JSON (a full disk or
// a file-size limit leaves it truncated: its writes are not checked).
bool complete_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return false;
  // Google Benchmark writes a bare NaN (the spread of counters that are all
  // 0), which strict JSON lacks: read it as null for this check.
  std::string json = text.str();
  for (const std::string_view token : {": NaN", ": -NaN", ": nan", ": -nan", ": inf", ": -inf"}) {
    for (std::size_t at = json.find(token); at != std::string::npos; at = json.find(token, at)) {
      json.replace(at, token.size(), ": null");
    }
  }
  const nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
  return !doc.is_discarded() && doc.is_object() && doc.contains("benchmarks") &&
         doc["benchmarks"].is_array();
}

constexpr const char* kUsage =
    "usage: cryptobench [--suite=NAME] [--backends=A,B,...] [--list-backends] [--list-suites]\n"
    "                   [--cpuprofile=FILE] [Google Benchmark flags]\n"
    "Measures AES backends on one suite (a slice of the benchmark grid); every benchmark\n"
    "checks its output against another library's. tools/run-benchmarks runs this binary\n"
    "and prints the answer; this is the binary alone.\n"
    "  --suite=NAME      which slice of the grid to run (default: decision; --list-suites)\n"
    "  --backends=LIST   comma-separated backends (default: every usable one)\n"
    "  --list-backends   show the backends compiled in, their versions and code paths\n"
    "  --plugin=PATH.so  also run this plugin as a backend (repeatable; also\n"
    "                    $CRYPTOBENCH_PLUGINS, ':'-separated): it must pass its\n"
    "                    self-check first (docs/plugins.md)\n"
    "  --list-suites     show the suites and how many benchmarks each registers here\n"
    "  --cpuprofile=FILE write a pprof CPU profile of the benchmarks run (gperftools;\n"
    "                    read it with: google-pprof --text BINARY FILE)\n"
    "  --design=rounds   (default with several repetitions) each repetition is a round\n"
    "                    in which a workload's backends run side by side, in a new\n"
    "                    random order; --design=interleaved: Google Benchmark's\n"
    "                    random interleaving of repetitions instead\n"
    "  --round-part=K/N  run only the K-th of N equal parts of the rounds (their\n"
    "                    numbers as in the whole run), so that a run's rounds can\n"
    "                    span N processes, each with its own memory layout;\n"
    "                    tools/run-benchmarks runs the parts and joins their JSON\n"
    "  --samples_out=FILE  each timed loop's 0.25 ms samples and contention probes,\n"
    "                    from which cryptobench-results forms every figure (put it\n"
    "                    beside --benchmark_out: the JSON names it)\n"
    "  -h, --help        this help\n"
    "Google Benchmark flags (every one works; the common ones):\n"
    "  --benchmark_filter=REGEX        the benchmarks whose name matches (RE2, POSIX syntax;\n"
    "                                  a leading - inverts); a name reads like\n"
    "    grid/backend:openssl/cipher:aes-128-cbc/op:encrypt/size:16384/codec:none/pool:on/\n"
    "    key:cached/real_time/threads:1\n"
    "  --benchmark_list_tests          list the selected benchmarks' names, run nothing\n"
    "  --benchmark_repetitions=N       repetitions of each benchmark\n"
    "  --benchmark_min_time=SECONDS    minimum time of each repetition\n"
    "  --benchmark_out=FILE            also write the results to FILE\n"
    "  --benchmark_out_format=json     ... as JSON (what cryptobench-results reads)\n"
    "  --benchmark_context=KEY=VALUE,...  add to the JSON's context\n"
    "Examples:\n"
    "  cryptobench --list-backends\n"
    "  cryptobench --suite=seed003 --backends=openssl,aesni\n"
    "  cryptobench --benchmark_filter='op:decrypt/size:16384/.*pool:on' \\\n"
    "      --benchmark_out=run.json --benchmark_out_format=json\n"
    "Exit status: 0 done, 1 a benchmark failed its verification, 2 bad usage (one line\n"
    "names it), 128 + N stopped by signal N (what finished is still written).\n"
    "More: docs/benchmarks.md\n";

// truthy: a boolean flag's value as Google Benchmark 1.7.1 reads it (empty,
// or anything but 0/f/n/false/no/off in any case, is true).
bool truthy(std::string v) {
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v.size() == 1) return v != "0" && v != "f" && v != "n";
  return v != "false" && v != "no" && v != "off";
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// take_value: matches "--name=value" or "--name value".
bool take_value(int argc, char** argv, int& i, const std::string& name, std::string* value) {
  const std::string arg = argv[i];
  if (arg.rfind(name + "=", 0) == 0) {
    *value = arg.substr(name.size() + 1);
    return true;
  }
  if (arg == name) {
    if (i + 1 >= argc) usage_error(name + " needs a value");
    *value = argv[++i];
    return true;
  }
  return false;
}

bool starts_with_flag(const std::string& arg, const std::string& name) {
  return arg == name || arg.rfind(name + "=", 0) == 0;
}

}  // namespace

void usage_error(const std::string& message) {
  std::fprintf(stderr, "cryptobench: %s\n", message.c_str());
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  // The help alone, whatever else is on the line or in the environment.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
  }
  if (const std::string problem = cpu_mask_problem(); !problem.empty()) usage_error(problem);
  Options o;
  o.benchmark_args.emplace_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (take_value(argc, argv, i, "--suite", &value)) {
      o.suite = value;
    } else if (take_value(argc, argv, i, "--backends", &value)) {
      o.backends = split_commas(value);
    } else if (take_value(argc, argv, i, "--plugin", &value)) {
      if (value.empty()) usage_error("--plugin takes the path of a plugin's shared library");
      o.plugins.push_back(value);
    } else if (arg == "--list-backends") {
      o.list_backends = true;
    } else if (arg == "--list-suites") {
      o.list_suites = true;
    } else if (take_value(argc, argv, i, "--cpuprofile", &value)) {
#ifndef CRYPTOBENCH_HAVE_GPERFTOOLS
      usage_error("--cpuprofile: built without gperftools (Debian: libgoogle-perftools-dev)");
#endif
      if (const std::string problem = output_target_problem(value); !problem.empty()) {
        usage_error("--cpuprofile: " + problem);
      }
      o.cpuprofile = value;
    } else if (take_value(argc, argv, i, "--design", &value)) {
      if (value != "rounds" && value != "interleaved") {
        usage_error("--design takes 'rounds' or 'interleaved', not '" + value + "'");
      }
      o.design = value;
      o.design_given = true;
    } else if (take_value(argc, argv, i, "--round-part", &value)) {
      char slash = 0;
      int used = 0;
      if (std::sscanf(value.c_str(), "%3d%c%3d%n", &o.round_part, &slash, &o.round_parts, &used) !=
              3 ||
          slash != '/' || static_cast<std::size_t>(used) != value.size() || o.round_part < 1 ||
          o.round_part > o.round_parts || !std::isdigit(static_cast<unsigned char>(value[0])) ||
          !std::isdigit(static_cast<unsigned char>(value[value.find('/') + 1]))) {
        usage_error("--round-part takes K/N (part K of N, 1 <= K <= N), not '" + value + "'");
      }
    } else if (take_value(argc, argv, i, "--samples_out", &value)) {
      if (const std::string problem = output_target_problem(value); !problem.empty()) {
        usage_error("--samples_out: " + problem);
      }
      o.samples_out = value;
    } else if (take_value(argc, argv, i, "--inject-noise", &value)) {
      char* end = nullptr;
      errno = 0;
      o.noise_seed = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || !std::isdigit(static_cast<unsigned char>(value[0])) || *end != '\0' ||
          errno != 0) {
        usage_error("--inject-noise takes a seed (a whole number), not '" + value + "'");
      }
      o.inject_noise = true;
    } else if (take_value(argc, argv, i, "--inject-slower", &value)) {
      const std::size_t colon = value.find(':');
      const std::string percent = colon == std::string::npos ? "" : value.substr(colon + 1);
      o.slower_backend = value.substr(0, colon);
      o.slower_percent = std::atoi(percent.c_str());
      if (o.slower_backend.empty() || percent.empty() || percent.size() > 2 ||
          !std::all_of(percent.begin(), percent.end(), ::isdigit) || o.slower_percent < 1) {
        usage_error("--inject-slower takes BACKEND:PERCENT (1 to 99), not '" + value + "'");
      }
    } else if (take_value(argc, argv, i, "--inject-fault", &value)) {
      if (value != "verify" && value != "tag")
        usage_error("--inject-fault takes 'verify' or 'tag'");
      (value == "verify" ? o.inject_verify_fault : o.inject_tag_fault) = true;
    } else {
      o.benchmark_args.push_back(arg);  // Google Benchmark's, checked by it
    }
  }
  if (find_suite(o.suite) == nullptr) {
    usage_error("unknown suite '" + o.suite + "'; valid suites: " + suite_names());
  }
  if (const char* env = std::getenv("CRYPTOBENCH_PLUGINS"); env != nullptr) {
    std::string list = env;
    std::replace(list.begin(), list.end(), ':', ',');
    for (const std::string& path : split_commas(list)) o.plugins.push_back(path);
  }
  // Before the backends are looked up: a plugin is one of them.
  try {
    plugin::add_plugins(o.plugins);
  } catch (const plugin::PluginError& e) {
    usage_error(e.what());
  }
  for (const std::string& name : o.backends) {
    if (name.empty()) usage_error("--backends has an empty name");
    if (find_backend(name) == nullptr) {
      usage_error("unknown backend '" + name + "'; compiled in: " + compiled_backend_names());
    }
  }
  return o;
}

double BenchmarkFlags::min_time() const {
  return std::strtod(value("--benchmark_min_time").c_str(), nullptr);
}

bool BenchmarkFlags::has(const std::string& name) const {
  return std::any_of(args_.begin(), args_.end(),
                     [&](const std::string& a) { return starts_with_flag(a, name); });
}

std::string BenchmarkFlags::value(const std::string& name) const {
  std::string v;
  for (const std::string& a : args_) {
    if (a.rfind(name + "=", 0) == 0) v = a.substr(name.size() + 1);
  }
  return v;
}

BenchmarkFlags::BenchmarkFlags(std::vector<std::string> args, const Suite& suite,
                               const Options& options)
    : args_(std::move(args)) {
  // Google Benchmark also takes its flags from BENCHMARK_<FLAG> variables;
  // turn those into arguments (right after argv[0], so explicit ones win) so
  // they get the same checks and handling.
  std::vector<std::string> env_flags;
  for (const char* name :
       {"repetitions", "min_time", "min_warmup_time", "out", "out_format", "filter", "format",
        "enable_random_interleaving", "list_tests", "context"}) {
    std::string var = std::string("BENCHMARK_") + name;
    for (char& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const char* env = std::getenv(var.c_str());
    if (env == nullptr) continue;
    const std::string flag = std::string("--benchmark_") + name;
    if (!has(flag)) env_flags.push_back(flag + "=" + env);
    unsetenv(var.c_str());
  }
  args_.insert(args_.begin() + 1, env_flags.begin(), env_flags.end());
  // --benchmark_context is added after the run's own context, never over it
  // (Google Benchmark would add it first, and the measured git_commit would
  // be the one dropped).
  const std::string context_flag = "--benchmark_context=";
  for (const std::string& a : args_) {
    if (a.rfind(context_flag, 0) != 0) continue;
    for (const std::string& pair : split_commas(a.substr(context_flag.size()))) {
      const std::size_t eq = pair.find('=');
      if (eq == std::string::npos || eq == 0) {
        usage_error("--benchmark_context takes KEY=VALUE pairs separated by commas, not '" + pair +
                    "'");
      }
      user_context_.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    }
  }
  std::erase_if(args_, [&](const std::string& a) { return a.rfind(context_flag, 0) == 0; });
  // The suite's minimum time, unless the command line or BENCHMARK_MIN_TIME
  // gave one.
  if (!has("--benchmark_min_time")) {
    args_.push_back("--benchmark_min_time=" + std::to_string(suite.min_time_seconds));
  }
  // Likewise its repetitions.
  if (!has("--benchmark_repetitions")) {
    args_.push_back("--benchmark_repetitions=" + std::to_string(suite.repetitions));
  }

  // 1.7.1 crashes on some values (a negative repetition count aborts in
  // vector::reserve): check the numeric flags first.
  const auto check_number = [&](const std::string& flag, double low, double high) {
    if (!has(flag)) return;
    const std::string text = value(flag);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == nullptr || *end != '\0' || !(v >= low && v <= high)) {
      char range[64];
      std::snprintf(range, sizeof range, "from %g to %g", low, high);
      usage_error(flag + " must be a number " + range + ", not '" + text + "'");
    }
  };
  check_number("--benchmark_repetitions", 1, 1000);
  check_number("--benchmark_min_time", 1e-6, 3600);
  check_number("--benchmark_min_warmup_time", 0, 3600);
  // Several repetitions are interleaved at random across benchmarks unless
  // the command line says otherwise: back-to-back repetitions share one
  // moment of a drifting machine, and their spread then understates how much
  // a second run differs.
  repetitions_ = std::atoi(value("--benchmark_repetitions").c_str());
  // The paired design (the default with several repetitions): repetitions
  // become rounds that cryptobench registers itself, so Google Benchmark
  // runs each once, in the registered order. An explicit interleaving flag
  // asks for Google Benchmark's design.
  const bool interleaving_given = has("--benchmark_enable_random_interleaving");
  if (interleaving_given && options.design_given && options.design == "rounds") {
    usage_error(
        "--design=rounds orders the repetitions itself: leave out "
        "--benchmark_enable_random_interleaving");
  }
  if (repetitions_ > 1 && options.design == "rounds" && !interleaving_given) {
    rounds_ = repetitions_;
    std::erase_if(
        args_, [](const std::string& a) { return starts_with_flag(a, "--benchmark_repetitions"); });
    args_.push_back("--benchmark_repetitions=1");
  } else if (repetitions_ > 1 && !interleaving_given) {
    args_.push_back("--benchmark_enable_random_interleaving=true");
  }
  if (options.round_parts > 0) {
    if (rounds_ == 0) {
      usage_error(
          "--round-part needs the rounds design with several repetitions "
          "(--benchmark_repetitions=N, N > 1)");
    }
    if (options.round_parts > rounds_) {
      usage_error("--round-part=" + std::to_string(options.round_part) + "/" +
                  std::to_string(options.round_parts) + ": more parts than the " +
                  std::to_string(rounds_) + " rounds");
    }
    // Part K of N: rounds (K-1)R/N + 1 to KR/N (parts differ by one round at most).
    first_round_ = (options.round_part - 1) * rounds_ / options.round_parts + 1;
    last_round_ = options.round_part * rounds_ / options.round_parts;
  } else if (rounds_ > 0) {
    first_round_ = 1;
    last_round_ = rounds_;
  }
  interleaved_ =
      rounds_ == 0 && repetitions_ > 1 && truthy(value("--benchmark_enable_random_interleaving"));

  // --benchmark_out is written to a temporary file beside it (created in
  // initialize()) and renamed once the JSON is complete and checked, so no
  // half-written file ever replaces a good one. The last occurrence wins, as
  // in Google Benchmark. The target is checked now, before anything runs: a
  // regular file or a new name in a writable folder, nothing else (a rename
  // would replace a device, FIFO, link or folder).
  for (std::size_t i = 0; i < args_.size(); ++i) {
    if (args_[i].rfind("--benchmark_out=", 0) == 0) out_arg_ = static_cast<long>(i);
  }
  if (out_arg_ >= 0) {
    out_file_ =
        args_[static_cast<std::size_t>(out_arg_)].substr(std::string("--benchmark_out=").size());
    if (const std::string problem = output_target_problem(out_file_); !problem.empty()) {
      usage_error("--benchmark_out: " + problem);
    }
  }

  filter_ = value("--benchmark_filter");
  if (has("--benchmark_filter") && filter_.empty()) {
    usage_error(
        "--benchmark_filter is empty: give a regular expression, or leave the flag out "
        "to run the whole suite");
  }
  format_ = value("--benchmark_format");
  if (!format_.empty() && format_ != "console" && format_ != "json") {
    usage_error("--benchmark_format must be console or json (CSV is deprecated upstream)");
  }
  // Google Benchmark 1.7.1 prints its usage and exits 0, having run nothing,
  // for a value it does not know.
  const std::string out_format = value("--benchmark_out_format");
  if (has("--benchmark_out_format") && out_format != "json" && out_format != "console") {
    usage_error("--benchmark_out_format must be json or console, not '" + out_format + "'");
  }
  const std::string unit = value("--benchmark_time_unit");
  if (has("--benchmark_time_unit") && unit != "ns" && unit != "us" && unit != "ms" && unit != "s") {
    usage_error("--benchmark_time_unit must be ns, us, ms or s, not '" + unit + "'");
  }
  list_only_ = has("--benchmark_list_tests") && truthy(value("--benchmark_list_tests"));
}

void BenchmarkFlags::initialize() {
  // Google Benchmark keeps pointers into argv (argv[0] is the context's
  // executable name): the strings are members and outlive the run.
  initialized_args_ = args_;
  if (out_arg_ >= 0) {
    // A new file of our own (O_EXCL: never a link planted there, never shared
    // with another run), in the target's folder so that the rename is atomic.
    std::string name = out_file_ + std::string(kTemporarySuffix);
    const int fd = mkstemps(name.data(), static_cast<int>(std::string_view(".partial").size()));
    if (fd < 0) {
      usage_error("--benchmark_out: cannot create a temporary file beside '" + out_file_ + "' (" +
                  std::strerror(errno) + ")");
    }
    close(fd);
    g_pending_output = name;
    std::atexit(remove_pending_output);
    initialized_args_[static_cast<std::size_t>(out_arg_)] = "--benchmark_out=" + name;
  }
  std::erase_if(initialized_args_,
                [](const std::string& a) { return starts_with_flag(a, "--benchmark_filter"); });
  initialized_args_.emplace_back("--benchmark_filter=.*");
  for (std::string& a : initialized_args_) argv_.push_back(a.data());
  int argc = static_cast<int>(argv_.size());
  argv_.push_back(nullptr);
  benchmark::Initialize(&argc, argv_.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv_.data())) std::exit(2);
}

std::unique_ptr<benchmark::BenchmarkReporter> BenchmarkFlags::display_reporter() const {
  if (format_ == "json") return std::make_unique<benchmark::JSONReporter>();
  const bool color = isatty(STDOUT_FILENO) != 0 && value("--benchmark_color") != "false";
  return std::make_unique<benchmark::ConsoleReporter>(
      color ? benchmark::ConsoleReporter::OO_ColorTabular : benchmark::ConsoleReporter::OO_Tabular);
}

bool BenchmarkFlags::finish_output(std::size_t ran) const {
  if (out_file_.empty()) return true;
  const std::string partial = g_pending_output;
  // Nothing ran (--benchmark_list_tests only lists, though Google Benchmark
  // returns the count): keep the previous file.
  if (ran == 0 || list_only_) {
    remove_pending_output();
    g_pending_output.clear();
    return true;
  }
  if (!complete_json(partial)) {
    std::fprintf(stderr,
                 "cryptobench: the results could not be written completely (a full disk or a "
                 "file-size limit?); %s is unchanged\n",
                 out_file_.c_str());
    return false;  // the temporary file goes at exit
  }
  const int fd = open(partial.c_str(), O_RDONLY);
  const bool synced = fd >= 0 && fsync(fd) == 0;
  if (fd >= 0) close(fd);
  if (synced) keep_mode(partial, out_file_);
  if (!synced || std::rename(partial.c_str(), out_file_.c_str()) != 0) {
    std::fprintf(stderr,
                 "cryptobench: cannot put the results in place of %s (%s); it is unchanged\n",
                 out_file_.c_str(), std::strerror(errno));
    return false;
  }
  g_pending_output.clear();
  return true;
}

}  // namespace cryptobench::bench
