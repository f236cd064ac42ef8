// cryptobench-vectors: checks AES backends on this machine against standard
// test vectors (NIST CAVP .rsp, Wycheproof AES-CBC-PKCS5 .json).
//
//   cryptobench-vectors [--backend NAME[,NAME...]] PATH...
//
// PATHs are files or folders (searched recursively for *.rsp and *.json).
// Exit status: 0 all passed, 1 a vector failed, 2 bad usage or input file.
//
// Only regular files (or symlinks to them) of at most 64 MiB are read. In a
// folder, every entry named *.rsp or *.json is read by that rule, so a FIFO,
// a device or a broken symlink under such a name is an error (exit 2), never
// a hang or a silent skip; entries with other names are ignored whatever
// they are, and symlinks to folders are not followed.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "kernels/cpu_features.h"
#include "kernels/registry.h"
#include "tools/vectors/vector_check.h"

namespace fs = std::filesystem;
using namespace cryptobench;

namespace {

constexpr const char* kUsage =
    "usage: cryptobench-vectors [--backend NAME[,NAME...]] PATH...\n"
    "  Runs NIST CAVP AESAVS .rsp files (ECB/CBC KAT, MMT, MCT) and Wycheproof\n"
    "  AES-CBC-PKCS5 .json files on every usable backend (or those named).\n"
    "  PATH may be a folder (searched recursively). Exit: 0 pass, 1 fail, 2 error.\n"
    "  Vector files must be regular files (or symlinks to them) of at most 64 MiB.\n"
    "  --list   show the backends compiled in and whether they run here\n";

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
        if ((ext == ".rsp" || ext == ".json") && !entry.is_directory(ec))
          found.push_back(entry.path());
      }
      if (found.empty()) throw vectors::VectorFileError(p + ": no .rsp or .json files in folder");
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

// A parsed file of either kind.
struct LoadedFile {
  std::string name;
  bool is_rsp = true;
  vectors::RspFile rsp;
  vectors::WycheproofFile wycheproof;
};

LoadedFile load(const fs::path& path) {
  LoadedFile file;
  file.name = path.filename().string();
  const std::string text = vectors::read_file(path);
  if (path.extension() == ".json") {
    file.is_rsp = false;
    file.wycheproof = vectors::parse_wycheproof(file.name, text);
  } else if (path.extension() == ".rsp") {
    file.rsp = vectors::parse_rsp(file.name, text);
  } else {
    throw vectors::VectorFileError(path.string() + ": unknown file type (expected .rsp or .json)");
  }
  return file;
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
  if (const std::string problem = cryptobench::cpu_mask_problem(); !problem.empty()) {
    std::cerr << "cryptobench-vectors: " << problem << "\n";
    return 2;
  }
  std::vector<std::string> backend_names, paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--list") {
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
      std::cerr << "cryptobench-vectors: unknown option '" << arg << "'\n" << kUsage;
      return 2;
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.empty()) {
    std::cerr << "cryptobench-vectors: no vector files given\n" << kUsage;
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

  std::vector<LoadedFile> files;
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

  bool all_passed = true;
  for (const auto& backend : backends) {
    const BackendInfo info = backend->info();
    std::printf("== %s: %s %s; %s\n", info.name.c_str(), info.library.c_str(), info.version.c_str(),
                info.code_path.c_str());
    std::size_t cases = 0, failed = 0, skipped = 0;
    for (const LoadedFile& file : files) {
      const vectors::FileReport report = file.is_rsp
                                             ? vectors::check_rsp(*backend, file.rsp)
                                             : vectors::check_wycheproof(*backend, file.wycheproof);
      cases += report.cases;
      failed += report.failed();
      if (!report.not_offered.empty()) {
        ++skipped;
        std::printf("%-11s %-36s    not run: %s\n", info.name.c_str(), report.file.c_str(),
                    report.not_offered.c_str());
        continue;
      }
      std::printf(
          "%-11s %-36s %5zu cases  %s\n", info.name.c_str(), report.file.c_str(), report.cases,
          report.failed() == 0 ? "PASS"
                               : ("FAIL (" + std::to_string(report.failed()) + " failed)").c_str());
      for (const std::string& f : report.failures) std::printf("    %s\n", f.c_str());
    }
    std::printf(
        "%-11s %zu files, %zu cases: %s%s\n\n", info.name.c_str(), files.size() - skipped, cases,
        failed == 0 ? "all passed" : (std::to_string(failed) + " FAILED").c_str(),
        skipped == 0
            ? ""
            : (" (" + std::to_string(skipped) + " files in a mode it does not offer)").c_str());
    all_passed = all_passed && failed == 0;
  }
  return all_passed ? 0 : 1;
}
