#include "tools/vectors/vector_files.h"

#include <fstream>
#include <nlohmann/json.hpp>
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

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw VectorFileError(path.string() + ": cannot open file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw VectorFileError(path.string() + ": read error");
  return buffer.str();
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
          fail(name, line_no, "unsupported mode '" + mode + "' (ECB and CBC are supported)");
        }
        file.test_type = type;
        if (type == "MCT") {
          file.kind = RspKind::kMonteCarlo;
        } else if (type == "MMT") {
          file.kind = RspKind::kMultiBlock;
        } else if (type == "GFSbox" || type == "KeySbox" || type == "VarKey" || type == "VarTxt") {
          file.kind = RspKind::kKnownAnswer;
        } else {
          fail(name, line_no, "unknown AESVS test type '" + type + "'");
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
      if (seen & bit) fail(name, line_no, "repeated field " + std::string(key));
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
      fail(name, line_no, "unknown field '" + std::string(key) + "'");
    }
  }
  close();
  if (!have_header) fail(name, line_no, "no '# AESVS ... test data for ...' header");
  if (file.records.empty()) fail(name, line_no, "no test records");
  return file;
}

WycheproofFile parse_wycheproof(const std::string& name, const std::string& text) {
  WycheproofFile file;
  file.name = name;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw VectorFileError(name + ": not valid JSON (" + e.what() + ")");
  }
  const auto bad = [&](const std::string& m) { throw VectorFileError(name + ": " + m); };
  // A whole, non-negative number of sane size: nlohmann's get<> on a float
  // such as 3e87 would be undefined behaviour (found by fuzz_wycheproof).
  const auto count = [&](const nlohmann::json& object, const char* key, const std::string& where) {
    const nlohmann::json& value = object.at(key);
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
        value.get<std::int64_t>() > 1'000'000'000) {
      bad(where + ": '" + key + "' is not a whole number from 0 to 10^9");
    }
    return static_cast<std::size_t>(value.get<std::int64_t>());
  };
  // Every key the test consumes or knowingly skips; anything else is an error.
  const auto check_keys = [&](const nlohmann::json& object,
                              std::initializer_list<const char*> known, const std::string& where) {
    if (!object.is_object()) bad(where + " is not an object");
    for (const auto& item : object.items()) {
      bool found = false;
      for (const char* k : known) found = found || item.key() == k;
      if (!found) bad(where + ": unknown field '" + item.key() + "'");
    }
  };
  try {
    check_keys(doc,
               {"algorithm", "schema", "generatorVersion", "numberOfTests", "header", "notes",
                "testGroups"},
               "top level");
    if (doc.value("algorithm", "") != "AES-CBC-PKCS5") {
      bad("not an AES-CBC-PKCS5 Wycheproof file (\"algorithm\" is not \"AES-CBC-PKCS5\")");
    }
    const std::size_t declared = count(doc, "numberOfTests", "top level");
    for (const auto& group : doc.at("testGroups")) {
      check_keys(group, {"type", "source", "keySize", "ivSize", "tests"}, "test group");
      const std::size_t key_bits = count(group, "keySize", "test group");
      if (count(group, "ivSize", "test group") != 128) bad("test group: ivSize is not 128");
      for (const auto& t : group.at("tests")) {
        WycheproofCase c;
        c.tc_id = static_cast<int>(count(t, "tcId", "a test"));
        const std::string where = "tcId " + std::to_string(c.tc_id);
        check_keys(t, {"tcId", "comment", "flags", "key", "iv", "msg", "ct", "result"}, where);
        c.comment = t.value("comment", "");
        c.key = decode_hex(name, 0, t.at("key").get<std::string>(), where + " key");
        c.iv = decode_hex(name, 0, t.at("iv").get<std::string>(), where + " iv");
        c.msg = decode_hex(name, 0, t.at("msg").get<std::string>(), where + " msg");
        c.ct = decode_hex(name, 0, t.at("ct").get<std::string>(), where + " ct");
        const auto result = t.at("result").get<std::string>();
        if (result != "valid" && result != "invalid")
          bad(where + ": result must be valid or invalid");
        c.valid = result == "valid";
        if (c.key.size() * 8 != key_bits) bad(where + ": key length disagrees with keySize");
        if (c.key.size() != 16 && c.key.size() != 24 && c.key.size() != 32) {
          bad(where + ": an AES key is 16, 24 or 32 bytes");
        }
        if (c.iv.size() != 16) bad(where + ": the IV must be 16 bytes");
        file.cases.push_back(std::move(c));
      }
    }
    if (file.cases.size() != declared) {
      bad("numberOfTests says " + std::to_string(declared) + " but the file has " +
          std::to_string(file.cases.size()) + " (truncated?)");
    }
  } catch (const nlohmann::json::exception& e) {
    bad(std::string("unexpected structure: ") + e.what());
  }
  if (file.cases.empty()) bad("no test cases");
  return file;
}

}  // namespace cryptobench::vectors
