// openssl_counter_modes.h: AES-CTR and AES-GCM through OpenSSL 3's EVP.
#pragma once

#include <memory>

#include "kernels/counter_modes.h"

namespace cryptobench {

std::unique_ptr<AesCtr> make_openssl_ctr();
std::unique_ptr<AesGcm> make_openssl_gcm();
// The GCM limits of OpenSSL 3.0's default provider.
GcmLimits openssl_gcm_limits();

}  // namespace cryptobench
