// vector_files_test.cc: the readers are strict; malformed files are errors
// that name the file and line.
#include "tools/vectors/vector_files.h"

#include <gtest/gtest.h>

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
  EXPECT_NE(wycheproof_error(file("AES-CBC-PKCS5", 1, no_key)).find("unexpected structure"),
            std::string::npos);
}

}  // namespace
}  // namespace cryptobench::vectors
