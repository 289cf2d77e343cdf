// ISA detection, the POOLJIT_CPU_MASK feature mask and the POOLJIT_MAX_ISA cap. The chosen ISA is part of every
// cache key.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pooljit::jit {

// Ordered from least to most capable; the dispatcher tries them from the top down.
enum class Isa { ref, avx2, avx512 };

// What the CPU and the OS (XGETBV: the register state is enabled) support, less the features POOLJIT_CPU_MASK
// hides; the cap is ignored.
struct CpuFeatures {
    bool avx2 = false;      // AVX2 + FMA + F16C (OS-enabled YMM state)
    bool avx512 = false;    // AVX-512 F + BW + VL + DQ (OS-enabled ZMM and opmask state)
    bool avx512_bf16 = false;
    bool avx512_vbmi = false;
};

// POOLJIT_CPU_MASK (read on every call, like POOLJIT_MAX_ISA): a comma-separated list of features to hide from
// everything that asks what the CPU has, so one machine can stand in for a smaller one (an AVX-512 host tested
// as an AVX2-only host). It only takes features away: `avx512` hides AVX-512 and its extensions, `avx2` hides
// AVX2 and everything built on it, `avx512_bf16` and `avx512_vbmi` one extension each. An unknown name throws
// pooljit::Error.
CpuFeatures cpu_features();

// Whether code of `isa` may run here (after the mask): ref always.
bool cpu_runs(Isa isa);
// The CPU feature an ISA needs, as the mask and the skip messages of tests name it: "avx512", "avx2", "".
const char* cpu_feature_of(Isa isa);

// This CPU as measured-choice wisdom keys it: vendor, family, model, stepping, the ISA features pooljit uses
// (not masked: wisdom is about the hardware) and the L1d, L2 and L3 sizes Linux reports.
std::string cpu_identity();

// Bytes of cpu0's L2 as Linux reports it (sysfs); 1 MiB where it does not.
std::int64_t l2_cache_bytes();

const char* to_string(Isa isa);
std::optional<Isa> isa_from_string(std::string_view name);

// The best ISA this machine has (after the mask), lowered to POOLJIT_MAX_ISA when that is set (read on every
// call, so a process can change it between creates). An unknown POOLJIT_MAX_ISA value throws pooljit::Error.
Isa max_isa();

}  // namespace pooljit::jit
