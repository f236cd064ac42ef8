// vector_files.h: strict readers for the standard AES test-vector formats.
//
// - NIST CAVP AESAVS response files (.rsp): known-answer (GFSbox, KeySbox,
//   VarKey, VarTxt), multi-block (MMT) and Monte Carlo (MCT) for ECB and CBC.
// - Project Wycheproof AES-CBC-PKCS5 JSON (schema ind_cpa_test_schema_v1).
//
// Reading is strict, in the spirit of BoringSSL's file_test: an unknown
// attribute, a missing or repeated one, bad hex or a wrong length is an error
// naming the file and the line (.rsp) or the test case (Wycheproof), never a
// silently skipped vector. In JSON that includes a key repeated in any object
// (nlohmann::json would keep the last) and a field of the wrong type.
//
// Errors are one line: text taken from the file (a field name, say) has its
// control characters escaped, and a quoted token is cut short.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/aes_cipher.h"

namespace cryptobench::vectors {

class VectorFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using ByteVector = std::vector<std::uint8_t>;

enum class RspKind { kKnownAnswer, kMultiBlock, kMonteCarlo };

struct RspRecord {
  bool encrypt = true;  // [ENCRYPT] or [DECRYPT] section
  int count = 0;
  int line = 0;  // where the record starts, for messages
  ByteVector key, iv, plaintext, ciphertext;
};

struct RspFile {
  std::string name;  // file name, for reports
  Mode mode = Mode::kEcb;
  RspKind kind = RspKind::kKnownAnswer;
  std::string test_type;  // from the header: GFSbox, KeySbox, VarKey, VarTxt, MMT, MCT
  std::vector<RspRecord> records;
};

struct WycheproofCase {
  int tc_id = 0;
  std::string comment;
  ByteVector key, iv, msg, ct;
  bool valid = false;
};

struct WycheproofFile {
  std::string name;
  std::vector<WycheproofCase> cases;
};

// parse_rsp: `text` is the file's contents; `name` is used in messages.
RspFile parse_rsp(const std::string& name, const std::string& text);
// parse_wycheproof: only AES-CBC-PKCS5 files are accepted.
WycheproofFile parse_wycheproof(const std::string& name, const std::string& text);

// No real vector file comes near this (NIST's largest GCM .rsp files are a
// few MB).
inline constexpr std::size_t kMaxVectorFileBytes = std::size_t{64} << 20;

// read_file: the whole file, or VectorFileError naming it. Only a regular
// file (or a symlink to one) of at most kMaxVectorFileBytes is read: a FIFO,
// a device or a folder is refused without blocking (the file is opened with
// O_NONBLOCK and checked with fstat before any read).
std::string read_file(const std::filesystem::path& path);

// printable: `text` with control characters (C0, DEL, C1) written as \xNN,
// for messages that must stay one line on a terminal.
std::string printable(std::string_view text);

}  // namespace cryptobench::vectors
