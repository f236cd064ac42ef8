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
#include <variant>

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
  EXPECT_NE(wycheproof_error(file("AES-CCM", 1, good_case)).find("not an AES-CBC-PKCS5 or AES-GCM"),
            std::string::npos);
  // A CBC case in an AES-GCM file lacks the AEAD fields.
  EXPECT_NE(wycheproof_error(file("AES-GCM", 1, good_case)).find("missing field 'tagSize'"),
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

// --- NIST GCMVS .rsp -------------------------------------------------------

const std::string kGcmDecryptHeader =
    "# CAVS 14.0\n# GCM Decrypt with keysize 128 test information\n\n"
    "[Keylen = 128]\n[IVlen = 96]\n[PTlen = 128]\n[AADlen = 0]\n[Taglen = 128]\n\n";
// gcmDecrypt128.rsp, [PTlen = 128] [AADlen = 0] section, Count 0 (line 15 of
// kGcmDecryptHeader + it), and a FAIL record.
const std::string kGcmRecord =
    "Count = 0\nKey = e98b72a9881a84ca6b76e0f43e68647a\nIV = 8b23299fde174053f3d652ba\n"
    "CT = 5a3c1cf1985dbb8bed818036fdd5ab42\nAAD = \nTag = 23c7ab0f952b7091cd324835043b5eb5\n"
    "PT = 28286a321293253c3e0aa2704a278032\n";
const std::string kGcmFailRecord =
    "Count = 1\nKey = 33240636cd3236165f1a553b773e728e\nIV = 17c4d61493ecdc8f31700b12\n"
    "CT = 47bb7e23f7bdfe05a8091ac90e4f8b2e\nAAD = \nTag = b723c70e931d9785f40fd4ab1d612dc9\n"
    "FAIL\n";

std::string gcm_error(const std::string& text) {
  try {
    (void)parse_gcm_rsp("g.rsp", text);
  } catch (const VectorFileError& e) {
    return e.what();
  }
  return "";
}

// `text` with the first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(GcmRspReader, ReadsRecordsAndFailRecords) {
  const GcmRspFile f =
      parse_gcm_rsp("g.rsp", kGcmDecryptHeader + kGcmRecord + "\n" + kGcmFailRecord);
  EXPECT_TRUE(f.decrypt);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_FALSE(f.records[0].fail);
  EXPECT_EQ(f.records[0].line, 10);
  EXPECT_EQ(f.records[0].iv.size(), 12u);
  EXPECT_EQ(f.records[0].plaintext.size(), 16u);
  EXPECT_TRUE(f.records[0].aad.empty());
  EXPECT_TRUE(f.records[1].fail);
  EXPECT_TRUE(f.records[1].plaintext.empty());
  EXPECT_EQ(f.records[1].ciphertext.size(), 16u);
  // CRLF, as NIST ships them.
  std::string crlf;
  for (const char c : kGcmDecryptHeader + kGcmRecord) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  EXPECT_EQ(parse_gcm_rsp("g.rsp", crlf).records.size(), 1u);
}

TEST(GcmRspReader, IsRecognisedByContent) {
  EXPECT_TRUE(is_gcm_rsp(kGcmDecryptHeader + kGcmRecord));
  EXPECT_TRUE(is_gcm_rsp("\n[Keylen = 128]\n"));  // no header: parse_gcm_rsp says so
  EXPECT_FALSE(is_gcm_rsp(kHeader + kRecord));
  EXPECT_FALSE(is_gcm_rsp(""));
  EXPECT_NE(gcm_error("[Keylen = 128]\n").find("data before the '# GCM Encrypt' or"),
            std::string::npos);
  const VectorFile v = parse_vector_file("x/g.rsp", "g.rsp", kGcmDecryptHeader + kGcmRecord);
  EXPECT_TRUE(std::holds_alternative<GcmRspFile>(v.content));
  EXPECT_TRUE(std::holds_alternative<RspFile>(
      parse_vector_file("t.rsp", "t.rsp", kHeader + kRecord).content));
}

TEST(GcmRspReader, RejectsMalformedFiles) {
  const std::string good = kGcmDecryptHeader + kGcmRecord;
  const std::string encrypt_header = replaced(kGcmDecryptHeader, "GCM Decrypt", "GCM Encrypt");
  struct Case {
    const char* what;
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {"truncated record",
       kGcmDecryptHeader + "Count = 0\nKey = e98b72a9881a84ca6b76e0f43e68647a\n"
                           "IV = 8b23299fde174053f3d652ba\n",
       "g.rsp:10: record is missing a field: AAD"},
      {"truncated file, mid line", good.substr(0, good.find("Tag = ") + 9),
       "g.rsp:15: Tag is not valid hex"},
      {"bad hex", replaced(good, "Key = e98b", "Key = g98b"), "g.rsp:11: Key is not valid hex"},
      {"odd hex", replaced(good, "AAD = ", "AAD = 0"), "g.rsp:14: AAD is not valid hex"},
      {"tag shorter than the header says",
       replaced(good, "Tag = 23c7ab0f952b7091cd324835043b5eb5",
                "Tag = 23c7ab0f952b7091cd324835043b5e"),
       "g.rsp:10: Tag is 120 bits but the section says [Taglen = 128]"},
      {"IV longer than the header says",
       replaced(good, "IV = 8b23299fde174053f3d652ba", "IV = 8b23299fde174053f3d652ba00"),
       "g.rsp:10: IV is 104 bits but the section says [IVlen = 96]"},
      {"PT disagrees with PTlen",
       replaced(good, "PT = 28286a321293253c3e0aa2704a278032", "PT = 28"),
       "g.rsp:10: PT is 8 bits but the section says [PTlen = 128]"},
      {"CT disagrees with PTlen", replaced(good, "CT = 5a3c1cf1985dbb8bed818036fdd5ab42", "CT = "),
       "g.rsp:10: CT is 0 bits but the section says [PTlen = 128]"},
      {"AAD disagrees with AADlen", replaced(good, "AAD = ", "AAD = 00"),
       "g.rsp:10: AAD is 8 bits but the section says [AADlen = 0]"},
      {"key disagrees with Keylen", replaced(good, "[Keylen = 128]", "[Keylen = 256]"),
       "g.rsp:10: Key is 128 bits but the section says [Keylen = 256]"},
      {"FAIL record with a PT too", kGcmDecryptHeader + kGcmFailRecord + "PT = 00\n",
       "g.rsp:10: a FAIL record must not have a PT"},
      {"FAIL in an encrypt file", encrypt_header + kGcmFailRecord,
       "g.rsp:16: FAIL in a '# GCM Encrypt' file"},
      {"FAIL twice", kGcmDecryptHeader + kGcmFailRecord + "FAIL\n",
       "g.rsp:17: repeated field FAIL"},
      {"FAIL outside a record", kGcmDecryptHeader + "FAIL\n", "g.rsp:10: FAIL outside a record"},
      {"neither PT nor FAIL", replaced(good, "PT = 28286a321293253c3e0aa2704a278032\n", ""),
       "g.rsp:10: record is missing a field: PT (or FAIL)"},
      {"duplicated field", replaced(good, "AAD = \n", "AAD = \nAAD = \n"),
       "g.rsp:15: repeated field AAD"},
      {"duplicated Count", replaced(good, "Count = 0\n", "Count = 0\nCount = 0\n"),
       "g.rsp:11: repeated field Count"},
      {"unknown field", replaced(good, "AAD = \n", "AAD = \nIVlen = 96\n"),
       "g.rsp:15: unknown field 'IVlen'"},
      {"record not starting with Count", replaced(good, "Count = 0\n", ""),
       "g.rsp:10: a record must start with Count"},
      {"Count not a number", replaced(good, "Count = 0", "Count = -1"),
       "g.rsp:10: Count is not a number"},
      {"no header", good.substr(good.find("[Keylen")),
       "g.rsp:1: data before the '# GCM Encrypt' or '# GCM Decrypt' header"},
      {"other GCM header", replaced(good, "GCM Decrypt", "GCM Frobnicate"),
       "g.rsp:2: unrecognised GCM header"},
      {"second header", replaced(good, "# CAVS 14.0", "# GCM Encrypt"),
       "g.rsp:2: a second '# GCM' header"},
      {"record before its section", replaced(good, "[Taglen = 128]\n", ""),
       "g.rsp:9: record before its section's [Keylen], [IVlen], [PTlen], [AADlen] and [Taglen]"},
      {"a new section must say everything again",
       good + "\n[Keylen = 128]\n\n" + replaced(kGcmRecord, "Count = 0", "Count = 1"),
       "g.rsp:20: record before its section's"},
      {"repeated section parameter",
       replaced(good, "[IVlen = 96]\n", "[IVlen = 96]\n[IVlen = 8]\n"),
       "g.rsp:6: repeated [IVlen] in one section"},
      {"unknown section parameter", replaced(good, "[AADlen = 0]", "[Foo = 0]"),
       "g.rsp:7: unknown section parameter 'Foo'"},
      {"not a section", replaced(good, "[AADlen = 0]", "[AADlen 0]"),
       "g.rsp:7: expected '[Name = value]'"},
      {"tag too long", replaced(good, "[Taglen = 128]", "[Taglen = 136]"),
       "g.rsp:8: [Taglen] must be 32 to 128 bits, whole bytes"},
      {"tag too short", replaced(good, "[Taglen = 128]", "[Taglen = 24]"),
       "g.rsp:8: [Taglen] must be 32 to 128 bits, whole bytes"},
      {"empty IV", replaced(good, "[IVlen = 96]", "[IVlen = 0]"),
       "g.rsp:5: [IVlen] must be 8 to 1024 bits, whole bytes"},
      {"IV too long", replaced(good, "[IVlen = 96]", "[IVlen = 1032]"),
       "g.rsp:5: [IVlen] must be 8 to 1024 bits, whole bytes"},
      {"bits not bytes", replaced(good, "[PTlen = 128]", "[PTlen = 127]"),
       "g.rsp:6: [PTlen] must be whole bytes (a multiple of 8)"},
      {"huge length", replaced(good, "[PTlen = 128]", "[PTlen = 99999999999999999999]"),
       "g.rsp:6: [PTlen] is not a number"},
      {"bad key length", replaced(good, "[Keylen = 128]", "[Keylen = 64]"),
       "g.rsp:4: [Keylen] must be 128, 192 or 256"},
      {"no records", kGcmDecryptHeader, "no test records"},
      {"not NAME = value", replaced(good, "AAD = \n", "AAD\n"),
       "g.rsp:14: expected 'Name = value'"},
  };
  for (const Case& c : cases) {
    const std::string error = gcm_error(c.text);
    EXPECT_NE(error.find(c.message), std::string::npos) << c.what << ": got '" << error << "'";
    EXPECT_EQ(error.rfind("g.rsp", 0), 0u) << c.what << ": error does not name the file";
    EXPECT_EQ(error.find('\n'), std::string::npos) << c.what;
  }
}

// --- RFC 3686 CTR .txt -------------------------------------------------------

// aes-128-ctr.txt, COUNT 0 (RFC 3686 test vector #1).
const std::string kCtrFile =
    "# AES Counter test vectors from RFC 3686\n\n[ENCRYPT]\n\nCOUNT = 0\n"
    "KEY = AE6852F8121067CC4BF7A5765577F39E\nIV = 00000030000000000000000000000001\n"
    "PLAINTEXT = 53696E676C6520626C6F636B206D7367\n"
    "CIPHERTEXT = E4095D4FB7A7B3792D6175A3261311B8\n";

std::string ctr_error(const std::string& text) {
  try {
    (void)parse_ctr_txt("c.txt", text);
  } catch (const VectorFileError& e) {
    return e.what();
  }
  return "";
}

TEST(CtrTxtReader, ReadsTheRfc3686Layout) {
  const CtrFile f = parse_ctr_txt("c.txt", kCtrFile);
  ASSERT_EQ(f.records.size(), 1u);
  EXPECT_TRUE(f.records[0].encrypt);
  EXPECT_EQ(f.records[0].line, 5);
  EXPECT_EQ(f.records[0].counter.size(), 16u);
  EXPECT_EQ(f.records[0].counter[3], 0x30);
  EXPECT_EQ(f.records[0].plaintext.size(), 16u);
  EXPECT_TRUE(is_rfc3686_txt(kCtrFile));
  EXPECT_FALSE(is_rfc3686_txt("notes\n"));
  EXPECT_FALSE(is_rfc3686_txt("# other notes\n# RFC 3686\n"));
  EXPECT_TRUE(
      std::holds_alternative<CtrFile>(parse_vector_file("c.txt", "c.txt", kCtrFile).content));
}

TEST(CtrTxtReader, RejectsMalformedFiles) {
  struct Case {
    const char* what;
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {"no header", kCtrFile.substr(kCtrFile.find("[ENCRYPT]")),
       "c.txt:1: no '# ... RFC 3686' header on the first line"},
      {"truncated record", kCtrFile.substr(0, kCtrFile.find("CIPHERTEXT")),
       "c.txt:5: record is missing a field: CIPHERTEXT"},
      {"truncated mid value", kCtrFile.substr(0, kCtrFile.size() - 4),
       "c.txt:9: CIPHERTEXT is not valid hex"},
      {"bad hex", replaced(kCtrFile, "KEY = AE", "KEY = AG"), "c.txt:6: KEY is not valid hex"},
      {"short counter block",
       replaced(kCtrFile, "IV = 00000030000000000000000000000001",
                "IV = 0000003000000000000000000001"),
       "c.txt:5: IV (the counter block) must be 16 bytes, got 14"},
      {"lengths differ", replaced(kCtrFile, "PLAINTEXT = 53", "PLAINTEXT = 5353"),
       "c.txt:5: CIPHERTEXT and PLAINTEXT differ in length"},
      {"bad key length", replaced(kCtrFile, "KEY = AE68", "KEY = "),
       "c.txt:5: KEY must be 16, 24 or 32 bytes, got 14"},
      {"duplicated field", replaced(kCtrFile, "IV = ", "KEY = 00\nIV = "),
       "c.txt:7: repeated field KEY"},
      {"unknown field", replaced(kCtrFile, "IV = ", "NONCE = 00\nIV = "),
       "c.txt:7: unknown field 'NONCE'"},
      {"outside a section", replaced(kCtrFile, "[ENCRYPT]", ""),
       "c.txt:5: record outside an [ENCRYPT] or [DECRYPT] section"},
      {"not starting with COUNT", replaced(kCtrFile, "COUNT = 0\n", ""),
       "c.txt:5: a record must start with COUNT"},
      {"no records", "# AES Counter test vectors from RFC 3686\n\n[ENCRYPT]\n", "no test records"},
  };
  for (const Case& c : cases) {
    const std::string error = ctr_error(c.text);
    EXPECT_NE(error.find(c.message), std::string::npos) << c.what << ": got '" << error << "'";
    EXPECT_EQ(error.rfind("c.txt", 0), 0u) << c.what << ": error does not name the file";
  }
}

TEST(VectorFileDispatch, RefusesWhatIsNoVectorFile) {
  const auto error = [](const char* path, const std::string& text) {
    try {
      (void)parse_vector_file(path, path, text);
    } catch (const VectorFileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("d/notes.txt", "just notes\n"),
            "d/notes.txt: not a vector file (a .txt file must be RFC 3686 CTR vectors, its first "
            "line a comment naming RFC 3686)");
  EXPECT_EQ(error("d/x.csv", kCtrFile),
            "d/x.csv: unknown file type (expected .rsp, .json or .txt)");
}

// --- Wycheproof AES-GCM ------------------------------------------------------

const std::string kGcmCase =
    R"({"tcId":1,"comment":"","flags":["Ktv"],"key":"5b9604fe14eadba931b0ccf34843dab9",)"
    R"("iv":"028318abc1824029138141a2","aad":"","msg":"001d0c231287c1182784554ca3a21908",)"
    R"("ct":"26073cc1d851beff176384dc9896d5ff","tag":"0a3ea7a5487cb5f7d70fb6c58d038554",)"
    R"("result":"valid"})";
const std::string kGcmFile =
    R"({"algorithm":"AES-GCM","schema":"aead_test_schema_v1.json","numberOfTests":1,)"
    R"("header":["h"],"notes":{"Ktv":{"bugType":"BASIC"}},)"
    R"("testGroups":[{"type":"AeadTest","source":{"name":"google-wycheproof"},)"
    R"("keySize":128,"ivSize":96,"tagSize":128,"tests":[)" +
    kGcmCase + "]}]}";

TEST(WycheproofReader, ReadsAnAesGcmFile) {
  const WycheproofFile f = parse_wycheproof("w.json", kGcmFile);
  EXPECT_EQ(f.algorithm, WycheproofAlgorithm::kAesGcm);
  ASSERT_EQ(f.cases.size(), 1u);
  EXPECT_TRUE(f.cases[0].valid);
  EXPECT_EQ(f.cases[0].iv.size(), 12u);
  EXPECT_EQ(f.cases[0].tag.size(), 16u);
  EXPECT_TRUE(f.cases[0].aad.empty());
  EXPECT_EQ(parse_wycheproof("w.json", kFile).algorithm, WycheproofAlgorithm::kAesCbcPkcs5);
  // "acceptable" exists in the AEAD schema (not in the CBC one: see above).
  const WycheproofFile acceptable = parse_wycheproof(
      "w.json", replaced(kGcmFile, R"("result":"valid")", R"("result":"acceptable")"));
  EXPECT_FALSE(acceptable.cases[0].valid);
  EXPECT_TRUE(acceptable.cases[0].acceptable);
  // An empty nonce, refused by every library, as an invalid case.
  const std::string empty_iv =
      replaced(replaced(replaced(kGcmFile, R"("iv":"028318abc1824029138141a2")", R"("iv":"")"),
                        R"("result":"valid")", R"("result":"invalid")"),
               R"("ivSize":96)", R"("ivSize":0)");
  EXPECT_TRUE(parse_wycheproof("w.json", empty_iv).cases[0].iv.empty());
}

TEST(WycheproofReader, RejectsMalformedAesGcmFiles) {
  struct Case {
    std::string text;
    const char* message;
  };
  const auto gcm = [](const std::string& from, const std::string& to) {
    return replaced(kGcmFile, from, to);
  };
  const Case cases[] = {
      {gcm(R"("tag":")", R"("tag":"00","tag":")"), "w.json: tcId 1: duplicate key 'tag'"},
      {gcm(R"("aad":"")", R"("aad":"","aad":"00")"), "w.json: tcId 1: duplicate key 'aad'"},
      {gcm(R"("tagSize":128)", R"("tagSize":128,"tagSize":64)"),
       "w.json: testGroups[0]: duplicate key 'tagSize'"},
      {gcm(R"("aad":"",)", ""), "w.json: tcId 1: missing field 'aad'"},
      {gcm(R"("tag":"0a3ea7a5487cb5f7d70fb6c58d038554",)", ""),
       "w.json: tcId 1: missing field 'tag'"},
      {gcm(R"("tagSize":128,)", ""), "w.json: testGroups[0]: missing field 'tagSize'"},
      {gcm(R"("tag":"0a3ea7a5487cb5f7d70fb6c58d038554")", R"("tag":16)"),
       "w.json: tcId 1: 'tag' must be a string, not a number"},
      {gcm(R"("aad":"")", R"("aad":null)"), "w.json: tcId 1: 'aad' must be a string, not null"},
      {gcm(R"("tag":"0a3e)", R"("tag":"0z3e)"), "w.json: tcId 1 tag is not valid hex"},
      {gcm(R"("tag":"0a3ea7a5487cb5f7d70fb6c58d038554")",
           R"("tag":"0a3ea7a5487cb5f7d70fb6c58d0385")"),
       "w.json: tcId 1: tag length disagrees with tagSize"},
      {gcm(R"("ivSize":96)", R"("ivSize":128)"), "w.json: tcId 1: iv length disagrees with ivSize"},
      {gcm(R"("ct":"26073cc1d851beff176384dc9896d5ff")",
           R"("ct":"26073cc1d851beff176384dc9896d5")"),
       "w.json: tcId 1: ct and msg differ in length"},
      {gcm(R"("keySize":128)", R"("keySize":256)"),
       "w.json: tcId 1: key length disagrees with keySize"},
      {gcm(R"("tagSize":128)", R"("tagSize":24)"),
       "w.json: testGroups[0]: tagSize must be 32 to 128 bits, whole bytes"},
      {gcm(R"("tagSize":128)", R"("tagSize":129)"),
       "w.json: testGroups[0]: tagSize must be 32 to 128 bits, whole bytes"},
      {gcm(R"("type":"AeadTest")", R"("type":"IndCpaTest")"),
       "w.json: testGroups[0]: 'type' of an AES-GCM group must be AeadTest"},
      {gcm(R"("result":"valid")", R"("result":"maybe")"),
       "w.json: tcId 1: 'result' must be valid, invalid or acceptable"},
      {gcm(R"("result":"valid")", R"("result":"valid","extra":1)"),
       "w.json: tcId 1: unknown field 'extra'"},
      {gcm(R"("numberOfTests":1)", R"("numberOfTests":2)"),
       "w.json: numberOfTests says 2 but the file has 1 (truncated?)"},
      {replaced(gcm(R"("iv":"028318abc1824029138141a2")", R"("iv":"")"), R"("ivSize":96)",
                R"("ivSize":0)"),
       "w.json: tcId 1: an empty iv can only be an invalid case"},
  };
  for (const Case& c : cases) EXPECT_EQ(wycheproof_error(c.text), c.message) << c.text;
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

TEST(ReadFile, ReadHeadReadsOnlyTheStartOfRegularFiles) {
  const TempFolder folder;
  std::ofstream(folder / "a.txt") << "0123456789";
  EXPECT_EQ(read_head(folder / "a.txt", 4), "0123");
  EXPECT_EQ(read_head(folder / "a.txt", 100), "0123456789");
  EXPECT_EQ(read_head("/dev/null", 4), std::nullopt);
  EXPECT_EQ(read_head(folder.path(), 4), std::nullopt);
  EXPECT_EQ(read_head(folder / "none.txt", 4), std::nullopt);
  // A FIFO is not opened for reading (which would wait for a writer).
  const std::filesystem::path fifo = folder / "x.txt";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto reading = std::async(std::launch::async, [&] { return read_head(fifo, 4); });
  if (reading.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    const int writer = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (writer >= 0) close(writer);
    reading.wait();
    FAIL() << "read_head blocked on a FIFO";
  }
  EXPECT_EQ(reading.get(), std::nullopt);
}

}  // namespace
}  // namespace cryptobench::vectors
