// output_file.h: files the binary writes (--benchmark_out, --cpuprofile)
// replace a good file only when complete: checked before the run, written
// through a unique temporary beside the target, renamed at the end.
#pragma once

#include <string>
#include <string_view>

namespace cryptobench::bench {

// The temporary file's suffix (mkstemps fills the Xs).
inline constexpr std::string_view kTemporarySuffix = ".XXXXXX.partial";

// output_target_problem: why `path` cannot be written in the end, found
// before anything runs: it exists and is not a regular file (a rename would
// replace a folder, link, device or FIFO), its folder is not writable, or
// its name is too long once the temporary suffix is added. "" when fine.
std::string output_target_problem(const std::string& path);

// keep_mode: gives the finished temporary file the mode `path` has, or a
// new file would have (mkstemps makes it 0600), just before it replaces
// `path` (earlier, a read-only mode would stop it being written).
void keep_mode(const std::string& temporary, const std::string& path);

// write_file_replacing: `data` into `path` through a unique temporary file in
// the same folder (O_EXCL, never a planted link), each write checked, synced
// and renamed over `path`; on failure the temporary goes, `path` is untouched
// and `*error` says why.
bool write_file_replacing(const std::string& path, const std::string& data, std::string* error);

// console_write_problem: why the console table did not all reach standard
// output when that is a file ("no space left on device in DIR", or a write
// error); "" when it did, or when standard output is a pipe or terminal (a
// closed pipe, as with | head, is not a failure).
std::string console_write_problem();

}  // namespace cryptobench::bench
