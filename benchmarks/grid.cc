#include "benchmarks/grid.h"

namespace cryptobench::bench {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::kEncrypt:
      return "encrypt";
    case Op::kDecrypt:
      return "decrypt";
    case Op::kRoundtrip:
      return "roundtrip";
    case Op::kEncryptLog:
      return "encrypt-log";
    case Op::kSetKey:
      return "set-key";
    case Op::kEncryptBatch:
      return "encrypt-batch";
    case Op::kRoundtripBatch:
      return "roundtrip-batch";
  }
  return "unknown";
}

std::string key_handling_name(KeyHandling key, unsigned pbkdf2_iterations) {
  switch (key) {
    case KeyHandling::kCached:
      return "cached";
    case KeyHandling::kPerOp:
      return "per-op";
    case KeyHandling::kHmac:
      return "hmac-sha256";
    case KeyHandling::kPbkdf2:
      return "pbkdf2-sha256-" + std::to_string(pbkdf2_iterations);
  }
  return "unknown";
}

std::string cipher_name(Mode mode, std::size_t key_bytes) {
  return "aes-" + std::to_string(key_bytes * 8) + "-" + std::string(mode_name(mode));
}

std::string Cell::name() const {
  std::string n = scenario;
  n += "/backend:" + backend;
  n += "/cipher:" + cipher_name(mode, key_bytes);
  n += "/op:" + std::string(op_name(op));
  n += "/size:" + std::to_string(size);
  if (mode == Mode::kGcm) n += "/aad:" + std::to_string(aad);
  if (batch()) n += "/messages:" + std::to_string(messages);
  n += "/codec:" + std::string(encoding_name(codec));
  n += pool ? "/pool:on" : "/pool:off";
  n += "/key:" + key_handling_name(key, pbkdf2_iterations);
  if (round > 0) n += "/round:" + std::to_string(round);
  return n;
}

std::string Cell::full_name() const {
  return name() + "/real_time/threads:" + std::to_string(threads);
}

}  // namespace cryptobench::bench
