// vector_files_test.cc: the readers are strict; malformed files are errors
// that name the file and line.
#include "tools/vectors/vector_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

namespace cryptobench::vectors {
namespace {

const std::string kHeader = "# CAVS 11.1\n# AESVS GFSbox test data for ECB\n\n[ENCRYPT]\n\n";
const std::string kRecord =
    "COUNT = 0\nKEY = 00000000000000000000000000000000\n"
    "PLAINTEXT = f34481ec3cc627bacd5dc3fb08f273e6\n"
    "CIPHERTEXT = 0336763e966d92595a567cc9ce537f5e\n";

std::string error_of(const std::string& text) {
  try {
    (void)parse_rsp("t.rsp", text);
  } catch (const VectorFileError& e) {
    return e.what();
  }
  return "";
}

TEST(RspReader, ReadsAWellFormedFile) {
  const RspFile f = parse_rsp("t.rsp", kHeader + kRecord);
  EXPECT_EQ(f.mode, Mode::kEcb);
  EXPECT_EQ(f.kind, RspKind::kKnownAnswer);
  ASSERT_EQ(f.records.size(), 1u);
  EXPECT_TRUE(f.records[0].encrypt);
  EXPECT_EQ(f.records[0].key.size(), 16u);
}

TEST(RspReader, AcceptsCrlfLineEndings) {
  std::string crlf;
  for (const char c : kHeader + kRecord) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  EXPECT_EQ(parse_rsp("t.rsp", crlf).records.size(), 1u);
}

TEST(RspReader, RejectsMalformedFiles) {
  struct Case {
    const char* what;
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {"empty file", "", "header"},
      {"no records", kHeader, "no test records"},
      {"unknown field", kHeader + kRecord + "TAG = 00\n", "unknown field 'TAG'"},
      {"bad hex", kHeader + "COUNT = 0\nKEY = 0g\n", "KEY is not valid hex"},
      {"odd hex", kHeader + "COUNT = 0\nKEY = 000\n", "KEY is not valid hex"},
      {"missing field", kHeader + "COUNT = 0\nKEY = 00000000000000000000000000000000\n",
       "missing a field"},
      {"repeated field", kHeader + "COUNT = 0\nCOUNT = 1\n", "repeated field COUNT"},
      {"wrong key length",
       kHeader + "COUNT = 0\nKEY = 0000\nPLAINTEXT = 00000000000000000000000000000000\n"
                 "CIPHERTEXT = 00000000000000000000000000000000\n",
       "KEY must be 16, 24 or 32 bytes"},
      {"partial block",
       kHeader + "COUNT = 0\nKEY = 00000000000000000000000000000000\nPLAINTEXT = 00\n"
                 "CIPHERTEXT = 00\n",
       "whole 16-byte blocks"},
      {"IV in ECB",
       kHeader + "COUNT = 0\nKEY = 00000000000000000000000000000000\nIV = 00\n"
                 "PLAINTEXT = 00000000000000000000000000000000\n"
                 "CIPHERTEXT = 00000000000000000000000000000000\n",
       "ECB record must not have an IV"},
      {"unsupported mode", "# AESVS MCT test data for OFB\n", "unsupported mode 'OFB'"},
      {"record before section", "# AESVS MMT test data for CBC\nCOUNT = 0\n",
       "outside an [ENCRYPT] or [DECRYPT] section"},
      {"not a count", kHeader + "COUNT = x\n", "COUNT is not a number"},
  };
  for (const Case& c : cases) {
    const std::string error = error_of(c.text);
    EXPECT_NE(error.find(c.message), std::string::npos) << c.what << ": got '" << error << "'";
    EXPECT_EQ(error.rfind("t.rsp", 0), 0u) << c.what << ": error does not name the file";
  }
}

std::string wycheproof_error(const std::string& text) {
  try {
    (void)parse_wycheproof("w.json", text);
  } catch (const VectorFileError& e) {
    return e.what();
  }
  return "";
}

TEST(WycheproofReader, RejectsMalformedFiles) {
  const std::string good_case =
      R"({"tcId":1,"comment":"","flags":[],"key":"00000000000000000000000000000000",)"
      R"("iv":"00000000000000000000000000000000","msg":"","ct":"00","result":"invalid"})";
  const auto file = [&](const std::string& algorithm, int declared, const std::string& tests) {
    return R"({"algorithm":")" + algorithm + R"(","numberOfTests":)" + std::to_string(declared) +
           R"(,"testGroups":[{"keySize":128,"ivSize":128,"tests":[)" + tests + "]}]}";
  };
  EXPECT_EQ(parse_wycheproof("w.json", file("AES-CBC-PKCS5", 1, good_case)).cases.size(), 1u);
  EXPECT_NE(wycheproof_error("{\"algorithm\":").find("not valid JSON"), std::string::npos);
  EXPECT_NE(wycheproof_error(file("AES-GCM", 1, good_case)).find("not an AES-CBC-PKCS5"),
            std::string::npos);
  EXPECT_NE(wycheproof_error(file("AES-CBC-PKCS5", 2, good_case)).find("truncated"),
            std::string::npos);
  std::string bad_hex = good_case;
  bad_hex.replace(bad_hex.find("\"ct\":\"00\""), 9, "\"ct\":\"0z\"");
  EXPECT_NE(wycheproof_error(file("AES-CBC-PKCS5", 1, bad_hex)).find("tcId 1 ct is not valid hex"),
            std::string::npos);
  std::string extra = good_case;
  extra.replace(extra.find("\"result\""), 8, "\"bogus\":1,\"result\"");
  EXPECT_NE(wycheproof_error(file("AES-CBC-PKCS5", 1, extra)).find("tcId 1: unknown field 'bogus'"),
            std::string::npos);
  std::string top = file("AES-CBC-PKCS5", 1, good_case);
  top.insert(1, "\"extra\":true,");
  EXPECT_NE(wycheproof_error(top).find("top level: unknown field 'extra'"), std::string::npos);
  std::string no_key = good_case;
  no_key.erase(no_key.find("\"key\""),
               std::string("\"key\":\"00000000000000000000000000000000\",").size());
  EXPECT_NE(wycheproof_error(file("AES-CBC-PKCS5", 1, no_key)).find("tcId 1: missing field 'key'"),
            std::string::npos);
}

// A Wycheproof file in the shape of the shipped one, with one valid case.
const std::string kCase =
    R"({"tcId":1,"comment":"c","flags":["Pseudorandom"],"key":"e34f15c7bd819930fe9d66e0c166e61c",)"
    R"("iv":"da9520f7d3520277035173299388bee2","msg":"","ct":"b10ab60153276941361000414aed0a9d",)"
    R"("result":"valid"})";
const std::string kFile =
    R"({"algorithm":"AES-CBC-PKCS5","schema":"ind_cpa_test_schema_v1.json","numberOfTests":1,)"
    R"("header":["h"],"notes":{"Pseudorandom":{"bugType":"FUNCTIONALITY"}},)"
    R"("testGroups":[{"type":"IndCpaTest","source":{"name":"google-wycheproof"},)"
    R"("keySize":128,"ivSize":128,"tests":[)" +
    kCase + "]}]}";

// kFile with the first `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to) {
  std::string text = kFile;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(WycheproofReader, ReadsTheTemplate) {
  const WycheproofFile f = parse_wycheproof("w.json", kFile);
  ASSERT_EQ(f.cases.size(), 1u);
  EXPECT_TRUE(f.cases[0].valid);
  EXPECT_EQ(f.cases[0].comment, "c");
}

// nlohmann::json keeps the last of repeated keys: "result":"valid",
// "result":"invalid" read as invalid and showed up as a backend failure.
TEST(WycheproofReader, RejectsDuplicateKeys) {
  struct Case {
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {with(R"("result":"valid")", R"("result":"valid","result":"invalid")"),
       "w.json: tcId 1: duplicate key 'result'"},
      {with(R"("key":")", R"("key":"00000000000000000000000000000000","key":")"),
       "w.json: tcId 1: duplicate key 'key'"},
      {with(R"("msg":"")", R"("msg":"","comment":"again")"),
       "w.json: tcId 1: duplicate key 'comment'"},
      // The tcId itself repeated: the case is named by where it is.
      {with(R"({"tcId":1,)", R"({"tcId":1,"tcId":2,)"),
       "w.json: testGroups[0].tests[0]: duplicate key 'tcId'"},
      {with(R"("ivSize":128)", R"("ivSize":128,"keySize":256)"),
       "w.json: testGroups[0]: duplicate key 'keySize'"},
      {with(R"("numberOfTests":1)", R"("numberOfTests":1,"numberOfTests":1)"),
       "w.json: top level: duplicate key 'numberOfTests'"},
      {kFile.substr(0, kFile.size() - 1) + R"(,"testGroups":[]})",
       "w.json: top level: duplicate key 'testGroups'"},
      // Anywhere, also in the fields the reader skips.
      {with(R"("bugType":"FUNCTIONALITY")", R"("bugType":"FUNCTIONALITY","bugType":"x")"),
       "w.json: notes.Pseudorandom: duplicate key 'bugType'"},
      {with(R"("header":["h"])", R"("header":["h"],"":1,"":2)"),
       "w.json: top level: duplicate key ''"},
  };
  for (const Case& c : cases) {
    const std::string error = wycheproof_error(c.text);
    EXPECT_EQ(error, c.message) << c.text;
  }
}

TEST(WycheproofReader, ChecksTheTypeOfEveryField) {
  struct Case {
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {with(R"("flags":["Pseudorandom"])", R"("flags":"Pseudorandom")"),
       "w.json: tcId 1: 'flags' must be an array of strings, not a string"},
      {with(R"("flags":["Pseudorandom"])", R"("flags":["Pseudorandom",1])"),
       "w.json: tcId 1: 'flags' must be an array of strings, not an array holding a number"},
      {with(R"("comment":"c")", R"("comment":5)"),
       "w.json: tcId 1: 'comment' must be a string, not a number"},
      {with(R"("key":"e34f15c7bd819930fe9d66e0c166e61c")", R"("key":null)"),
       "w.json: tcId 1: 'key' must be a string, not null"},
      {with(R"("iv":"da9520f7d3520277035173299388bee2")", R"("iv":["da"])"),
       "w.json: tcId 1: 'iv' must be a string, not an array"},
      {with(R"("msg":"")", R"("msg":{})"), "w.json: tcId 1: 'msg' must be a string, not an object"},
      {with(R"("ct":"b10ab60153276941361000414aed0a9d")", R"("ct":1.5)"),
       "w.json: tcId 1: 'ct' must be a string, not a number"},
      {with(R"("result":"valid")", R"("result":true)"),
       "w.json: tcId 1: 'result' must be a string, not a boolean"},
      {with(R"("tcId":1)", R"("tcId":"1")"),
       "w.json: testGroups[0].tests[0]: 'tcId' is not a whole number from 0 to 10^9"},
      {with(R"("tcId":1,)", ""), "w.json: testGroups[0].tests[0]: missing field 'tcId'"},
      {with(R"("result":"valid")", R"("result":"acceptable")"),
       "w.json: tcId 1: 'result' must be valid or invalid"},
      {with(R"("keySize":128)", R"("keySize":"128")"),
       "w.json: testGroups[0]: 'keySize' is not a whole number from 0 to 10^9"},
      {with(R"("type":"IndCpaTest")", R"("type":1)"),
       "w.json: testGroups[0]: 'type' must be a string, not a number"},
      {with(R"("source":{"name":"google-wycheproof"})", R"("source":"google")"),
       "w.json: testGroups[0]: 'source' must be an object, not a string"},
      {with(R"("tests":[)" + kCase + "]", R"("tests":{"a":)" + kCase + "}"),
       "w.json: testGroups[0]: 'tests' must be an array, not an object"},
      {with(R"("tests":[)" + kCase + "]", R"("tests":[1])"),
       "w.json: testGroups[0].tests[0] is not an object"},
      {with(R"(,"tests":[)" + kCase + "]", ""), "w.json: testGroups[0]: missing field 'tests'"},
      {R"({"algorithm":"AES-CBC-PKCS5","numberOfTests":1,"testGroups":[[]]})",
       "w.json: testGroups[0] is not an object"},
      {R"({"algorithm":"AES-CBC-PKCS5","numberOfTests":0,"testGroups":{}})",
       "w.json: top level: 'testGroups' must be an array, not an object"},
      {R"({"algorithm":"AES-CBC-PKCS5","numberOfTests":0})",
       "w.json: top level: missing field 'testGroups'"},
      {R"({"algorithm":"AES-CBC-PKCS5","testGroups":[]})",
       "w.json: top level: missing field 'numberOfTests'"},
      {with(R"("algorithm":"AES-CBC-PKCS5")", R"("algorithm":5)"),
       "w.json: top level: 'algorithm' must be a string, not a number"},
      {with(R"("schema":"ind_cpa_test_schema_v1.json")", R"("schema":[])"),
       "w.json: top level: 'schema' must be a string, not an array"},
      {with(R"("header":["h"])", R"("header":"h")"),
       "w.json: top level: 'header' must be an array of strings, not a string"},
      {with(R"("notes":{)", R"("notes":{"x":1},"unused":{)"),
       "w.json: top level: unknown field 'unused'"},
      {with(R"("notes":{"Pseudorandom":{"bugType":"FUNCTIONALITY"}})", R"("notes":[])"),
       "w.json: top level: 'notes' must be an object, not an array"},
      {"[]", "w.json: top level is not an object"},
  };
  for (const Case& c : cases) {
    const std::string error = wycheproof_error(c.text);
    EXPECT_EQ(error, c.message) << c.text;
  }
}

TEST(WycheproofReader, ErrorsAreOneShortLine) {
  // A key with a newline in it: the message shows it escaped.
  EXPECT_EQ(wycheproof_error(with(R"("result":"valid")", R"("result":"valid","bo\ngus":1)")),
            "w.json: tcId 1: unknown field 'bo\\x0agus'");
  // The JSON library quotes the token it stopped at, here 1 MiB long.
  const std::string error =
      wycheproof_error(R"({"algorithm":")" + std::string(std::size_t{1} << 20, 'a'));
  EXPECT_EQ(error.rfind("w.json: not valid JSON (", 0), 0u) << error.substr(0, 200);
  EXPECT_LT(error.size(), 400u);
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(WycheproofReader, RejectsDeepNesting) {
  // 30 MiB of '[' took 2.3 GB and 10 s to parse; a Wycheproof file nests 6 deep.
  const std::size_t depth = 100000;
  const std::string deep =
      with(R"("header":["h"])", R"("header":)" + std::string(depth, '[') + std::string(depth, ']'));
  EXPECT_EQ(wycheproof_error(deep), "w.json: nested deeper than 32 levels");
  const std::string ok = with(R"("header":["h"])", R"("header":[[[[[[[[[[[[[[[]]]]]]]]]]]]]]])");
  EXPECT_EQ(
      wycheproof_error(ok),
      "w.json: top level: 'header' must be an array of strings, not an array holding an array");
}

TEST(Printable, EscapesControlCharactersOnly) {
  EXPECT_EQ(printable("a\nb\r\x1b[2J\x7f"), "a\\x0ab\\x0d\\x1b[2J\\x7f");
  EXPECT_EQ(printable("\xc2\x9b[1m"), "\\xc2\\x9b[1m");  // U+009B (CSI), a C1 control
  EXPECT_EQ(printable("caf\xc3\xa9 \xc2\xa0"), "caf\xc3\xa9 \xc2\xa0");  // other UTF-8 kept
  // An .rsp field name with a terminal escape in it.
  EXPECT_NE(error_of(kHeader + kRecord + "T\x1b[2JAG = 00\n").find("unknown field 'T\\x1b[2JAG'"),
            std::string::npos);
}

// A folder of its own under the system's temporary folder, removed afterwards.
class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "vector-files-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string read_error(const std::filesystem::path& path) {
  try {
    (void)read_file(path);
  } catch (const VectorFileError& e) {
    return e.what();
  }
  return "";
}

TEST(ReadFile, ReadsRegularFilesAndSymlinksToThem) {
  const TempFolder folder;
  std::ofstream(folder / "a.rsp") << "text\n";
  std::filesystem::create_symlink(folder / "a.rsp", folder / "link.rsp");
  EXPECT_EQ(read_file(folder / "a.rsp"), "text\n");
  EXPECT_EQ(read_file(folder / "link.rsp"), "text\n");
}

TEST(ReadFile, RejectsWhatIsNotARegularFile) {
  const TempFolder folder;
  // (/dev/zero, which never ends, is cli.vectors.dev_zero, under a timeout.)
  EXPECT_EQ(read_error("/dev/null"), "/dev/null: not a regular file (a character device)");
  EXPECT_EQ(read_error(folder.path()), folder.path().string() + ": not a regular file (a folder)");
  std::filesystem::create_symlink("/dev/null", folder / "null.json");
  EXPECT_EQ(read_error(folder / "null.json"),
            (folder / "null.json").string() + ": not a regular file (a character device)");
  EXPECT_EQ(read_error(folder / "none.json"),
            (folder / "none.json").string() + ": cannot open: No such file or directory");
}

// Opening a FIFO for reading waits for a writer: the reader must not.
TEST(ReadFile, RejectsAFifoWithoutBlocking) {
  const TempFolder folder;
  const std::filesystem::path fifo = folder / "x.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto reading = std::async(std::launch::async, [&] { return read_error(fifo); });
  if (reading.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    // Blocked: open the other end to let it go, then fail.
    const int writer = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (writer >= 0) close(writer);
    reading.wait();
    FAIL() << "read_file blocked on a FIFO";
  }
  EXPECT_EQ(reading.get(), fifo.string() + ": not a regular file (a FIFO)");
}

TEST(ReadFile, HasASizeLimit) {
  const TempFolder folder;
  const auto sparse = [&](const std::string& name, std::uintmax_t size) {
    std::ofstream(folder / name).close();
    std::filesystem::resize_file(folder / name, size);
    return folder / name;
  };
  EXPECT_EQ(read_file(sparse("limit.rsp", kMaxVectorFileBytes)).size(), kMaxVectorFileBytes);
  const auto big = sparse("big.rsp", kMaxVectorFileBytes + 1);
  EXPECT_EQ(read_error(big),
            big.string() + ": larger than the 64 MiB limit for a vector file (67108865 bytes)");
}

}  // namespace
}  // namespace cryptobench::vectors
