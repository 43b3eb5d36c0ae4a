#include "engine/deal_proof.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace trix::engine {
namespace {

void AppendBigEndian(uint64_t value, std::string& out) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xFF));
  }
}

std::string Sha256(const std::string& input) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

bool KnownProcedure(absl::string_view procedure) {
  return procedure == kDealProcedure || procedure == kSeatSeededDealProcedure;
}

absl::Status UnknownProcedure(absl::string_view procedure) {
  return absl::InvalidArgumentError(
      absl::StrCat("unknown deal procedure \"", procedure, "\" (this tool knows ",
                   kDealProcedure, " and ", kSeatSeededDealProcedure, ")"));
}

}  // namespace

std::string DealCommitment(uint64_t seed, absl::string_view salt,
                           absl::string_view procedure) {
  std::string input(procedure);
  input.append(salt.data(), salt.size());
  AppendBigEndian(seed, input);
  return absl::BytesToHexString(Sha256(input));
}

absl::Status CheckDealCommitment(absl::string_view procedure, absl::string_view commitment,
                                 uint64_t seed, absl::string_view salt) {
  if (!KnownProcedure(procedure)) return UnknownProcedure(procedure);
  if (salt.size() != kDealSaltBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the salt has ", salt.size(), " bytes, not ", kDealSaltBytes));
  }
  const std::string expected = DealCommitment(seed, salt, procedure);
  if (commitment != expected) {
    return absl::FailedPreconditionError(
        absl::StrCat("the seed and salt commit to ", expected, ", not to the commitment ",
                     commitment, " shown before the first deal"));
  }
  return absl::OkStatus();
}

uint64_t SeatSeededDealSeed(uint64_t seed, absl::string_view salt,
                            const SeatSeeds& seat_seeds) {
  std::string input = absl::StrCat(kSeatSeededDealProcedure, " deal");
  input.append(salt.data(), salt.size());
  AppendBigEndian(seed, input);
  for (const std::string& contribution : seat_seeds) {
    input.push_back(static_cast<char>(contribution.size()));
    input += contribution;
  }
  const std::string digest = Sha256(input);
  uint64_t out = 0;
  for (int i = 0; i < 8; ++i) out = (out << 8) | static_cast<unsigned char>(digest[i]);
  return out;
}

absl::StatusOr<uint64_t> DealSeed(absl::string_view procedure, uint64_t seed,
                                  absl::string_view salt, const SeatSeeds& seat_seeds) {
  if (procedure == kDealProcedure) return seed;
  if (procedure != kSeatSeededDealProcedure) return UnknownProcedure(procedure);
  for (size_t s = 0; s < seat_seeds.size(); ++s) {
    const size_t n = seat_seeds[s].size();
    if (n != 0 && n != kSeatSeedBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "seat ", s, "'s seed has ", n, " bytes, not 0 or ", kSeatSeedBytes));
    }
  }
  return SeatSeededDealSeed(seed, salt, seat_seeds);
}

}  // namespace trix::engine
