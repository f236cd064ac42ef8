// vector_check.h: runs parsed vector files against one backend.
#pragma once

#include <string>
#include <vector>

#include "kernels/backend.h"
#include "tools/vectors/vector_files.h"

namespace cryptobench::vectors {

struct FileReport {
  std::string file;
  std::string backend;
  std::size_t cases = 0;
  std::size_t passed = 0;
  std::vector<std::string> failures;  // the first few, for the user
  // not_offered: why nothing ran (the backend lacks the file's mode); "" when it ran.
  std::string not_offered = {};

  std::size_t failed() const { return cases - passed; }
};

// A file in a mode the backend does not offer runs nothing: its report says
// why (not_offered) and counts no case.
// check_rsp: every record in its section's direction and the inverse;
// Monte Carlo records run the AESAVS 6.4 loops (1000 chained operations).
FileReport check_rsp(const AesBackend& backend, const RspFile& file);

// check_wycheproof: valid cases must encrypt to `ct` and decrypt to `msg`;
// invalid ones must be rejected with no plaintext left in the output.
FileReport check_wycheproof(const AesBackend& backend, const WycheproofFile& file);

}  // namespace cryptobench::vectors
