// vector_check.h: runs parsed vector files against one backend.
//
// Every mode is looked up, never assumed: a file in a mode the backend does
// not offer (BackendInfo::modes, and for CTR and GCM make_ctr()/make_gcm()
// returning an object) runs nothing and says why. A GCM case outside the
// backend's GcmLimits (nonce, tag or key length) is counted as outside the
// library's limits, with the limits described: neither run nor failed, and
// never silently dropped.
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
  // outside_limits: cases not run because the library does not take their
  // nonce, tag or key length; `limits` then says what it takes
  // (GcmLimits::describe()). Not counted in `cases`.
  std::size_t outside_limits = 0;
  std::string limits = {};

  std::size_t failed() const { return cases - passed; }
};

// A file in a mode the backend does not offer runs nothing: its report says
// why (not_offered) and counts no case.
// check_rsp: every record in its section's direction and the inverse;
// Monte Carlo records run the AESAVS 6.4 loops (1000 chained operations).
FileReport check_rsp(const AesBackend& backend, const RspFile& file);

// check_wycheproof: valid cases must encrypt to `ct` and decrypt to `msg`;
// invalid ones must be rejected with no plaintext left in the output.
// For AES-GCM files: valid cases must seal to ct||tag and open to msg, out
// of place and in place; invalid ones must fail to open (kBadTag) with the
// output zeroed, or, with an empty nonce, be refused (kNonceLength).
FileReport check_wycheproof(const AesBackend& backend, const WycheproofFile& file);

// check_gcm_rsp: each record sealed and opened, out of place and in place
// (out == in); a FAIL record must be rejected by open (kBadTag) with all of
// its output zeroed and nothing written past it.
FileReport check_gcm_rsp(const AesBackend& backend, const GcmRspFile& file);

// check_ctr: each record in its section's direction and the inverse, out of
// place and in place.
FileReport check_ctr(const AesBackend& backend, const CtrFile& file);

// check_ctr_counter_wrap: the project's own CTR cases (the file name
// kCounterWrapName in reports): messages whose counter block crosses 2^32,
// 2^64, 2^96 and 2^128 (wrapping to 0), some ending mid-block, at every key
// size, against the keystream AES-ECB gives for the counter blocks
// incremented as one 128-bit big-endian number. The ECB is the backend's
// own when it offers ECB, else openssl's; not_offered when neither is there.
inline constexpr const char* kCounterWrapName = "ctr-counter-wrap";
FileReport check_ctr_counter_wrap(const AesBackend& backend);

// check_file: whichever of the above the file's content calls for.
FileReport check_file(const AesBackend& backend, const VectorFile& file);

}  // namespace cryptobench::vectors
