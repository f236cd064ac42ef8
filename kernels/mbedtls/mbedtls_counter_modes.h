// mbedtls_counter_modes.h: AES-CTR and AES-GCM through mbedTLS 2.28's
// mbedtls_aes_crypt_ctr and mbedtls_gcm_*.
#pragma once

#include <memory>

#include "kernels/counter_modes.h"

namespace cryptobench {

std::unique_ptr<AesCtr> make_mbedtls_ctr();
std::unique_ptr<AesGcm> make_mbedtls_gcm();

// mbedtls_tables_ready (mbedtls_backend.cc): builds mbedTLS's AES tables
// once, before any thread keys a context; false if keying a test key failed.
bool mbedtls_tables_ready();

}  // namespace cryptobench
