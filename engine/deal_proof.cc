#include "engine/deal_proof.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace trix::engine {

std::string DealCommitment(uint64_t seed, absl::string_view salt) {
  std::string input(kDealProcedure);
  input.append(salt.data(), salt.size());
  for (int shift = 56; shift >= 0; shift -= 8) {
    input.push_back(static_cast<char>((seed >> shift) & 0xFF));
  }
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

absl::Status CheckDealCommitment(absl::string_view procedure, absl::string_view commitment,
                                 uint64_t seed, absl::string_view salt) {
  if (procedure != kDealProcedure) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown deal procedure \"", procedure, "\" (this tool knows ",
                     kDealProcedure, ")"));
  }
  if (salt.size() != kDealSaltBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the salt has ", salt.size(), " bytes, not ", kDealSaltBytes));
  }
  const std::string expected = DealCommitment(seed, salt);
  if (commitment != expected) {
    return absl::FailedPreconditionError(
        absl::StrCat("the seed and salt commit to ", expected, ", not to the commitment ",
                     commitment, " shown before the first deal"));
  }
  return absl::OkStatus();
}

}  // namespace trix::engine
