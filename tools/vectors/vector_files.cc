#include "tools/vectors/vector_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "kernels/text_codec.h"

namespace cryptobench::vectors {
namespace {

[[noreturn]] void fail(const std::string& name, int line, const std::string& message) {
  const std::string where = line > 0 ? name + ":" + std::to_string(line) : name;
  throw VectorFileError(where + ": " + message);
}

ByteVector decode_hex(const std::string& name, int line, std::string_view text,
                      std::string_view what) {
  ByteVector out(decode_capacity(Encoding::kHex, text.size()));
  const Result r = project_codec().decode(Encoding::kHex, text, out);
  if (!r.ok()) fail(name, line, std::string(what) + " is not valid hex");
  out.resize(r.size);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// A whole number of at most `max`, in decimal digits only.
std::size_t parse_number(const std::string& name, int line, std::string_view text,
                         std::string_view what, std::size_t max) {
  std::size_t value = 0;
  if (text.empty() || text.size() > 12) fail(name, line, std::string(what) + " is not a number");
  for (const char c : text) {
    if (c < '0' || c > '9') fail(name, line, std::string(what) + " is not a number");
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  if (value > max) {
    fail(name, line, std::string(what) + " is larger than " + std::to_string(max));
  }
  return value;
}

// The lines of a file, numbered from 1, trimmed of blanks and '\r'.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (at_ >= text_.size()) return false;
    const std::size_t end = std::min(text_.find('\n', at_), text_.size());
    line = trim(text_.substr(at_, end - at_));
    at_ = end + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  int number_ = 0;
};

// "NAME = value" (the value may be empty, as in "CT = "); false otherwise.
bool split_field(std::string_view line, std::string_view& key, std::string_view& value) {
  const auto eq = line.find('=');
  if (eq == std::string_view::npos) return false;
  key = trim(line.substr(0, eq));
  value = trim(line.substr(eq + 1));
  return !key.empty();
}

// The fields of the record being read, one bit each: a repeated one is an error.
class FieldSet {
 public:
  void take(const std::string& name, int line, unsigned bit, std::string_view field) {
    if (seen_ & bit) fail(name, line, "repeated field " + printable(field));
    seen_ |= bit;
  }
  bool has(unsigned bit) const { return (seen_ & bit) != 0; }
  void clear() { seen_ = 0; }

 private:
  unsigned seen_ = 0;
};

// Record validation shared by every .rsp kind.
void check_record(const RspFile& file, const RspRecord& r, bool has_iv_field) {
  const auto where = [&](const std::string& m) { fail(file.name, r.line, m); };
  if (r.key.size() != 16 && r.key.size() != 24 && r.key.size() != 32) {
    where("KEY must be 16, 24 or 32 bytes, got " + std::to_string(r.key.size()));
  }
  if (file.mode == Mode::kCbc && (!has_iv_field || r.iv.size() != 16))
    where("CBC record needs a 16-byte IV");
  if (file.mode == Mode::kEcb && has_iv_field) where("ECB record must not have an IV");
  if (r.plaintext.empty() || r.plaintext.size() % 16 != 0)
    where("PLAINTEXT must be whole 16-byte blocks");
  if (r.ciphertext.size() != r.plaintext.size()) where("CIPHERTEXT and PLAINTEXT differ in length");
  if (file.kind == RspKind::kMonteCarlo && r.plaintext.size() != 16)
    where("MCT records are one block");
}

const char* kind_of_file(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "an unknown kind of file";
}

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

[[noreturn]] void too_big(const std::string& name, std::uintmax_t size) {
  throw VectorFileError(name + ": larger than the " + std::to_string(kMaxVectorFileBytes >> 20) +
                        " MiB limit for a vector file (" + std::to_string(size) + " bytes)");
}

// A library message that may quote a long stretch of the input, kept short.
std::string shortened(const std::string& message) {
  constexpr std::size_t kMax = 240;
  const std::string text = printable(message);
  return text.size() <= kMax ? text : text.substr(0, kMax) + "...";
}

// How deep JSON may nest: a Wycheproof file needs 6 levels.
constexpr std::size_t kMaxJsonDepth = 32;

// parse_json: nlohmann::json::parse, except that a key repeated in any object
// (nlohmann keeps the last one; RFC 8259 only says names SHOULD be unique)
// and nesting deeper than kMaxJsonDepth are errors. A parser callback sees
// each key as it is read; the error is raised when the object ends, so that
// a test case can be named by its tcId.
nlohmann::json parse_json(const std::string& name, const std::string& text) {
  struct Container {
    bool object = false;
    std::size_t next_index = 0;           // an array's next element
    std::string key;                      // an object's latest key
    std::set<std::string> keys;           // an object's keys so far
    std::optional<std::string> repeated;  // the first key seen twice
  };
  std::vector<Container> open;
  // The path, as "testGroups[0].tests[3]", of the container inside
  // open[depth - 1]: each open container's latest key or element leads to
  // the next one in.
  const auto path_to = [&](std::size_t depth) {
    std::string path;
    for (std::size_t i = 0; i < depth; ++i) {
      if (open[i].object) {
        path += (path.empty() ? "" : ".") + printable(open[i].key);
      } else {
        path += "[" + std::to_string(open[i].next_index - 1) + "]";
      }
    }
    return path;
  };
  using Event = nlohmann::json::parse_event_t;
  const auto callback = [&](int /*depth*/, Event event, nlohmann::json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start: {
        if (open.size() >= kMaxJsonDepth) {
          throw VectorFileError(name + ": nested deeper than " + std::to_string(kMaxJsonDepth) +
                                " levels");
        }
        if (!open.empty() && !open.back().object) ++open.back().next_index;
        open.emplace_back().object = event == Event::object_start;
        break;
      }
      case Event::key: {
        Container& object = open.back();
        object.key = parsed.get<std::string>();
        if (!object.keys.insert(object.key).second && !object.repeated)
          object.repeated = object.key;
        break;
      }
      case Event::value:
        if (!open.empty() && !open.back().object) ++open.back().next_index;
        break;
      case Event::object_end: {
        const Container object = std::move(open.back());
        open.pop_back();
        if (object.repeated) {
          // A test case is named by its tcId, unless that is the repeated key.
          std::string where = open.empty() ? "top level" : path_to(open.size());
          const auto id = parsed.find("tcId");
          if (*object.repeated != "tcId" && id != parsed.end() && id->is_number_integer())
            where = "tcId " + id->dump();
          throw VectorFileError(name + ": " + where + ": duplicate key '" +
                                printable(*object.repeated) + "'");
        }
        break;
      }
      case Event::array_end:
        open.pop_back();
        break;
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::exception& e) {
    throw VectorFileError(name + ": not valid JSON (" + shortened(e.what()) + ")");
  }
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto escape = [&](unsigned char c) {
    constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c < 0x20 || c == 0x7f) {
      escape(c);
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080..U+009F in UTF-8
      escape(c);
      escape(next);
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string read_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  const auto system_error = [&](const std::string& what) {
    throw VectorFileError(name + ": " + what + ": " + std::strerror(errno));
  };
  const auto require_regular = [&](const struct stat& st) {
    if (!S_ISREG(st.st_mode))
      throw VectorFileError(name + ": not a regular file (" + kind_of_file(st.st_mode) + ")");
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxVectorFileBytes)
      too_big(name, static_cast<std::uintmax_t>(st.st_size));
  };
  // stat first, so that a device is not even opened; then fstat what was
  // opened, in case the file changed in between. O_NONBLOCK makes opening a
  // FIFO return at once instead of waiting for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) require_regular(st);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) system_error("cannot open");
  const FdCloser closer{fd};
  if (::fstat(fd, &st) != 0) system_error("cannot stat");
  require_regular(st);
  // O_NONBLOCK means nothing for a regular file; clear it all the same.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) system_error("fcntl");
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  // Read to the end, not to st_size, but never past the limit (a file that
  // grows while it is read, or one under /proc that says it is empty).
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      system_error("read error");
    }
    if (n == 0) break;
    const auto got = static_cast<std::size_t>(n);
    if (text.size() + got > kMaxVectorFileBytes) too_big(name, text.size() + got);
    text.append(buffer, got);
  }
  return text;
}

std::optional<std::string> read_head(const std::filesystem::path& path, std::size_t max) {
  // As read_file: stat before opening (a device is never opened), open
  // without blocking (a FIFO), fstat what was opened.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const FdCloser closer{fd};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string text(max, '\0');
  std::size_t got = 0;
  while (got < max) {
    const ssize_t n = ::read(fd, text.data() + got, max - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

RspFile parse_rsp(const std::string& name, const std::string& text) {
  RspFile file;
  file.name = name;
  bool have_header = false, in_section = false, encrypt = true;
  bool have_iv = false;
  RspRecord current;
  bool open = false;
  unsigned seen = 0;  // bitmask of the fields of the open record
  enum : unsigned { kCount = 1, kKey = 2, kIv = 4, kPlain = 8, kCipher = 16 };

  const auto close = [&]() {
    if (!open) return;
    const unsigned needed = kCount | kKey | kPlain | kCipher;
    if ((seen & needed) != needed) fail(name, current.line, "record is missing a field");
    check_record(file, current, have_iv);
    file.records.push_back(std::move(current));
    current = RspRecord{};
    open = false;
    seen = 0;
    have_iv = false;
  };

  std::istringstream lines(text);
  std::string raw;
  int line_no = 0;
  while (std::getline(lines, raw)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) {
      close();
      continue;
    }
    if (line.front() == '#') {
      // The header names the test: "# AESVS <type> test data for <mode>".
      constexpr std::string_view kTag = "AESVS ";
      const auto at = line.find(kTag);
      if (at != std::string_view::npos) {
        // One header per file: a second one would retype records already read.
        if (have_header) fail(name, line_no, "a second '# AESVS' header");
        std::istringstream words{std::string(line.substr(at + kTag.size()))};
        std::string type, test, data, for_word, mode;
        words >> type >> test >> data >> for_word >> mode;
        if (test != "test" || data != "data" || for_word != "for")
          fail(name, line_no, "unrecognised AESVS header");
        if (mode == "ECB") {
          file.mode = Mode::kEcb;
        } else if (mode == "CBC") {
          file.mode = Mode::kCbc;
        } else {
          fail(name, line_no,
               "unsupported mode '" + printable(mode) + "' (ECB and CBC are supported)");
        }
        file.test_type = type;
        if (type == "MCT") {
          file.kind = RspKind::kMonteCarlo;
        } else if (type == "MMT") {
          file.kind = RspKind::kMultiBlock;
        } else if (type == "GFSbox" || type == "KeySbox" || type == "VarKey" || type == "VarTxt") {
          file.kind = RspKind::kKnownAnswer;
        } else {
          fail(name, line_no, "unknown AESVS test type '" + printable(type) + "'");
        }
        have_header = true;
      }
      continue;
    }
    if (!have_header) fail(name, line_no, "data before the '# AESVS ... test data for ...' header");
    if (line == "[ENCRYPT]" || line == "[DECRYPT]") {
      close();
      in_section = true;
      encrypt = line == "[ENCRYPT]";
      continue;
    }
    if (!in_section) fail(name, line_no, "record outside an [ENCRYPT] or [DECRYPT] section");
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) fail(name, line_no, "expected 'NAME = value'");
    const std::string_view key = trim(line.substr(0, eq));
    const std::string_view value = trim(line.substr(eq + 1));
    if (!open) {
      if (key != "COUNT") fail(name, line_no, "a record must start with COUNT");
      open = true;
      current.encrypt = encrypt;
      current.line = line_no;
    }
    const auto take = [&](unsigned bit) {
      if (seen & bit) fail(name, line_no, "repeated field " + printable(key));
      seen |= bit;
    };
    if (key == "COUNT") {
      take(kCount);
      try {
        std::size_t used = 0;
        current.count = std::stoi(std::string(value), &used);
        if (used != value.size() || current.count < 0) throw std::invalid_argument("count");
      } catch (const std::exception&) {
        fail(name, line_no, "COUNT is not a number");
      }
    } else if (key == "KEY") {
      take(kKey);
      current.key = decode_hex(name, line_no, value, "KEY");
    } else if (key == "IV") {
      take(kIv);
      have_iv = true;
      current.iv = decode_hex(name, line_no, value, "IV");
    } else if (key == "PLAINTEXT") {
      take(kPlain);
      current.plaintext = decode_hex(name, line_no, value, "PLAINTEXT");
    } else if (key == "CIPHERTEXT") {
      take(kCipher);
      current.ciphertext = decode_hex(name, line_no, value, "CIPHERTEXT");
    } else {
      fail(name, line_no, "unknown field '" + printable(key) + "'");
    }
  }
  close();
  if (!have_header) fail(name, line_no, "no '# AESVS ... test data for ...' header");
  if (file.records.empty()) fail(name, line_no, "no test records");
  return file;
}

namespace {

// The text of a comment line after '#', trimmed.
std::string_view comment_body(std::string_view line) { return trim(line.substr(1)); }

}  // namespace

bool is_gcm_rsp(std::string_view text) {
  Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (line.empty()) continue;
    if (line.front() == '#') {
      if (comment_body(line).starts_with("GCM ")) return true;
      continue;
    }
    return line.starts_with("[Keylen");
  }
  return false;
}

bool is_rfc3686_txt(std::string_view text) {
  Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (line.empty()) continue;
    return line.front() == '#' && line.find("RFC 3686") != std::string_view::npos;
  }
  return false;
}

GcmRspFile parse_gcm_rsp(const std::string& name, const std::string& text) {
  GcmRspFile file;
  file.name = name;
  bool have_header = false;
  // The section's parameters, in bits; a new section starts with the first
  // parameter after a record.
  enum Param { kKeylen, kIvlen, kPtlen, kAadlen, kTaglen, kParams };
  static constexpr const char* kParamNames[kParams] = {"Keylen", "IVlen", "PTlen", "AADlen",
                                                       "Taglen"};
  std::optional<std::size_t> section[kParams];
  bool section_has_records = false;
  GcmRecord current;
  bool open = false;
  FieldSet seen;
  enum : unsigned { kCount = 1, kKey = 2, kIv = 4, kPt = 8, kAad = 16, kCt = 32, kTag = 64 };
  enum : unsigned { kFail = 128 };

  const auto close = [&]() {
    if (!open) return;
    const int at = current.line;
    for (const auto& [bit, field] :
         {std::pair{kKey, "Key"}, {kIv, "IV"}, {kAad, "AAD"}, {kCt, "CT"}, {kTag, "Tag"}}) {
      if (!seen.has(bit)) fail(name, at, std::string("record is missing a field: ") + field);
    }
    if (seen.has(kPt) && seen.has(kFail)) fail(name, at, "a FAIL record must not have a PT");
    if (!seen.has(kPt) && !seen.has(kFail))
      fail(name, at,
           file.decrypt ? "record is missing a field: PT (or FAIL)"
                        : "record is missing a field: PT");
    const auto agree = [&](const ByteVector& value, Param p, const char* field) {
      if (value.size() * 8 == *section[p]) return;
      fail(name, at,
           std::string(field) + " is " + std::to_string(value.size() * 8) +
               " bits but the section says [" + kParamNames[p] + " = " +
               std::to_string(*section[p]) + "]");
    };
    agree(current.key, kKeylen, "Key");
    agree(current.iv, kIvlen, "IV");
    if (!current.fail) agree(current.plaintext, kPtlen, "PT");
    agree(current.ciphertext, kPtlen, "CT");
    agree(current.aad, kAadlen, "AAD");
    agree(current.tag, kTaglen, "Tag");
    file.records.push_back(std::move(current));
    current = GcmRecord{};
    open = false;
    seen.clear();
  };

  Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const int line_no = lines.number();
    if (line.empty()) {
      close();
      continue;
    }
    if (line.front() == '#') {
      // The header: "# GCM Encrypt with keysize 128 test information".
      const std::string_view body = comment_body(line);
      if (body.starts_with("GCM ")) {
        if (have_header) fail(name, line_no, "a second '# GCM' header");
        if (body.starts_with("GCM Encrypt")) {
          file.decrypt = false;
        } else if (body.starts_with("GCM Decrypt")) {
          file.decrypt = true;
        } else {
          fail(name, line_no,
               "unrecognised GCM header (expected '# GCM Encrypt' or '# GCM Decrypt')");
        }
        have_header = true;
      }
      continue;
    }
    if (!have_header)
      fail(name, line_no, "data before the '# GCM Encrypt' or '# GCM Decrypt' header");
    std::string_view key, value;
    if (line.front() == '[') {
      close();
      if (line.size() < 2 || line.back() != ']' ||
          !split_field(line.substr(1, line.size() - 2), key, value)) {
        fail(name, line_no, "expected '[Name = value]'");
      }
      const auto* found = std::find(std::begin(kParamNames), std::end(kParamNames), key);
      if (found == std::end(kParamNames))
        fail(name, line_no, "unknown section parameter '" + printable(key) + "'");
      const auto p = static_cast<Param>(found - std::begin(kParamNames));
      if (section_has_records) {
        for (auto& s : section) s.reset();
        section_has_records = false;
      }
      const std::string what = "[" + std::string(key) + "]";
      if (section[p]) fail(name, line_no, "repeated " + what + " in one section");
      const std::size_t bits = parse_number(name, line_no, value, what, std::size_t{1} << 32);
      const bool whole = bits % 8 == 0;
      switch (p) {
        case kKeylen:
          if (bits != 128 && bits != 192 && bits != 256)
            fail(name, line_no, what + " must be 128, 192 or 256");
          break;
        case kIvlen:
          if (!whole || bits < 8 || bits > 1024)
            fail(name, line_no, what + " must be 8 to 1024 bits, whole bytes");
          break;
        case kTaglen:
          if (!whole || bits < 32 || bits > 128)
            fail(name, line_no, what + " must be 32 to 128 bits, whole bytes");
          break;
        default:
          if (!whole) fail(name, line_no, what + " must be whole bytes (a multiple of 8)");
          break;
      }
      section[p] = bits;
      continue;
    }
    if (line == "FAIL") {
      if (!open) fail(name, line_no, "FAIL outside a record");
      if (!file.decrypt) fail(name, line_no, "FAIL in a '# GCM Encrypt' file");
      seen.take(name, line_no, kFail, "FAIL");
      current.fail = true;
      continue;
    }
    if (!split_field(line, key, value)) fail(name, line_no, "expected 'Name = value'");
    if (!open) {
      if (key != "Count") fail(name, line_no, "a record must start with Count");
      for (const auto& s : section) {
        if (!s) {
          fail(name, line_no,
               "record before its section's [Keylen], [IVlen], [PTlen], [AADlen] and [Taglen]");
        }
      }
      open = true;
      section_has_records = true;
      current.line = line_no;
    }
    const auto hex_field = [&](unsigned bit, ByteVector& out) {
      seen.take(name, line_no, bit, key);
      out = decode_hex(name, line_no, value, key);
    };
    if (key == "Count") {
      seen.take(name, line_no, kCount, key);
      current.count = static_cast<int>(parse_number(name, line_no, value, "Count", 1'000'000'000));
    } else if (key == "Key") {
      hex_field(kKey, current.key);
    } else if (key == "IV") {
      hex_field(kIv, current.iv);
    } else if (key == "PT") {
      hex_field(kPt, current.plaintext);
    } else if (key == "AAD") {
      hex_field(kAad, current.aad);
    } else if (key == "CT") {
      hex_field(kCt, current.ciphertext);
    } else if (key == "Tag") {
      hex_field(kTag, current.tag);
    } else {
      fail(name, line_no, "unknown field '" + printable(key) + "'");
    }
  }
  close();
  if (!have_header) fail(name, lines.number(), "no '# GCM Encrypt' or '# GCM Decrypt' header");
  if (file.records.empty()) fail(name, lines.number(), "no test records");
  return file;
}

CtrFile parse_ctr_txt(const std::string& name, const std::string& text) {
  CtrFile file;
  file.name = name;
  if (!is_rfc3686_txt(text)) fail(name, 1, "no '# ... RFC 3686' header on the first line");
  bool in_section = false, encrypt = true;
  CtrRecord current;
  bool open = false;
  FieldSet seen;
  enum : unsigned { kCount = 1, kKey = 2, kIv = 4, kPlain = 8, kCipher = 16 };

  const auto close = [&]() {
    if (!open) return;
    const int at = current.line;
    for (const auto& [bit, field] :
         {std::pair{kKey, "KEY"}, {kIv, "IV"}, {kPlain, "PLAINTEXT"}, {kCipher, "CIPHERTEXT"}}) {
      if (!seen.has(bit)) fail(name, at, std::string("record is missing a field: ") + field);
    }
    const std::size_t k = current.key.size();
    if (k != 16 && k != 24 && k != 32)
      fail(name, at, "KEY must be 16, 24 or 32 bytes, got " + std::to_string(k));
    if (current.counter.size() != 16)
      fail(
          name, at,
          "IV (the counter block) must be 16 bytes, got " + std::to_string(current.counter.size()));
    if (current.plaintext.size() != current.ciphertext.size())
      fail(name, at, "CIPHERTEXT and PLAINTEXT differ in length");
    file.records.push_back(std::move(current));
    current = CtrRecord{};
    open = false;
    seen.clear();
  };

  Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const int line_no = lines.number();
    if (line.empty()) {
      close();
      continue;
    }
    if (line.front() == '#') continue;
    if (line == "[ENCRYPT]" || line == "[DECRYPT]") {
      close();
      in_section = true;
      encrypt = line == "[ENCRYPT]";
      continue;
    }
    if (!in_section) fail(name, line_no, "record outside an [ENCRYPT] or [DECRYPT] section");
    std::string_view key, value;
    if (!split_field(line, key, value)) fail(name, line_no, "expected 'NAME = value'");
    if (!open) {
      if (key != "COUNT") fail(name, line_no, "a record must start with COUNT");
      open = true;
      current.encrypt = encrypt;
      current.line = line_no;
    }
    const auto hex_field = [&](unsigned bit, ByteVector& out) {
      seen.take(name, line_no, bit, key);
      out = decode_hex(name, line_no, value, key);
    };
    if (key == "COUNT") {
      seen.take(name, line_no, kCount, key);
      current.count = static_cast<int>(parse_number(name, line_no, value, "COUNT", 1'000'000'000));
    } else if (key == "KEY") {
      hex_field(kKey, current.key);
    } else if (key == "IV") {
      hex_field(kIv, current.counter);
    } else if (key == "PLAINTEXT") {
      hex_field(kPlain, current.plaintext);
    } else if (key == "CIPHERTEXT") {
      hex_field(kCipher, current.ciphertext);
    } else {
      fail(name, line_no, "unknown field '" + printable(key) + "'");
    }
  }
  close();
  if (file.records.empty()) fail(name, lines.number(), "no test records");
  return file;
}

VectorFile parse_vector_file(const std::filesystem::path& path, const std::string& name,
                             const std::string& raw) {
  // A UTF-8 byte order mark (as some editors save) is read past; UTF-16 (a
  // byte order mark, or ASCII with a NUL after each character) is refused
  // by name rather than as "data before the header".
  const bool bom = raw.rfind("\xEF\xBB\xBF", 0) == 0;
  if (raw.rfind("\xFF\xFE", 0) == 0 || raw.rfind("\xFE\xFF", 0) == 0 ||
      (raw.size() >= 4 && raw[0] != '\0' && raw[1] == '\0' && raw[2] != '\0' && raw[3] == '\0')) {
    fail(name, 0, "is UTF-16 text: save it as UTF-8 (or ASCII)");
  }
  const std::string text = bom ? raw.substr(3) : raw;
  const auto ext = path.extension();
  if (ext == ".json") return {name, parse_wycheproof(name, text)};
  if (ext == ".rsp") {
    if (is_gcm_rsp(text)) return {name, parse_gcm_rsp(name, text)};
    return {name, parse_rsp(name, text)};
  }
  if (ext == ".txt") {
    if (!is_rfc3686_txt(text)) {
      throw VectorFileError(path.string() +
                            ": not a vector file (a .txt file must be RFC 3686 CTR vectors, "
                            "its first line a comment naming RFC 3686)");
    }
    return {name, parse_ctr_txt(name, text)};
  }
  throw VectorFileError(path.string() + ": unknown file type (expected .rsp, .json or .txt)");
}

WycheproofFile parse_wycheproof(const std::string& name, const std::string& text) {
  WycheproofFile file;
  file.name = name;
  const nlohmann::json doc = parse_json(name, text);
  const auto bad = [&](const std::string& m) { throw VectorFileError(name + ": " + m); };
  using Json = nlohmann::json;
  const auto type_of = [](const Json& value) -> std::string {
    switch (value.type()) {
      case Json::value_t::object:
        return "an object";
      case Json::value_t::array:
        return "an array";
      case Json::value_t::string:
        return "a string";
      case Json::value_t::boolean:
        return "a boolean";
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned:
      case Json::value_t::number_float:
        return "a number";
      case Json::value_t::null:
        return "null";
      default:
        return "something else";
    }
  };
  // A field's value, or an error if it is missing (and `required`) or of
  // another type. nullptr for an optional field that is missing.
  enum class Kind { kAny, kString, kObject, kArray, kStrings };
  const auto field = [&](const Json& object, const char* key, const std::string& where, Kind kind,
                         bool required = true) -> const Json* {
    const auto it = object.find(key);
    if (it == object.end()) {
      if (required) bad(where + ": missing field '" + key + "'");
      return nullptr;
    }
    const Json& value = *it;
    const std::string what = where + ": '" + key + "' must be ";
    switch (kind) {
      case Kind::kAny:
        break;
      case Kind::kString:
        if (!value.is_string()) bad(what + "a string, not " + type_of(value));
        break;
      case Kind::kObject:
        if (!value.is_object()) bad(what + "an object, not " + type_of(value));
        break;
      case Kind::kArray:
        if (!value.is_array()) bad(what + "an array, not " + type_of(value));
        break;
      case Kind::kStrings:
        if (!value.is_array()) bad(what + "an array of strings, not " + type_of(value));
        for (const Json& item : value) {
          if (!item.is_string())
            bad(what + "an array of strings, not an array holding " + type_of(item));
        }
        break;
    }
    return &value;
  };
  const auto string_field = [&](const Json& object, const char* key, const std::string& where) {
    return field(object, key, where, Kind::kString)->get<std::string>();
  };
  // A whole, non-negative number of sane size: nlohmann's get<> on a float
  // such as 3e87 would be undefined behaviour (found by fuzz_wycheproof).
  const auto count = [&](const Json& object, const char* key, const std::string& where) {
    const Json& value = *field(object, key, where, Kind::kAny);
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
        value.get<std::int64_t>() > 1'000'000'000) {
      bad(where + ": '" + key + "' is not a whole number from 0 to 10^9");
    }
    return static_cast<std::size_t>(value.get<std::int64_t>());
  };
  // Every key the test consumes or knowingly skips; anything else is an error.
  const auto check_keys = [&](const Json& object, std::initializer_list<const char*> known,
                              const std::string& where) {
    if (!object.is_object()) bad(where + " is not an object");
    for (const auto& item : object.items()) {
      bool found = false;
      for (const char* k : known) found = found || item.key() == k;
      if (!found) bad(where + ": unknown field '" + printable(item.key()) + "'");
    }
  };
  try {
    const std::string top = "top level";
    check_keys(doc,
               {"algorithm", "schema", "generatorVersion", "numberOfTests", "header", "notes",
                "testGroups"},
               top);
    const Json* algorithm = field(doc, "algorithm", top, Kind::kString, false);
    if (algorithm != nullptr && *algorithm == "AES-CBC-PKCS5") {
      file.algorithm = WycheproofAlgorithm::kAesCbcPkcs5;
    } else if (algorithm != nullptr && *algorithm == "AES-GCM") {
      file.algorithm = WycheproofAlgorithm::kAesGcm;
    } else {
      bad("not an AES-CBC-PKCS5 or AES-GCM Wycheproof file (\"algorithm\" is neither)");
    }
    const bool gcm = file.algorithm == WycheproofAlgorithm::kAesGcm;
    field(doc, "schema", top, Kind::kString, false);
    field(doc, "generatorVersion", top, Kind::kString, false);
    field(doc, "header", top, Kind::kStrings, false);
    field(doc, "notes", top, Kind::kObject, false);
    const std::size_t declared = count(doc, "numberOfTests", top);
    const Json& groups = *field(doc, "testGroups", top, Kind::kArray);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const Json& group = groups[g];
      const std::string group_where = "testGroups[" + std::to_string(g) + "]";
      std::size_t iv_bits = 128, tag_bits = 0;
      if (gcm) {
        check_keys(group, {"type", "source", "keySize", "ivSize", "tagSize", "tests"}, group_where);
        if (const Json* type = field(group, "type", group_where, Kind::kString, false);
            type != nullptr && *type != "AeadTest") {
          bad(group_where + ": 'type' of an AES-GCM group must be AeadTest");
        }
        iv_bits = count(group, "ivSize", group_where);
        tag_bits = count(group, "tagSize", group_where);
        if (tag_bits < 32 || tag_bits > 128 || tag_bits % 8 != 0)
          bad(group_where + ": tagSize must be 32 to 128 bits, whole bytes");
      } else {
        check_keys(group, {"type", "source", "keySize", "ivSize", "tests"}, group_where);
        field(group, "type", group_where, Kind::kString, false);
        if (count(group, "ivSize", group_where) != 128) bad(group_where + ": ivSize is not 128");
      }
      field(group, "source", group_where, Kind::kObject, false);
      const std::size_t key_bits = count(group, "keySize", group_where);
      const Json& tests = *field(group, "tests", group_where, Kind::kArray);
      for (std::size_t i = 0; i < tests.size(); ++i) {
        const Json& t = tests[i];
        const std::string path = group_where + ".tests[" + std::to_string(i) + "]";
        if (!t.is_object()) bad(path + " is not an object");
        WycheproofCase c;
        c.tc_id = static_cast<int>(count(t, "tcId", path));
        const std::string where = "tcId " + std::to_string(c.tc_id);
        if (gcm) {
          check_keys(t,
                     {"tcId", "comment", "flags", "key", "iv", "aad", "msg", "ct", "tag", "result"},
                     where);
        } else {
          check_keys(t, {"tcId", "comment", "flags", "key", "iv", "msg", "ct", "result"}, where);
        }
        if (const Json* comment = field(t, "comment", where, Kind::kString, false))
          c.comment = comment->get<std::string>();
        field(t, "flags", where, Kind::kStrings, false);
        c.key = decode_hex(name, 0, string_field(t, "key", where), where + " key");
        c.iv = decode_hex(name, 0, string_field(t, "iv", where), where + " iv");
        if (gcm) c.aad = decode_hex(name, 0, string_field(t, "aad", where), where + " aad");
        c.msg = decode_hex(name, 0, string_field(t, "msg", where), where + " msg");
        c.ct = decode_hex(name, 0, string_field(t, "ct", where), where + " ct");
        if (gcm) c.tag = decode_hex(name, 0, string_field(t, "tag", where), where + " tag");
        const std::string result = string_field(t, "result", where);
        if (gcm && result == "acceptable") {
          c.acceptable = true;
        } else if (result != "valid" && result != "invalid") {
          bad(where + (gcm ? ": 'result' must be valid, invalid or acceptable"
                           : ": 'result' must be valid or invalid"));
        }
        c.valid = result == "valid";
        if (c.key.size() * 8 != key_bits) bad(where + ": key length disagrees with keySize");
        if (c.key.size() != 16 && c.key.size() != 24 && c.key.size() != 32) {
          bad(where + ": an AES key is 16, 24 or 32 bytes");
        }
        if (gcm) {
          if (c.iv.size() * 8 != iv_bits) bad(where + ": iv length disagrees with ivSize");
          if (c.tag.size() * 8 != tag_bits) bad(where + ": tag length disagrees with tagSize");
          if (c.ct.size() != c.msg.size()) bad(where + ": ct and msg differ in length");
          // SP 800-38D: the IV is at least one bit; an empty one is only
          // ever a test that it is refused.
          if (c.iv.empty() && result != "invalid")
            bad(where + ": an empty iv can only be an invalid case");
        } else if (c.iv.size() != 16) {
          bad(where + ": the IV must be 16 bytes");
        }
        file.cases.push_back(std::move(c));
      }
    }
    if (file.cases.size() != declared) {
      bad("numberOfTests says " + std::to_string(declared) + " but the file has " +
          std::to_string(file.cases.size()) + " (truncated?)");
    }
  } catch (const nlohmann::json::exception& e) {
    // Not expected: every field's type is checked before it is read.
    bad("unexpected structure: " + shortened(e.what()));
  }
  if (file.cases.empty()) bad("no test cases");
  return file;
}

}  // namespace cryptobench::vectors
