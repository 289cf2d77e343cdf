// ISA detection and the POOLJIT_MAX_ISA cap. The chosen ISA is part of every cache key.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pooljit::jit {

// Ordered from least to most capable; the dispatcher tries them from the top down.
enum class Isa { ref, avx2, avx512 };

// What the CPU and the OS (XGETBV: the register state is enabled) support, cap ignored.
struct CpuFeatures {
    bool avx2 = false;      // AVX2 + FMA + F16C (OS-enabled YMM state)
    bool avx512 = false;    // AVX-512 F + BW + VL + DQ (OS-enabled ZMM and opmask state)
    bool avx512_bf16 = false;
    bool avx512_vbmi = false;
};
const CpuFeatures& cpu_features();

const char* to_string(Isa isa);
std::optional<Isa> isa_from_string(std::string_view name);

// The best ISA this machine has, lowered to POOLJIT_MAX_ISA when that is set (read on every call, so a
// process can change it between creates). An unknown POOLJIT_MAX_ISA value throws pooljit::Error.
Isa max_isa();

}  // namespace pooljit::jit
