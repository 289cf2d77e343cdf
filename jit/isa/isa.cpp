#include "jit/isa/isa.hpp"

#include "jit/isa/caps.hpp"

#include <pooljit/types.hpp>

#include <xbyak/xbyak_util.h>

#include <cpuid.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace pooljit::jit {
namespace {

// What CPUID and XGETBV report, read once.
const CpuFeatures& detected_features() {
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

// Clears the features that `name` hides, and those built on them.
bool hide(CpuFeatures& f, std::string_view name) {
    if (name == "avx2") f = CpuFeatures{};
    else if (name == "avx512") f.avx512 = f.avx512_bf16 = f.avx512_vbmi = false;
    else if (name == "avx512_bf16") f.avx512_bf16 = false;
    else if (name == "avx512_vbmi") f.avx512_vbmi = false;
    else return false;
    return true;
}

// One cache's size as Linux reports it (sysfs), e.g. "32K"; "?" where it does not.
std::string cache_size(int level, const char* type) {
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
        int l = 0;
        std::string t, size;
        if (!(level_file >> l) || !(type_file >> t) || !(size_file >> size)) continue;
        if (l == level && (t == type || t == "Unified")) return size;
    }
    return "?";
}

}  // namespace

std::int64_t l2_cache_bytes() {
    static const std::int64_t bytes = [] {
        const std::string size = cache_size(2, "Unified");
        std::size_t digits = 0;
        while (digits < size.size() && size[digits] >= '0' && size[digits] <= '9') ++digits;
        if (digits == 0 || digits > 9) return std::int64_t{1} << 20;
        const std::int64_t n = std::stoll(size.substr(0, digits));
        const char unit = digits < size.size() ? size[digits] : ' ';
        return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : n;
    }();
    return bytes;
}

std::string cpu_identity() {
    static const std::string identity = [] {
        unsigned int regs[4] = {0, 0, 0, 0};
        __cpuid(0, regs[0], regs[1], regs[2], regs[3]);
        char vendor[13] = {};
        std::memcpy(vendor, &regs[1], 4);
        std::memcpy(vendor + 4, &regs[3], 4);
        std::memcpy(vendor + 8, &regs[2], 4);
        const Xbyak::util::Cpu cpu;
        const CpuFeatures& f = detected_features();
        std::string features = f.avx2 ? "avx2" : "-";
        if (f.avx512) features += ",avx512";
        if (f.avx512_bf16) features += ",avx512_bf16";
        if (f.avx512_vbmi) features += ",avx512_vbmi";
        return std::string(vendor) + "/family=" + std::to_string(cpu.displayFamily) + "/model=" +
               std::to_string(cpu.displayModel) + "/stepping=" + std::to_string(cpu.stepping) + "/" + features +
               "/L1d=" + cache_size(1, "Data") + "/L2=" + cache_size(2, "Unified") + "/L3=" + cache_size(3, "Unified");
    }();
    return identity;
}

CpuFeatures cpu_features() {
    CpuFeatures f = detected_features();
    const char* mask = std::getenv("POOLJIT_CPU_MASK");
    if (mask == nullptr) return f;
    std::string_view rest(mask);
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view name = rest.substr(0, comma);
        if (!name.empty() && !hide(f, name))
            throw Error("POOLJIT_CPU_MASK = " + std::string(mask) + ": '" + std::string(name) +
                        "' is not a feature it can hide (avx512, avx512_bf16, avx512_vbmi, avx2; comma-separated)");
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return f;
}

bool cpu_runs(Isa isa) {
    switch (isa) {
        case Isa::ref: return true;
        case Isa::avx2: return cpu_features().avx2;
        case Isa::avx512: return cpu_features().avx512;
    }
    return false;
}

const char* cpu_feature_of(Isa isa) {
    switch (isa) {
        case Isa::ref: return "";
        case Isa::avx2: return "avx2";
        case Isa::avx512: return "avx512";
    }
    return "";
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

const IsaCaps& caps_of(Isa isa) {
    switch (isa) {
        case Isa::avx512: return avx512_caps;
        case Isa::avx2: return avx2_caps;
        case Isa::ref: break;
    }
    throw Error(std::string("jit: no capabilities for isa ") + to_string(isa) + " (the planner serves avx512 and avx2)");
}

Isa max_isa() {
    const CpuFeatures f = cpu_features();
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
