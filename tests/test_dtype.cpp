// The f16 / bf16 conversions that the reference and the test data rely on, checked against the CPU's F16C
// instructions (an independent implementation) over every 16-bit pattern.
#include "runtime/dtype.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <immintrin.h>

namespace pj = pooljit;

__attribute__((target("f16c"))) static float hardware_f16_to_f32(std::uint16_t bits) { return _cvtsh_ss(bits); }
__attribute__((target("f16c"))) static std::uint16_t hardware_f32_to_f16(float v) {
    return static_cast<std::uint16_t>(_cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT));
}

TEST(DType, F16ToF32MatchesF16cForEveryPattern) {
    if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "this CPU has no F16C to compare against";
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
        const auto bits = static_cast<std::uint16_t>(b);
        const float mine = pj::f16_to_f32(bits), hw = hardware_f16_to_f32(bits);
        if (std::isnan(hw)) {
            EXPECT_TRUE(std::isnan(mine)) << std::hex << b;
            EXPECT_EQ(std::signbit(mine), std::signbit(hw)) << std::hex << b;
        } else {
            EXPECT_EQ(std::bit_cast<std::uint32_t>(mine), std::bit_cast<std::uint32_t>(hw)) << std::hex << b;
        }
    }
}

TEST(DType, F32ToF16RoundsLikeF16c) {
    if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "this CPU has no F16C to compare against";
    // Every f16 value, and the midpoints and near-midpoints between neighbours, exercise round-to-nearest-even.
    for (std::uint32_t b = 0; b < 0x7C00; ++b) {
        const float v = pj::f16_to_f32(static_cast<std::uint16_t>(b));
        for (std::int32_t delta : {-4097, -4096, -4095, -1, 0, 1, 4095, 4096, 4097}) {
            const auto raw = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(v)) + delta;
            if (raw < 0) continue;
            for (float sign : {1.0f, -1.0f}) {
                const float x = sign * std::bit_cast<float>(static_cast<std::uint32_t>(raw));
                EXPECT_EQ(pj::f32_to_f16(x), hardware_f32_to_f16(x)) << x;
            }
        }
    }
}

TEST(DType, Bf16RoundTripsEveryNonNanPattern) {
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
        const auto bits = static_cast<std::uint16_t>(b);
        const float f = pj::bf16_to_f32(bits);
        if (std::isnan(f)) continue;
        EXPECT_EQ(pj::f32_to_bf16(f), bits) << std::hex << b;
    }
    EXPECT_EQ(pj::f32_to_bf16(1.00390625f), 0x3F80);  // halfway between 1 and the next bf16: ties to even
    EXPECT_EQ(pj::f32_to_bf16(1.01171875f), 0x3F82);  // halfway between 0x3F81 and 0x3F82: to even
}

TEST(DType, SizesAndNames) {
    EXPECT_EQ(pj::size_of(pj::DType::bf16), 2u);
    EXPECT_EQ(pj::size_of(pj::DType::s64), 8u);
    EXPECT_EQ(pj::size_of(pj::DType::u8), 1u);
    for (auto d : {pj::DType::f32, pj::DType::f64, pj::DType::f16, pj::DType::bf16, pj::DType::s8, pj::DType::u8,
                   pj::DType::s32, pj::DType::s64})
        EXPECT_EQ(pj::dtype_from_string(pj::to_string(d)), d);
    EXPECT_FALSE(pj::dtype_from_string("f8").has_value());
}
