#include "runtime/dtype.hpp"

#include <cmath>

namespace pooljit {

std::size_t size_of(DType dtype) {
    switch (dtype) {
        case DType::f32: case DType::s32: return 4;
        case DType::f64: case DType::s64: return 8;
        case DType::f16: case DType::bf16: return 2;
        case DType::s8: case DType::u8: return 1;
    }
    return 0;
}

const char* to_string(DType dtype) {
    switch (dtype) {
        case DType::f32: return "f32";
        case DType::f64: return "f64";
        case DType::f16: return "f16";
        case DType::bf16: return "bf16";
        case DType::s8: return "s8";
        case DType::u8: return "u8";
        case DType::s32: return "s32";
        case DType::s64: return "s64";
    }
    return "invalid";
}

const char* to_string(Layout layout) {
    switch (layout) {
        case Layout::ncx: return "ncx";
        case Layout::nxc: return "nxc";
        case Layout::nCx8c: return "nCx8c";
        case Layout::nCx16c: return "nCx16c";
    }
    return "invalid";
}

std::optional<DType> dtype_from_string(std::string_view name) {
    for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::s8, DType::u8, DType::s32, DType::s64})
        if (name == to_string(d)) return d;
    return std::nullopt;
}

bool is_floating(DType dtype) {
    return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::f16 || dtype == DType::bf16;
}

bool is_index_dtype(DType dtype) { return dtype == DType::s32 || dtype == DType::s64; }

float f16_to_f32(std::uint16_t bits) {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
    std::uint32_t mantissa = bits & 0x3FFu;
    std::uint32_t out;
    if (exponent == 0x1F) {
        out = sign | 0x7F800000u | (mantissa << 13);  // inf, or NaN with its payload kept
    } else if (exponent != 0) {
        out = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        out = sign;
    } else {
        // Denormal: normalize. The value is mantissa * 2^-24.
        int e = -1;
        do {
            ++e;
            mantissa <<= 1;
        } while ((mantissa & 0x400u) == 0);
        out = sign | (static_cast<std::uint32_t>(112 - e) << 23) | ((mantissa & 0x3FFu) << 13);
    }
    return std::bit_cast<float>(out);
}

std::uint16_t f32_to_f16(float value) {
    const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
    const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
    const std::uint32_t abs = x & 0x7FFFFFFFu;
    if (abs > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x1FFu));
    if (abs >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds to inf
    if (abs < 0x38800000u) {
        // Result is an f16 denormal or zero: value / 2^-24, rounded to nearest even.
        const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // exact: power of two
        const float rounded = std::nearbyint(scaled);
        return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(rounded));
    }
    const std::uint32_t lsb = (abs >> 13) & 1u;
    const std::uint32_t rounded = abs + 0xFFFu + lsb;
    return static_cast<std::uint16_t>(sign | (((rounded >> 13) - (112u << 10)) & 0x7FFFu));
}

std::uint16_t f32_to_bf16(float value) {
    const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet NaN
    const std::uint32_t lsb = (x >> 16) & 1u;
    return static_cast<std::uint16_t>((x + 0x7FFFu + lsb) >> 16);
}

}  // namespace pooljit
