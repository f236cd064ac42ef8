// cryptobench-vectors: checks AES backends on this machine against standard
// test vectors: NIST CAVP AESAVS .rsp (ECB, CBC) and GCMVS .rsp (GCM),
// RFC 3686 CTR .txt (as Debian's python3-cryptography-vectors ships them),
// Wycheproof AES-CBC-PKCS5 and AES-GCM .json.
//
//   cryptobench-vectors [--backend NAME[,NAME...]] PATH...
//
// PATHs are files or folders (searched recursively).
// Exit status: 0 all passed, 1 a vector failed, 2 bad usage or input file.
//
// Which reader a file gets: *.json is Wycheproof (AES-CBC-PKCS5 or AES-GCM
// by its "algorithm"); *.rsp is GCMVS when its content says so (a '# GCM'
// header or a [Keylen = ...] section), else AESVS; *.txt is RFC 3686 CTR
// vectors when its first line is a comment naming RFC 3686. A .txt named on
// the command line that is not is an error (exit 2); in a folder it is
// skipped, like any other file that is not a vector file.
//
// Only regular files (or symlinks to them) of at most 64 MiB are read. In a
// folder, every entry named *.rsp or *.json is read by that rule, so a FIFO,
// a device or a broken symlink under such a name is an error (exit 2), never
// a hang or a silent skip. A *.txt entry is looked at only if it is a
// regular file (its first bytes, without blocking); entries with other names
// are ignored whatever they are, and symlinks to folders are not followed.
//
// Modes and limits come from each backend: a file in a mode it does not
// offer is reported as not run, with its reason; a GCM case whose nonce, tag
// or key length the library does not take (GcmLimits) is counted on the
// file's line and in the summary as outside the library's limits, never run
// and never a failure. When CTR files are given, each backend with CTR also
// runs the runner's own counter-wrap cases, reported as the file
// "ctr-counter-wrap" (see vector_check.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kernels/cpu_features.h"
#include "kernels/registry.h"
#include "tools/vectors/vector_check.h"

namespace fs = std::filesystem;
using namespace cryptobench;

namespace {

constexpr const char* kUsage =
    "usage: cryptobench-vectors [--backend NAME[,NAME...]] PATH...\n"
    "  Runs test vectors on every usable backend (or those named):\n"
    "    .rsp   NIST CAVP AESAVS (ECB/CBC KAT, MMT, MCT) or GCMVS (gcmEncryptExtIV*,\n"
    "           gcmDecrypt*: FAIL records must be rejected), told apart by content\n"
    "    .txt   RFC 3686 CTR vectors (first line a comment naming RFC 3686), plus\n"
    "           the runner's own counter-wrap cases, as the file ctr-counter-wrap\n"
    "    .json  Wycheproof AES-CBC-PKCS5 or AES-GCM\n"
    "  PATH may be a folder (searched recursively; a .txt there that is not RFC 3686\n"
    "  vectors is skipped, named on the command line it is an error).\n"
    "  A file in a mode a backend lacks is not run; GCM cases outside a library's\n"
    "  nonce, tag or key lengths are counted as outside its limits, not run.\n"
    "  Vector files must be regular files (or symlinks to them) of at most 64 MiB.\n"
    "Options:\n"
    "  --backend NAME[,NAME...]  only these backends (default: every usable one)\n"
    "  --list                    show the backends compiled in and whether they run here\n"
    "  -h, --help                this help\n"
    "Examples:\n"
    "  cryptobench-vectors tests/vectors\n"
    "  cryptobench-vectors --backend aesni tests/vectors/nist_cavp/CBC/CBCMMT128.rsp\n"
    "Exit status: 0 pass, 1 a vector failed, 2 bad usage or an unusable file (one line).\n"
    "More: docs/correctness.md\n";

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    const std::string item =
        s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<fs::path> expand(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(p)) {
        // Not only regular files: read_file refuses anything else by name
        // (without blocking on a FIFO) rather than the walk skipping it.
        const auto ext = entry.path().extension();
        if (entry.is_directory(ec)) continue;
        if (ext == ".rsp" || ext == ".json") {
          found.push_back(entry.path());
        } else if (ext == ".txt") {
          // Only a regular file whose start is RFC 3686 vectors; anything
          // else named .txt (notes, a FIFO) is not a vector file.
          constexpr std::size_t kHead = 4096;
          const auto head = vectors::read_head(entry.path(), kHead);
          if (head && vectors::is_rfc3686_txt(*head)) found.push_back(entry.path());
        }
      }
      if (found.empty()) {
        throw vectors::VectorFileError(
            p + ": no vector files in folder (.rsp, .json, or RFC 3686 .txt)");
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      files.emplace_back(p);
    } else {
      throw vectors::VectorFileError(p + ": no such file or folder");
    }
  }
  return files;
}

vectors::VectorFile load(const fs::path& path) {
  const std::string text = vectors::read_file(path);
  return vectors::parse_vector_file(path, path.filename().string(), text);
}

void list_backends() {
  for (const BackendEntry* entry : compiled_backends()) {
    const std::string why = unusable_reason(*entry);
    if (why.empty()) {
      const BackendInfo info = entry->open()->info();
      std::printf("%-9s usable   %s %s; %s\n", entry->name, info.library.c_str(),
                  info.version.c_str(), info.code_path.c_str());
    } else {
      std::printf("%-9s UNUSABLE %s\n", entry->name, why.c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {  // the help alone, whatever else is on the line
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::cout << kUsage;
      return 0;
    }
  }
  if (const std::string problem = cryptobench::cpu_mask_problem(); !problem.empty()) {
    std::cerr << "cryptobench-vectors: " << problem << "\n";
    return 2;
  }
  std::vector<std::string> backend_names, paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--list") {
      list_backends();
      return 0;
    } else if (arg == "--backend" || arg.rfind("--backend=", 0) == 0) {
      std::string value;
      if (arg == "--backend") {
        if (i + 1 >= argc) {
          std::cerr << "cryptobench-vectors: --backend needs a name\n";
          return 2;
        }
        value = argv[++i];
      } else {
        value = arg.substr(std::string("--backend=").size());
      }
      const std::vector<std::string> names = split_commas(value);
      if (value.empty() || std::find(names.begin(), names.end(), "") != names.end()) {
        // '' or 'a,,b' would otherwise mean every backend.
        std::cerr << "cryptobench-vectors: --backend has an empty name\n";
        return 2;
      }
      backend_names.insert(backend_names.end(), names.begin(), names.end());
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "cryptobench-vectors: unknown option '" << arg
                << "' (cryptobench-vectors --help lists them)\n";
      return 2;
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.empty()) {
    std::cerr << "cryptobench-vectors: no vector files given, e.g. cryptobench-vectors "
                 "tests/vectors (--help)\n";
    return 2;
  }

  std::vector<std::unique_ptr<AesBackend>> backends;
  try {
    if (backend_names.empty()) backend_names = usable_backend_names();
    for (const std::string& name : backend_names) backends.push_back(open_backend(name));
  } catch (const BackendError& e) {
    std::cerr << "cryptobench-vectors: " << e.what() << "\n";
    return 2;
  }
  if (backends.empty()) {
    std::cerr << "cryptobench-vectors: no backend can run on this machine\n";
    return 2;
  }

  std::vector<vectors::VectorFile> files;
  try {
    for (const fs::path& path : expand(paths)) files.push_back(load(path));
  } catch (const vectors::VectorFileError& e) {
    // One line whatever the file names hold.
    std::cerr << "cryptobench-vectors: " << vectors::printable(e.what()) << "\n";
    return 2;
  } catch (const fs::filesystem_error& e) {
    std::cerr << "cryptobench-vectors: " << vectors::printable(e.what()) << "\n";
    return 2;
  }

  const bool any_ctr = std::any_of(files.begin(), files.end(), [](const vectors::VectorFile& f) {
    return std::holds_alternative<vectors::CtrFile>(f.content);
  });
  bool all_passed = true;
  for (const auto& backend : backends) {
    const BackendInfo info = backend->info();
    std::printf("== %s: %s %s; %s\n", info.name.c_str(), info.library.c_str(), info.version.c_str(),
                info.code_path.c_str());
    std::size_t cases = 0, failed = 0, skipped = 0, outside = 0, ran = 0;
    const auto show = [&](const vectors::FileReport& report) {
      cases += report.cases;
      failed += report.failed();
      if (!report.not_offered.empty()) {
        ++skipped;
        std::printf("%-11s %-36s    not run: %s\n", info.name.c_str(), report.file.c_str(),
                    report.not_offered.c_str());
        return;
      }
      ++ran;
      outside += report.outside_limits;
      const std::string verdict =
          report.failed() == 0 ? "PASS" : "FAIL (" + std::to_string(report.failed()) + " failed)";
      const std::string limits =
          report.outside_limits == 0
              ? ""
              : "; " + std::to_string(report.outside_limits) +
                    " cases outside the library's limits (not offered, not run): " + report.limits;
      std::printf("%-11s %-36s %5zu cases  %s%s\n", info.name.c_str(), report.file.c_str(),
                  report.cases, verdict.c_str(), limits.c_str());
      for (const std::string& f : report.failures) std::printf("    %s\n", f.c_str());
    };
    for (const vectors::VectorFile& file : files) show(vectors::check_file(*backend, file));
    if (any_ctr) show(vectors::check_ctr_counter_wrap(*backend));
    std::string notes;
    if (outside != 0) {
      notes += "; " + std::to_string(outside) +
               " cases outside the library's limits (not offered, not run)";
    }
    if (skipped != 0)
      notes += " (" + std::to_string(skipped) + " files in a mode it does not offer)";
    std::printf("%-11s %zu files, %zu cases: %s%s\n\n", info.name.c_str(), ran, cases,
                failed == 0 ? "all passed" : (std::to_string(failed) + " FAILED").c_str(),
                notes.c_str());
    all_passed = all_passed && failed == 0;
  }
  return all_passed ? 0 : 1;
}
