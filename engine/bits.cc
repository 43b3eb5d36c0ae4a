#include "engine/bits.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace trix::engine {

BitsCpu DetectBitsCpu() {
  BitsCpu cpu;
#if defined(__x86_64__)
  unsigned max_leaf = 0, ebx = 0, ecx = 0, edx = 0, eax = 0;
  if (!__get_cpuid(0, &max_leaf, &ebx, &ecx, &edx)) return cpu;
  const bool amd = ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163;  // "AuthenticAMD"
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return cpu;
  cpu.popcnt = (ecx >> 23) & 1;
  unsigned family = (eax >> 8) & 0xF;
  if (family == 0xF) family += (eax >> 20) & 0xFF;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    const bool bmi2 = (ebx >> 8) & 1;
    // Before Zen 3 (family 19h) AMD runs PDEP in microcode, tens of cycles per bit.
    cpu.fast_pdep = bmi2 && !(amd && family < 0x19);
  }
#endif
  return cpu;
}

namespace {
BitsCpu ChosenBitsCpu() {
  const char* forced = std::getenv("TRIX_ENGINE_BITS");
  if (forced != nullptr && std::strcmp(forced, "portable") == 0) return BitsCpu{};
  return DetectBitsCpu();
}
}  // namespace

BitsCpu g_bits_cpu = ChosenBitsCpu();

}  // namespace trix::engine
