// Separable rows with indices (planar 2-D rows, jit/emit/emit_separable_indices.cpp): each lane's index rides
// beside its maximum through the rows of maxima, and a position in the padding holds the index of its windows'
// first real tap. Against the reference, on each ISA the CPU has (skipped by name otherwise).
#include "support/cpu_isas.hpp"
#include "support/tie_data.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pj::test::expect_reference_on;
using pj::test::plan_on;

class JitIsa : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    jit::Isa isa() const { return GetParam(); }
};

// Planar 2-D ties (pj::test::tie_input) with a NaN in the first image's first plane (its last row) and in its
// last plane (its middle row), each at a random column: their calls see it and run the row code.
std::vector<std::uint8_t> planar_ties_with_two_nans(const pj::TensorDesc& d) {
    const std::size_t elem = pj::test::element_bytes(d);
    std::mt19937_64 rng(pj::casegen::byte_size(d) / elem);
    std::vector<std::uint8_t> src = pj::test::tie_input(d, rng);
    const std::int64_t C = d.dims[1], H = d.dims[2], W = d.dims[3];
    for (const auto& [c, h] : {std::pair{std::int64_t{0}, H - 1}, std::pair{C - 1, H / 2}}) {
        const std::uint64_t bits = pj::test::special_bits(d.dtype, 5);
        const std::int64_t w = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(W));
        std::memcpy(src.data() + static_cast<std::size_t>((c * H + h) * W + w) * elem, &bits, elem);
    }
    return src;
}

// The lowest value everywhere (-inf, or the integer type's lowest): every window's index is its first real
// tap's, which a window that starts in the padding takes from the padded position before it.
std::vector<std::uint8_t> lowest_everywhere(const pj::TensorDesc& d) {
    std::mt19937_64 rng(1);
    const bool is_float = d.dtype == pj::DType::f32 || d.dtype == pj::DType::bf16 || d.dtype == pj::DType::f16;
    std::vector<std::uint8_t> src = is_float ? pj::test::tie_input(d, rng) : pj::test::integer_ties(d, rng);
    const std::size_t elem = pj::test::element_bytes(d);
    for (std::size_t e = 0; e < src.size() / elem; ++e) {
        switch (d.dtype) {
            case pj::DType::f32:
            case pj::DType::bf16:
            case pj::DType::f16: {
                const std::uint64_t bits = pj::test::special_bits(d.dtype, 0);
                std::memcpy(src.data() + e * elem, &bits, elem);
                break;
            }
            case pj::DType::u8: src[e] = 0; break;
            default: {  // s32
                const std::int32_t lowest = std::numeric_limits<std::int32_t>::min();
                std::memcpy(src.data() + e * elem, &lowest, elem);
            }
        }
    }
    return src;
}

// Float input of ties (signed zeros, -1, -inf) with NaNs; integer input of mostly the lowest value; and the
// lowest value everywhere. Windows: SPP k9 with column-major indices, 5x5 in bf16 with axis 2, 5x4 at stride 2
// (the two phases), a width dilation of 2 over a padding of 3 (each window's first real tap a dilation past its
// start), 4x4 at stride 2 along the width under ceil rounding (windows past the padded row), 3x3 at stride 1 in
// s32 and u8 (widened), a 4x4 window under nan=ignore, a plane taller than one pass (rows of 150: 4 output rows
// a pass), windows of 2 rows (one row of maxima merged into another). On 1 and 2 threads (bands of rows cut
// the calls). The AVX2 plan must take separable rows: AVX-512 may hold 5 rows in a ring.
TEST_P(JitIsa, SeparableRowIndicesKeepEachWindowsFirstMaximum) {
    for (const int threads : {1, 2}) {
        pj::set_num_threads(threads);
        for (const char* line : {"maxpool dt=f32 layout=ncx src=2x3x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64 order=col",
                                 "maxpool dt=bf16 layout=ncx src=2x4x20x20 k=5x5 pb=2x2 pe=2x2 idx=s32 axis=2",
                                 "maxpool dt=f32 layout=ncx src=1x3x29x57 k=5x4 s=2x2 pb=2x2 pe=2x1 idx=s64",
                                 "maxpool dt=f32 layout=ncx src=1x2x30x41 k=5x5 d=1x2 pb=2x3 pe=2x3 idx=s64",
                                 "maxpool dt=f32 layout=ncx src=1x2x12x99 k=4x4 s=1x2 pb=1x1 pe=1x1 round=ceil idx=s32",
                                 "maxpool dt=s32 layout=ncx src=1x4x9x30 k=3x3 pb=1x1 pe=1x1 idx=s64",
                                 "maxpool dt=u8 layout=ncx src=2x4x28x28 k=3x3 pb=1x1 pe=1x1 idx=s32 axis=1",
                                 "maxpool dt=f32 layout=ncx src=2x3x13x11 k=4x4 pb=1x2 pe=2x1 nan=ignore idx=s32",
                                 "maxpool dt=f32 layout=ncx src=1x2x80x150 k=5x5 pb=2x2 pe=2x2 idx=s64",
                                 "maxpool dt=f32 layout=ncx src=1x3x17x33 k=2x5 pb=0x2 pe=1x2 idx=s64",
                                 "maxpool dt=f16 layout=ncx src=2x3x40x40 k=9x9 pb=4x4 pe=4x4 idx=s32",
                                 "maxpool dt=f16 layout=ncx src=1x2x12x99 k=4x4 s=1x2 pb=1x1 pe=1x1 round=ceil idx=s64 nan=ignore"}) {
            SCOPED_TRACE(line + std::string(" on ") + std::to_string(threads) + " threads");
            const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
            EXPECT_TRUE(plan_on(jit::Isa::avx2, p.problem()).separable.enabled());
            const pj::TensorDesc& d = p.src_desc();
            std::mt19937_64 rng(11);
            const bool is_float = d.dtype == pj::DType::f32 || d.dtype == pj::DType::bf16 || d.dtype == pj::DType::f16;
            expect_reference_on(isa(), line, is_float ? planar_ties_with_two_nans(d) : pj::test::integer_ties(d, rng));
            expect_reference_on(isa(), line, lowest_everywhere(d));
        }
    }
    pj::set_num_threads(0);
}

// A 5x5 block of NaNs under nan=ignore: the window over it is empty (index -1), which the row code stores into
// s32 indices with the -1 constant that the separable code's maxima in flight took on AVX2 (reloaded on leaving).
TEST_P(JitIsa, SeparableRowIndicesLeaveNanCallsToTheRowCode) {
    pj::set_num_threads(1);
    const std::string line = "maxpool dt=f32 layout=ncx src=1x3x20x20 k=5x5 pb=2x2 pe=2x2 nan=ignore idx=s32";
    const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
    EXPECT_TRUE(plan_on(jit::Isa::avx2, p.problem()).separable.enabled());
    const pj::TensorDesc& d = p.src_desc();
    std::mt19937_64 rng(5);
    std::vector<std::uint8_t> src = pj::test::tie_input(d, rng);
    for (std::int64_t h = 8; h < 13; ++h)
        for (std::int64_t w = 8; w < 13; ++w) {
            const float nan = std::numeric_limits<float>::quiet_NaN();
            std::memcpy(src.data() + static_cast<std::size_t>((1 * 20 + h) * 20 + w) * sizeof(float), &nan, sizeof(float));
        }
    expect_reference_on(isa(), line, src);
    pj::set_num_threads(0);
}

INSTANTIATE_TEST_SUITE_P(Isas, JitIsa, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const ::testing::TestParamInfo<jit::Isa>& isa_info) { return std::string(jit::to_string(isa_info.param)); });

}  // namespace
