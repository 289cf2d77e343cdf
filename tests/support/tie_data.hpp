// Tie data and the reference check of the JIT path tests: inputs built of the values max pooling must tell apart
// by position alone (signed zeros, -1, -inf, the lowest integer), and a run under an ISA cap compared with the
// reference, values and indices.
#pragma once

#include "casegen/casegen.hpp"
#include "jit/plan/plan.hpp"
#include "support/isa_cap.hpp"
#include "support/run_compare.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace pooljit::test {

// Float values used to build ties, as the bits of a float type, by kind: 0 lowest (-inf), 1 -1, 2 -0, 3 +0, 4 1,
// 5 a quiet NaN.
inline std::uint64_t special_bits(DType dtype, int kind) {
    switch (dtype) {
        case DType::f32:
            return std::array<std::uint64_t, 6>{0xFF800000u, 0xBF800000u, 0x80000000u, 0u, 0x3F800000u, 0x7FC00000u}[kind];
        case DType::f64:
            return std::array<std::uint64_t, 6>{0xFFF0000000000000ull, 0xBFF0000000000000ull, 0x8000000000000000ull, 0,
                                                0x3FF0000000000000ull, 0x7FF8000000000000ull}[kind];
        case DType::f16: return std::array<std::uint64_t, 6>{0xFC00u, 0xBC00u, 0x8000u, 0u, 0x3C00u, 0x7E00u}[kind];
        case DType::bf16: return std::array<std::uint64_t, 6>{0xFF80u, 0xBF80u, 0x8000u, 0u, 0x3F80u, 0x7FC0u}[kind];
        default: break;
    }
    ADD_FAILURE() << "special_bits: not a float type";
    return 0;
}

inline std::size_t element_bytes(const TensorDesc& d) { return size_of(d.dtype); }

// A float input of ties: each element -inf, -1, -0 or +0 (15 in 16, the window's first zero in scan order must
// win with its own bits) or 1, drawn from rng.
inline std::vector<std::uint8_t> tie_input(const TensorDesc& d, std::mt19937_64& rng) {
    const std::size_t elem = element_bytes(d), elements = casegen::byte_size(d) / elem;
    std::vector<std::uint8_t> src(casegen::byte_size(d));
    for (std::size_t e = 0; e < elements; ++e) {
        const std::uint64_t roll = rng() % 64;
        const std::uint64_t bits = special_bits(d.dtype, roll < 60 ? static_cast<int>(roll % 4) : 4);
        std::memcpy(src.data() + e * elem, &bits, elem);
    }
    return src;
}

// An integer input of ties: mostly the type's lowest value (7 in 8), else 1 or 2, drawn from rng; u8, s8, s32.
inline std::vector<std::uint8_t> integer_ties(const TensorDesc& d, std::mt19937_64& rng) {
    const std::size_t elem = element_bytes(d), elements = casegen::byte_size(d) / elem;
    std::vector<std::uint8_t> src(casegen::byte_size(d));
    for (std::size_t e = 0; e < elements; ++e) {
        const std::uint64_t roll = rng() % 16;
        const std::int64_t value = roll < 14 ? 0 : static_cast<std::int64_t>(roll - 13);  // 0: the lowest
        switch (d.dtype) {
            case DType::u8: src[e] = static_cast<std::uint8_t>(value); break;
            case DType::s8: src[e] = static_cast<std::uint8_t>(value == 0 ? -128 : value); break;
            case DType::s32: {
                const std::int32_t v = value == 0 ? std::numeric_limits<std::int32_t>::min() : static_cast<std::int32_t>(value);
                std::memcpy(src.data() + e * elem, &v, elem);
                break;
            }
            default: ADD_FAILURE() << "integer_ties: u8, s8 or s32"; break;
        }
    }
    return src;
}

// Runs the problem on src under the ISA cap; it must be served by jit:isa and match the reference, values and
// indices.
inline void expect_reference_on(jit::Isa isa, const std::string& line, const std::vector<std::uint8_t>& src) {
    const IsaCap cap(jit::to_string(isa));
    const Primitive q = create(parse_problem(line), choice_for(isa));
    EXPECT_EQ(q.impl_name(), std::string("jit:") + jit::to_string(isa));
    expect_run_matches_reference(q.problem(), src, [&](const void* s, void* d, void* i) { q.execute(s, d, i); },
                                           jit::to_string(isa));
}

// The plan the planner makes for the line on `isa` (plan facts hold on any host).
inline jit::KernelPlan plan_on(jit::Isa isa, const Problem& p) { return jit::make_plan(p, isa); }

}  // namespace pooljit::test
