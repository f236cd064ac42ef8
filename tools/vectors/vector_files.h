// vector_files.h: strict readers for the standard AES test-vector formats.
//
// - NIST CAVP AESAVS response files (.rsp): known-answer (GFSbox, KeySbox,
//   VarKey, VarTxt), multi-block (MMT) and Monte Carlo (MCT) for ECB and CBC.
// - NIST CAVP GCMVS response files (.rsp): gcmEncryptExtIV*.rsp and
//   gcmDecrypt*.rsp, sections [Keylen] [IVlen] [PTlen] [AADlen] [Taglen] of
//   records Count, Key, IV, PT (or FAIL), AAD, CT, Tag. Which .rsp reader a
//   file gets is decided by its content (is_gcm_rsp).
// - RFC 3686 AES-CTR vectors in the layout of Debian's
//   python3-cryptography-vectors (aes-*-ctr.txt): a '# ... RFC 3686' header,
//   [ENCRYPT]/[DECRYPT] records COUNT, KEY, IV (the 16-byte counter block),
//   PLAINTEXT, CIPHERTEXT.
// - Project Wycheproof JSON: AES-CBC-PKCS5 (schema ind_cpa_test_schema_v1)
//   and AES-GCM (aead_test_schema_v1), told apart by "algorithm".
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
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
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

// A GCMVS record. Lengths agree with the section's [Keylen], [IVlen] (8 to
// 1024 bits), [PTlen], [AADlen] and [Taglen] (32 to 128 bits): whole bytes.
struct GcmRecord {
  int count = 0;
  int line = 0;
  // fail: a gcmDecrypt record marked FAIL (it has no PT): open must reject it.
  bool fail = false;
  ByteVector key, iv, plaintext, aad, ciphertext, tag;
};

struct GcmRspFile {
  std::string name;
  bool decrypt = false;  // "# GCM Decrypt ..." header (FAIL records allowed)
  std::vector<GcmRecord> records;
};

// An RFC 3686 record: `counter` is the whole 16-byte initial counter block.
struct CtrRecord {
  bool encrypt = true;  // [ENCRYPT] or [DECRYPT] section
  int count = 0;
  int line = 0;
  ByteVector key, counter, plaintext, ciphertext;  // any length, equal
};

struct CtrFile {
  std::string name;
  std::vector<CtrRecord> records;
};

enum class WycheproofAlgorithm { kAesCbcPkcs5, kAesGcm };

struct WycheproofCase {
  int tc_id = 0;
  std::string comment;
  ByteVector key, iv, msg, ct;
  ByteVector aad, tag;  // AES-GCM only; `ct` excludes the tag
  bool valid = false;
  // acceptable: AES-GCM's "acceptable" (valid is false): a library may
  // refuse the case, but what it accepts must be right.
  bool acceptable = false;
};

struct WycheproofFile {
  std::string name;
  WycheproofAlgorithm algorithm = WycheproofAlgorithm::kAesCbcPkcs5;
  std::vector<WycheproofCase> cases;
};

// parse_rsp: `text` is the file's contents; `name` is used in messages.
// An AESVS (ECB/CBC) file; GCMVS files are parse_gcm_rsp's.
RspFile parse_rsp(const std::string& name, const std::string& text);
// parse_gcm_rsp: a GCMVS file: a '# GCM Encrypt' or '# GCM Decrypt' header,
// then sections. FAIL is allowed only in a decrypt file, and never with a PT.
GcmRspFile parse_gcm_rsp(const std::string& name, const std::string& text);
// parse_ctr_txt: RFC 3686 CTR vectors (see above).
CtrFile parse_ctr_txt(const std::string& name, const std::string& text);
// parse_wycheproof: AES-CBC-PKCS5 and AES-GCM files; any other "algorithm"
// is an error. In GCM files an empty iv is allowed only in invalid cases.
WycheproofFile parse_wycheproof(const std::string& name, const std::string& text);

// is_gcm_rsp: whether .rsp text is GCMVS rather than AESVS: a '# GCM '
// comment before the first section, or a first section that is [Keylen = ...].
bool is_gcm_rsp(std::string_view text);
// is_rfc3686_txt: whether text starts (after blank lines) with a comment
// naming RFC 3686, as the aes-*-ctr.txt files do.
bool is_rfc3686_txt(std::string_view text);

// The kinds of vector file, by extension and content:
//   .rsp  GCMVS when is_gcm_rsp, else AESVS;
//   .json Wycheproof;
//   .txt  RFC 3686 when is_rfc3686_txt, else not a vector file.
using VectorContent = std::variant<RspFile, GcmRspFile, CtrFile, WycheproofFile>;

struct VectorFile {
  std::string name;
  VectorContent content;
};

// parse_vector_file: the reader `path`'s extension and `text` call for;
// VectorFileError (naming `path`) for another extension or an unrecognised
// .txt. `name` is used in messages from the reader.
VectorFile parse_vector_file(const std::filesystem::path& path, const std::string& name,
                             const std::string& text);

// No real vector file comes near this (NIST's largest GCM .rsp files are a
// few MB).
inline constexpr std::size_t kMaxVectorFileBytes = std::size_t{64} << 20;

// read_file: the whole file, or VectorFileError naming it. Only a regular
// file (or a symlink to one) of at most kMaxVectorFileBytes is read: a FIFO,
// a device or a folder is refused without blocking (the file is opened with
// O_NONBLOCK and checked with fstat before any read).
std::string read_file(const std::filesystem::path& path);

// read_head: the first `max` bytes (or fewer) of a regular file, by the same
// rules as read_file (never blocking); nullopt when `path` is not a regular
// file or cannot be read. For sniffing a file's format in a folder walk.
std::optional<std::string> read_head(const std::filesystem::path& path, std::size_t max);

// printable: `text` with control characters (C0, DEL, C1) written as \xNN,
// for messages that must stay one line on a terminal.
std::string printable(std::string_view text);

}  // namespace cryptobench::vectors
