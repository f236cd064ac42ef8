// self_check.h: a plugin proves itself before anything is measured.
//
// In a child process (so that a crash or a hang is reported, never suffered):
// the library is loaded and its table checked (plugin_backend.h), then it
// runs the test vectors of every mode it claims (NIST CAVP, Wycheproof,
// RFC 3686 and Debian's NIST GCM files where present) and the cross-backend
// equivalence checks: its outputs against another library's at many lengths,
// in place and out of place, with guard bytes around every output it writes,
// a forged tag refused, its codec and KDF against the reference's.
#pragma once

#include <string>
#include <vector>

namespace cryptobench::plugin {

// vector_folders: where the vectors are: $CRYPTOBENCH_VECTORS (folders
// separated by ':') or the source tree's and Debian's (as built).
std::vector<std::string> vector_folders();

// SelfCheck: what the child found; `problem` is one line, "" when it passed.
struct SelfCheck {
  std::string problem;
  std::string summary;           // e.g. "35 vector files, 5405 cases; 212 equivalence checks"
  std::string fingerprint = {};  // of what the child checked (fingerprint())
};

// self_check: loads `path` in a child process and runs every check there.
SelfCheck self_check(const std::string& path, const std::vector<std::string>& folders);

// fingerprint: the file's sha256 and the table's claims, to compare what the
// child checked with what the parent loads.
struct Plugin;
std::string fingerprint(const Plugin& plugin);

// add_plugins: each plugin self-checked, then loaded here and registered as a
// backend (kept for the process's life); its context says where it came
// from. Throws PluginError (one line) at the first that fails.
void add_plugins(const std::vector<std::string>& paths);

}  // namespace cryptobench::plugin
