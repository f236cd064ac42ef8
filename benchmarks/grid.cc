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
  }
  return "unknown";
}

std::string_view key_handling_name(KeyHandling key) {
  return key == KeyHandling::kCached ? "cached" : "per-op";
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
  n += "/codec:" + std::string(encoding_name(codec));
  n += pool ? "/pool:on" : "/pool:off";
  n += "/key:" + std::string(key_handling_name(key));
  return n;
}

std::string Cell::full_name() const {
  return name() + "/real_time/threads:" + std::to_string(threads);
}

}  // namespace cryptobench::bench
