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

  std::size_t failed() const { return cases - passed; }
};

// check_rsp: every record in its section's direction and the inverse;
// Monte Carlo records run the AESAVS 6.4 loops (1000 chained operations).
FileReport check_rsp(const AesBackend& backend, const RspFile& file);

// check_wycheproof: valid cases must encrypt to `ct` and decrypt to `msg`;
// invalid ones must be rejected with no plaintext left in the output.
FileReport check_wycheproof(const AesBackend& backend, const WycheproofFile& file);

}  // namespace cryptobench::vectors
