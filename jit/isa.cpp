#include "jit/isa.hpp"

#include <pooljit/types.hpp>

#include <xbyak/xbyak_util.h>

#include <cstdlib>

namespace pooljit::jit {

const CpuFeatures& cpu_features() {
    static const CpuFeatures features = [] {
        // Xbyak's Cpu checks CPUID and, through XGETBV, that the OS saves the YMM / ZMM / opmask state.
        const Xbyak::util::Cpu cpu;
        using C = Xbyak::util::Cpu;
        CpuFeatures f;
        f.avx2 = cpu.has(C::tAVX2) && cpu.has(C::tFMA) && cpu.has(C::tF16C);
        f.avx512 = f.avx2 && cpu.has(C::tAVX512F) && cpu.has(C::tAVX512BW) && cpu.has(C::tAVX512VL) &&
                   cpu.has(C::tAVX512DQ);
        f.avx512_bf16 = f.avx512 && cpu.has(C::tAVX512_BF16);
        f.avx512_vbmi = f.avx512 && cpu.has(C::tAVX512_VBMI);
        return f;
    }();
    return features;
}

const char* to_string(Isa isa) {
    switch (isa) {
        case Isa::ref: return "ref";
        case Isa::avx2: return "avx2";
        case Isa::avx512: return "avx512";
    }
    return "invalid";
}

std::optional<Isa> isa_from_string(std::string_view name) {
    for (Isa isa : {Isa::ref, Isa::avx2, Isa::avx512})
        if (name == to_string(isa)) return isa;
    return std::nullopt;
}

Isa max_isa() {
    const CpuFeatures& f = cpu_features();
    Isa best = f.avx512 ? Isa::avx512 : f.avx2 ? Isa::avx2 : Isa::ref;
    if (const char* cap = std::getenv("POOLJIT_MAX_ISA"); cap != nullptr && *cap != '\0') {
        const auto parsed = isa_from_string(cap);
        if (!parsed)
            throw Error(std::string("POOLJIT_MAX_ISA = ") + cap + ", must be one of avx512, avx2, ref");
        if (*parsed < best) best = *parsed;
    }
    return best;
}

}  // namespace pooljit::jit
