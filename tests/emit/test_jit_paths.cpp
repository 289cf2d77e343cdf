// Data tests of the JIT's paths beyond the strategy registry's examples (tests/plan/test_strategies.cpp runs those):
// ties and NaN placed where whole-plane items, row and column rings and planes in registers must get them
// right, and the executor's tilings (threads x batch, rows split along the width, generated problems split for
// threads). Each test is instantiated for both ISAs and skipped, by name, for an ISA the CPU lacks.
#include "casegen/casegen.hpp"
#include "jit/emit/kernel.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"
#include "support/cpu_isas.hpp"
#include "support/run_compare.hpp"
#include "support/tie_data.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pj::test::element_bytes;
using pj::test::expect_reference_on;
using pj::test::integer_ties;
using pj::test::plan_on;
using pj::test::special_bits;
using pj::test::tie_input;

const auto& dtypes = pj::test::all_dtypes;
using pj::test::check_split;
using pj::test::with_dtype;

std::string with_batch(const std::string& line, std::int64_t batch) {
    const std::size_t at = line.find("src=") + 4;
    const std::size_t x = line.find('x', at);
    return line.substr(0, at) + std::to_string(batch) + line.substr(x);
}

// The ISA a test instance runs; the instance is skipped when the CPU lacks it.
class JitIsa : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    jit::Isa isa() const { return GetParam(); }
};

// Channels-last 2-D ties (tie_input) with two NaNs in the first image: one in its last input row at channel 5
// (the first channel block), one in its middle row at channel C - 3 (the last block), each at a random column.
std::vector<std::uint8_t> ties_with_two_nans(const pj::TensorDesc& d) {
    const std::size_t elem = element_bytes(d);
    std::mt19937_64 rng(pj::casegen::byte_size(d) / elem);
    std::vector<std::uint8_t> src = tie_input(d, rng);
    const std::int64_t C = d.dims[1], H = d.dims[2], W = d.dims[3];
    for (const auto& [h, c] : {std::pair{H - 1, std::int64_t{5}}, std::pair{H / 2, C - 3}}) {
        const std::uint64_t bits = special_bits(d.dtype, 5);
        const std::int64_t w = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(W));
        std::memcpy(src.data() + static_cast<std::size_t>((h * W + w) * C + c) * elem, &bits, elem);
    }
    return src;
}


// Each line against the reference on 1 and 3 threads; where `isa` is AVX2, its plan must take the AVX2-only
// strategy that `taken` reads.
void check_avx2_strategy_lines(jit::Isa isa, std::initializer_list<const char*> lines, bool (*taken)(const jit::KernelPlan&)) {
    for (const char* line : lines) {
        EXPECT_TRUE(taken(plan_on(isa, pj::test::resolve_line(line))) || isa != jit::Isa::avx2) << line;
        for (const int threads : {1, 3}) pj::test::check_created(line, isa, threads);
    }
}

// Whole-plane items pick the first maximum in scan order by an equality search: planes whose maximum is a
// zero of either sign among -inf, -1, -0 and +0 (the first zero must win, with its own bits), planes of the
// lowest value only, and a single maximum anywhere, in every float type, in planes of one to three groups of
// 64 lanes (straight-line code) and of 1024 and 1155 elements (the looped maximum over several maxima in flight
// and the looped search, ending in a partial vector), with indices and without (where only a maximum of zero is
// searched for). A fourth of the planes hold one NaN anywhere: the NaN sum of whichever maximum in flight loads
// it must send the row to the exact code. Compared with the reference, values and indices.
TEST_P(JitIsa, WholePlaneFirstMaximumInScanOrderAmongSignedZeros) {
    for (const char* dt : {"f32", "f64", "f16", "bf16"})
        for (const char* plane : {"7x7 k=7x7", "10x10 k=10x10", "13x13 k=13x13", "32x32 k=32x32", "33x35 k=33x35"})
            for (const char* indices : {" idx=s64", ""}) {
                const std::string line = std::string("maxpool dt=") + dt + " layout=ncx src=2x96x" + plane + indices;
                SCOPED_TRACE(line);
                const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
                const pj::TensorDesc& src_desc = p.src_desc();
                const std::size_t elem = pj::casegen::byte_size({src_desc.dtype, src_desc.layout, {1, 1, 1, 1}});
                const std::int64_t planes = src_desc.dims[0] * src_desc.dims[1];
                const std::int64_t plane_elements = src_desc.dims[2] * src_desc.dims[3];
                std::vector<std::uint8_t> src(pj::casegen::byte_size(src_desc));
                std::mt19937_64 rng(planes * 131 + plane_elements);
                for (std::int64_t q = 0; q < planes; ++q) {
                    // 0: zeros of both signs; 1: lowest only; 2: one maximum; 3: zeros of both signs and one NaN
                    const int pattern = static_cast<int>(q % 4);
                    const std::int64_t peak = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(plane_elements));
                    for (std::int64_t i = 0; i < plane_elements; ++i) {
                        const int zero_or_less = static_cast<int>(rng() % 4);
                        const int kind = pattern == 1 ? 0 : pattern >= 2 && i == peak ? (pattern == 2 ? 4 : 5) : zero_or_less;
                        const std::uint64_t bits = special_bits(src_desc.dtype, kind);
                        std::memcpy(src.data() + static_cast<std::size_t>(q * plane_elements + i) * elem, &bits, elem);
                    }
                }
                expect_reference_on(isa(), line, src);
            }
}

// Row-maxima rings, with and without indices: planes whose rows mix signed zeros, -1 and the lowest value (ties
// between rows and within rows: the window's first zero in scan order must win, with its own bits and index), a
// few 1s, and a NaN in some rows
// only, so fast rows run with a held ring, NaN rows run the exact code and leave the ring stale, and the next
// fast row rebuilds it. Compared with the reference.
TEST_P(JitIsa, RowRingNanRowsLeaveTheRingStaleAndTiesKeepScanOrder) {
    pj::set_num_threads(1);  // every interior run of rows in one call: threads would cut it into bands
    for (const char* dt : {"f32", "f64", "bf16"})
        for (const char* window : {"src=2x24x20x20 k=5x5 pb=2x2 pe=2x2", "src=1x24x16x28 k=3x3 pb=1x1 pe=1x1",
                                   "src=1x24x19x28 k=3x3 d=2x2 pb=2x2 pe=2x2", "src=2x24x20x20 k=5x5 pb=2x2 pe=2x2 idx=s64",
                                   "src=1x24x16x28 k=3x3 pb=1x1 pe=1x1 idx=s32 axis=1 nan=ignore"}) {
            const std::string line = std::string("maxpool dt=") + dt + " layout=ncx " + window;
            SCOPED_TRACE(line);
            // planes=off: without indices, flat planes would take these f32 planes on both ISAs.
            pj::PlanChoice row_code = pj::test::choice_for(isa());
            row_code.planes = pj::PlanChoice::Switch::off;
            const pj::test::IsaCap cap(jit::to_string(isa()));
            const pj::Primitive p = pj::create(pj::parse_problem(line), row_code);
            jit::PlanOptions rows_options;
            rows_options.choice.planes = pj::PlanChoice::Switch::off;
            EXPECT_EQ(jit::make_plan(p.problem(), jit::Isa::avx512, rows_options).ring_rows > 0,
                      !p.has_indices() || std::string(dt) != "f64");  // f64's indices take 64-bit lanes
            const pj::TensorDesc& d = p.src_desc();
            const std::size_t elem = pj::casegen::byte_size({d.dtype, d.layout, {1, 1, 1, 1}});
            const std::int64_t planes = d.dims[0] * d.dims[1], rows = d.dims[2], width = d.dims[3];
            std::vector<std::uint8_t> src(pj::casegen::byte_size(d));
            std::mt19937_64 rng(static_cast<std::uint64_t>(planes * rows + width));
            for (std::int64_t q = 0; q < planes; ++q) {
                const std::int64_t nan_row = q % 3 == 0 ? static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows)) : -1;
                for (std::int64_t r = 0; r < rows; ++r)
                    for (std::int64_t w = 0; w < width; ++w) {
                        const std::uint64_t roll = rng() % 64;
                        int kind = roll < 60 ? static_cast<int>(roll % 4) : 4;
                        if (r == nan_row && w == static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(width))) kind = 5;
                        const std::uint64_t bits = special_bits(d.dtype, kind);
                        std::memcpy(src.data() + static_cast<std::size_t>((q * rows + r) * width + w) * elem, &bits, elem);
                    }
            }
            EXPECT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa()));
            pj::test::expect_run_matches_reference(p.problem(), src, [&](const void* s_, void* d_, void* i_) { p.execute(s_, d_, i_); },
                                                   jit::to_string(isa()));
        }
    pj::set_num_threads(0);
}

// Column rings, with and without indices: inputs of signed zeros, -1 and the lowest value (ties everywhere: each
// window's first zero in scan order must win, with its own bits and index) and a few 1s, with a NaN in two channel blocks of the first image, so
// the calls of the other images take the ring and the calls holding a NaN run the row code. Compared with the
// reference. (bf16 windows of 5 rows without indices take separable pixels by the rules: the ring by choice.)
TEST_P(JitIsa, ColumnRingNanCallsRunTheRowCodeAndTiesKeepScanOrder) {
    pj::set_num_threads(1);  // every interior run of rows in one call: threads would cut it into bands
    for (const char* dt : {"f32", "f64", "bf16"})
        for (const char* window : {"src=2x96x20x20 k=5x5 pb=2x2 pe=2x2", "src=1x80x16x28 k=3x3 pb=1x1 pe=1x1 nan=ignore",
                                   "src=2x96x20x20 k=5x5 pb=2x2 pe=2x2 idx=s64", "src=2x40x16x28 k=3x3 pb=1x1 pe=1x1 idx=s32 axis=1 nan=ignore"}) {
            const std::string line = std::string("maxpool dt=") + dt + " layout=nxc " + window;
            SCOPED_TRACE(line);
            const bool bf16 = std::string(dt) == "bf16";
            pj::PlanChoice choice = pj::test::choice_for(isa());
            jit::PlanOptions options;
            if (bf16 && std::string(window) == "src=2x96x20x20 k=5x5 pb=2x2 pe=2x2")
                choice.reuse = options.choice.reuse = pj::PlanChoice::Reuse::ring;
            const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
            EXPECT_EQ(jit::make_plan(p.problem(), jit::Isa::avx512, options).ring_rows > 0,
                      !p.has_indices() || bf16);  // indices: beside narrow data only
            const pj::TensorDesc& d = p.src_desc();
            // Image 0: a NaN in the last input row of the first channel block (which only the last k - 1 rows of
            // a call's scan reach) and one in the middle row of the channels past 64 (the next block).
            expect_reference_on(isa(), line, ties_with_two_nans(d));
        }
    pj::set_num_threads(0);
}

// Separable pixels (AVX2's channels-last float rows): ties of signed zeros, -1 and the lowest value with a few 1s
// (the first zero in scan order must win, with its own bits), in planes taller than one pass over the buffers;
// in the first image a NaN in the last input row of the first block (read only by the last group's rows) and
// one in a middle row of the last block, so calls of other blocks and images take the buffers and the calls
// holding a NaN run the row code. Windows: SPPF's shape, a stride 2 along h with a width stride and dilation
// under ceil rounding, a dilation along h (calls of rows 2 apart). Compared with the reference.
TEST_P(JitIsa, SeparablePixelsNanCallsRunTheRowCodeAndTiesKeepScanOrder) {
    pj::set_num_threads(1);  // every interior run of rows in one call: threads would cut it into bands
    for (const char* dt : {"f32", "f64", "bf16"})
        for (const char* window : {"src=2x64x40x50 k=5x5 pb=2x2 pe=2x2", "src=2x32x81x37 k=5x4 s=2x2 d=1x2 pb=2x1 pe=2x2 round=ceil nan=ignore",
                                   "src=1x48x30x60 k=3x3 d=2x1 pb=2x1 pe=2x1"}) {
            const std::string line = std::string("maxpool dt=") + dt + " layout=nxc " + window;
            SCOPED_TRACE(line);
            const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
            const jit::KernelPlan plan = plan_on(jit::Isa::avx2, p.problem());
            EXPECT_TRUE(plan.separable.enabled());
            EXPECT_LT(plan.separable.group_rows, p.problem().out[0]);
            const pj::TensorDesc& d = p.src_desc();
            expect_reference_on(isa(), line, ties_with_two_nans(d));
        }
    pj::set_num_threads(0);
}


// Row chains (KernelPlan::row_chains): items of one or two vectors with 4 width taps or more take each kernel row
// in two chains of maxima, merged in order, in the rows the run-time loop walks (the 49 taps of a 7x7 window) and
// in those the straight-line window code walks (3x5, 2x6, 1x9). Inputs of signed zeros, -1 and the lowest value
// (ties everywhere: each window's first zero in scan order must win, with its own bits), then the same with three
// NaNs (integers: ties of a few values); compared with the reference.
TEST_P(JitIsa, RowChainsKeepTheFirstMaximumOfTies) {
    int chained = 0;
    for (const char* dt : {"f32", "bf16", "f64", "s32", "u8"})
        for (const char* shape : {"layout=nCx16c src=2x40x7x7 k=7x7", "layout=nCx8c src=1x24x9x11 k=3x5 s=2x2 pb=1x2 pe=1x2 round=ceil",
                                  "layout=nxc src=1x16x20x20 k=2x6 s=2x1", "layout=nCx16c src=1x16x6x30 k=1x9 s=1x3"}) {
            const std::string line = std::string("maxpool dt=") + dt + " " + shape;
            SCOPED_TRACE(line);
            if (plan_on(isa(), pj::test::resolve_line(line)).row_chains == 2) ++chained;
            const pj::Primitive q = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
            std::mt19937_64 rng(17);
            const std::string d(dt);
            const bool is_float = d == "f32" || d == "bf16" || d == "f64";
            std::vector<std::uint8_t> src = is_float ? tie_input(q.src_desc(), rng) : integer_ties(q.src_desc(), rng);
            expect_reference_on(isa(), line, src);
            if (!is_float) continue;
            const std::size_t elem = element_bytes(q.src_desc());
            for (int k = 0; k < 3; ++k) {
                const std::uint64_t bits = special_bits(q.src_desc().dtype, 5);
                std::memcpy(src.data() + static_cast<std::size_t>(rng() % (src.size() / elem)) * elem, &bits, elem);
            }
            expect_reference_on(isa(), line, src);
        }
    EXPECT_GT(chained, 8);
}


// Separable pixels' output rows in pairs (paired_output_rows): the maximum of rows 1 .. k - 1 of the first row's
// window taken once, the first row's row merged before it and the second's last row after it; width windows in
// pairs a dilation apart the same way (paired_width_windows: a width dilation of 2 over direct rows, and over
// bf16's padded copy). Ties of signed zeros across rows (image 1; image 0 has NaNs, whose calls run the row
// code); calls whose windows take one row (pads as deep as the kernel, an input of one row), two rows (an input
// of two: no row past the first shared), and groups of an odd number of rows (the last row alone). Integers over
// 1 KiB pixels too. Against the reference.
TEST_P(JitIsa, SeparablePixelRowsInPairsKeepScanOrder) {
    pj::set_num_threads(1);  // every interior run of rows in one call
    for (const char* line : {"maxpool dt=f32 layout=nxc src=2x16x23x20 k=3x3 pb=2x1 pe=2x1",
                             "maxpool dt=bf16 layout=nxc src=2x32x1x20 k=3x3 pb=2x1 pe=2x1",
                             "maxpool dt=f32 layout=nxc src=2x16x2x20 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=f64 layout=nxc src=2x8x61x12 k=5x5 d=2x1 pb=4x2 pe=4x2",
                             "maxpool dt=f32 layout=nxc src=2x16x9x23 k=3x3 d=2x2 pb=2x1 pe=2x2",
                             "maxpool dt=bf16 layout=nxc src=2x16x11x30 k=3x4 d=1x2 pb=1x3 pe=1x3",
                             "maxpool dt=u8 layout=nxc src=1x1024x9x9 k=4x3 pb=1x1 pe=2x1"}) {
        SCOPED_TRACE(line);
        const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
        const jit::KernelPlan plan = plan_on(jit::Isa::avx2, p.problem());
        EXPECT_TRUE(plan.separable.paired_output_rows);
        const pj::TensorDesc& d = p.src_desc();
        std::mt19937_64 rng(11);
        expect_reference_on(isa(), line, d.dtype == pj::DType::u8 ? integer_ties(d, rng) : ties_with_two_nans(d));
    }
    pj::set_num_threads(0);
}

// Separable pixels' direct rows (no padded copy): a row maximum is NaN exactly where its first tap is, and the
// positions no output reads first are watched one by one. One NaN at each width position of one input row in
// turn, in the first channel block or the last, over windows with border runs at both ends, a dilation (its
// first taps skip positions at the ends), pads as deep as the kernel along the width (windows wholly in the
// padding), both NaN policies: every call that reads the NaN goes to the row code, as the reference says.
TEST_P(JitIsa, SeparablePixelDirectRowsSeeANanAtEveryPosition) {
    pj::set_num_threads(1);
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x32x7x13 k=3x5 pb=1x2 pe=1x2",
                             "maxpool dt=f32 layout=nxc src=1x32x9x12 k=3x3 d=2x2 pb=2x1 pe=2x1 nan=ignore",
                             "maxpool dt=f64 layout=nxc src=1x16x6x9 k=3x4 pb=1x4 pe=1x4",
                             "maxpool dt=bf16 layout=nxc src=1x32x7x13 k=3x3 d=1x2 pb=1x2 pe=1x2",
                             "maxpool dt=f32 layout=nxc src=1x16x8x14 k=3x5 d=1x3 pb=1x5 pe=1x2 round=ceil"}) {
        SCOPED_TRACE(line);
        const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
        const jit::KernelPlan plan = plan_on(jit::Isa::avx2, p.problem());
        EXPECT_TRUE(plan.separable.direct_rows);
        const pj::TensorDesc& d = p.src_desc();
        const std::size_t elem = element_bytes(d);
        const std::int64_t C = d.dims[1], H = d.dims[2], W = d.dims[3];
        std::mt19937_64 rng(3);
        const std::vector<std::uint8_t> ties = tie_input(d, rng);
        for (const std::int64_t channel : {std::int64_t{2}, C - 1})
            for (std::int64_t x = 0; x < W; ++x) {
                SCOPED_TRACE("NaN at channel " + std::to_string(channel) + ", position " + std::to_string(x));
                std::vector<std::uint8_t> src = ties;
                const std::uint64_t nan = special_bits(d.dtype, 5);
                std::memcpy(src.data() + static_cast<std::size_t>(((H / 2) * W + x) * C + channel) * elem, &nan, elem);
                expect_reference_on(isa(), line, src);
                if (HasFailure()) break;
            }
    }
    pj::set_num_threads(0);
}

// Separable pixels with indices (AVX2's channels-last rows bound by compares, 32-bit lanes): each lane's index
// rides beside its maximum through the padded row and the rows of maxima. Float input of ties (signed zeros,
// -1, -inf: a window that starts in the padding and whose real taps are all -inf must take its first real
// tap's index), NaNs in the first image (their calls run the row code); integer input of mostly the lowest
// value (the same for padded windows). Windows: SPP k9 (width windows in pairs) with column-major indices,
// SPPF's with axis 2, a stride 2 with ceil rounding (windows past the padded row), a dilation along h, pads
// as deep as the kernel along h (rows without a real tap), nan=ignore. Compared with the reference.
TEST_P(JitIsa, SeparablePixelIndicesKeepEachWindowsFirstMaximum) {
    pj::set_num_threads(1);  // every interior run of rows in one call: threads would cut it into bands
    for (const char* line : {"maxpool dt=f32 layout=nxc src=2x16x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64 order=col",
                             "maxpool dt=bf16 layout=nxc src=2x32x20x20 k=5x5 pb=2x2 pe=2x2 idx=s32 axis=2",
                             "maxpool dt=u8 layout=nxc src=1x16x21x15 k=5x4 s=2x2 pb=2x1 pe=2x2 round=ceil idx=s64",
                             "maxpool dt=s8 layout=nxc src=1x16x30x20 k=3x3 d=2x1 pb=2x1 pe=2x1 idx=s32",
                             "maxpool dt=s32 layout=nxc src=1x8x9x8 k=3x3 pb=3x1 pe=3x1 idx=s64",
                             "maxpool dt=f32 layout=nxc src=2x16x13x11 k=4x4 pb=1x2 pe=2x1 nan=ignore idx=s32",
                             "maxpool dt=f16 layout=nxc src=2x32x20x20 k=5x5 pb=2x2 pe=2x2 idx=s32"}) {
        SCOPED_TRACE(line);
        const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
        const jit::KernelPlan plan = plan_on(jit::Isa::avx2, p.problem());
        EXPECT_TRUE(plan.separable.enabled());
        const pj::TensorDesc& d = p.src_desc();
        std::mt19937_64 rng(7);
        const bool is_float = d.dtype == pj::DType::f32 || d.dtype == pj::DType::bf16 || d.dtype == pj::DType::f16;
        expect_reference_on(isa(), line, is_float ? ties_with_two_nans(d) : integer_ties(d, rng));
    }
    // A 3x3 block of NaNs in channel 3 under nan=ignore: the window over it is empty (index -1), which the row
    // code stores into s32 indices with the -1 constant that the separable code's maxima in flight took
    // (reloaded on leaving: a build without the reload fails here).
    const std::string line = "maxpool dt=f32 layout=nxc src=1x16x12x12 k=3x3 pb=1x1 pe=1x1 nan=ignore idx=s32";
    const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
    EXPECT_TRUE(plan_on(jit::Isa::avx2, p.problem()).separable.enabled());
    const pj::TensorDesc& d = p.src_desc();
    std::mt19937_64 rng(3);
    std::vector<std::uint8_t> src = tie_input(d, rng);
    for (const std::int64_t h : {5, 6, 7})
        for (const std::int64_t w : {5, 6, 7}) {
            const float nan = std::numeric_limits<float>::quiet_NaN();
            std::memcpy(src.data() + static_cast<std::size_t>((h * 12 + w) * 16 + 3) * sizeof(float), &nan, sizeof(float));
        }
    expect_reference_on(isa(), line, src);
    pj::set_num_threads(0);
}

// Runs `body` on a thread of its own whose stack is `stack_bytes` (glibc's default is 8 MiB).
template <typename Body>
void run_on_stack_of(std::size_t stack_bytes, Body body) {
    pthread_attr_t attr;
    ASSERT_EQ(pthread_attr_init(&attr), 0);
    ASSERT_EQ(pthread_attr_setstacksize(&attr, stack_bytes), 0);
    pthread_t thread;
    const auto start = [](void* arg) -> void* {
        (*static_cast<Body*>(arg))();
        return nullptr;
    };
    ASSERT_EQ(pthread_create(&thread, &attr, start, &body), 0);
    ASSERT_EQ(pthread_join(thread, nullptr), 0);
    pthread_attr_destroy(&attr);
}

// The README's promise: kernels fit a thread stack of 128 KiB. The largest frames are channels-last separable
// buffers (64 KiB of them for values, 48 KiB with indices in ymm pixels, 96 KiB in zmm ones), run here on such a
// thread with one pooljit thread (execute calls the kernel on the caller's thread) and compared with the
// reference. (planes=off: the rules give the planar SPP's planes to flat planes, whose buffer is 8 KiB.)
TEST_P(JitIsa, SeparableBuffersFitAThreadStackOf128KiB) {
    pj::set_num_threads(1);
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4",
                             "maxpool dt=f32 layout=nxc src=1x64x40x40 k=9x9 pb=4x4 pe=4x4 idx=s32",
                             "maxpool dt=f32 layout=ncx src=1x8x40x40 k=9x9 pb=4x4 pe=4x4"}) {
        SCOPED_TRACE(line);
        const pj::test::IsaCap cap(jit::to_string(isa()));
        pj::PlanChoice buffers = pj::test::choice_for(isa());
        buffers.planes = pj::PlanChoice::Switch::off;
        const pj::Primitive p = pj::create(pj::parse_problem(line), buffers);
        jit::PlanOptions options;
        options.choice.planes = pj::PlanChoice::Switch::off;
        EXPECT_TRUE(jit::make_plan(p.problem(), jit::Isa::avx2, options).separable.enabled());
        std::mt19937_64 rng(11);
        pj::test::expect_run_matches_reference(
            p.problem(), tie_input(p.src_desc(), rng),
            [&](const void* s, void* d, void* i) { run_on_stack_of(128 * 1024, [&] { p.execute(s, d, i); }); },
            jit::to_string(isa()));
    }
    pj::set_num_threads(0);
}

// Watched rows and tap passes (channels last, bound by memory): ties of signed zeros, -1 and the lowest value
// with a few 1s (the first zero in scan order must win, with its own bits), and in the first image a NaN in
// the row's last loaded element (its last channel at its last pixel, the watch's final vector) and one in a
// middle block, so rows of the fast copy and rows rerun by the exact copy alternate within a call. Windows:
// the stem's shape (watch only), a global pool over 600 channels and a 2-D window of 11 width taps (passes of 8
// and 3), 3-D passes, with and without indices (passes beside 32-bit compare lanes: not f64), and f16.
// Compared with the reference.
TEST_P(JitIsa, WatchedRowsRerunExactAndTapPassesKeepScanOrder) {
    struct Case {
        const char* window;
        bool passes;
        bool indices;
    };
    for (const char* dt : {"f32", "f64", "bf16", "f16"})
        for (const Case& c : {Case{"src=2x24x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1", false, false},
                              Case{"src=2x600x7x7 k=7x7", true, false},
                              Case{"src=2x520x4x40 k=2x11 s=2x5 pb=0x4 pe=1x6 nan=ignore", true, false},
                              Case{"src=1x520x3x4x9 k=2x3x5 s=2x2x4 pb=0x1x1 pe=1x1x1", true, false},
                              Case{"src=2x600x7x7 k=7x7 idx=s64", true, true},
                              Case{"src=2x520x4x40 k=2x11 s=2x5 pb=0x4 pe=1x6 idx=s32 nan=ignore", true, true},
                              Case{"src=1x520x3x4x9 k=2x3x5 s=2x2x4 pb=0x1x1 pe=1x1x1 idx=s64", true, true},
                              Case{"src=2x40x5x30 k=2x3 s=2x2 idx=s32 nan=ignore", false, true}}) {
            const std::string line = std::string("maxpool dt=") + dt + " layout=nxc " + c.window;
            SCOPED_TRACE(line);
            const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
            const bool passes = c.passes && !(c.indices && std::string_view(dt) == "f64");
            for (const jit::Isa planned : {jit::Isa::avx512, jit::Isa::avx2}) {
                const jit::KernelPlan plan = plan_on(planned, p.problem());
                EXPECT_TRUE(plan.watch_rows_for_nan) << jit::to_string(planned);
                EXPECT_EQ(plan.tap_pass_taps > 0, passes) << jit::to_string(planned);
            }
            const pj::TensorDesc& d = p.src_desc();
            const std::size_t elem = element_bytes(d), elements = pj::casegen::byte_size(d) / elem;
            std::mt19937_64 rng(elements);
            std::vector<std::uint8_t> src = tie_input(d, rng);
            const std::size_t image = elements / static_cast<std::size_t>(d.dims[0]);
            const std::size_t C = static_cast<std::size_t>(d.dims[1]);
            for (const std::size_t e : {image - 1, image / 2 + C / 2}) {
                const std::uint64_t bits = special_bits(d.dtype, 5);
                std::memcpy(src.data() + e * elem, &bits, elem);
            }
            expect_reference_on(isa(), line, src);
        }
}

// Separable pixels chosen (reuse=separable, as the tuner tries) for windows whose wide pixels the rules sweep in
// tap passes: the pixels' calls hold one block, so no tap pass is left in the plan, and the frame holds the pixels'
// buffers (a frame sized for the passes' index lanes once let the buffers overwrite the return address). With
// indices (the passes' buffer) and without; compared with the reference on tie and adversarial data.
TEST_P(JitIsa, SeparablePixelsChosenOverTapPassesMatchTheReference) {
    if (isa() != jit::Isa::avx2) GTEST_SKIP() << "separable pixels with indices are planned for the AVX2 form here";
    pj::PlanChoice choice = pj::test::choice_for(isa());
    choice.reuse = pj::PlanChoice::Reuse::separable;
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x512x28x28 k=5x5 s=4x4 idx=s32",
                             "maxpool dt=f32 layout=nxc src=1x512x28x28 k=5x5 s=3x3 idx=s64",
                             "maxpool dt=f32 layout=nxc src=1x1024x20x20 k=5x5 s=3x3 idx=s32",
                             "maxpool dt=f32 layout=nxc src=1x1024x20x20 k=5x5 s=3x3"}) {
        SCOPED_TRACE(line);
        const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
        const jit::KernelPlan plan = plan_on(jit::Isa::avx2, p.problem());
        EXPECT_GT(plan.tap_pass_taps, 0);  // the rules' plan sweeps the pixels in passes
        jit::PlanOptions forced;
        forced.choice = choice;
        const jit::KernelPlan chosen = jit::make_plan(p.problem(), jit::Isa::avx2, forced);
        EXPECT_TRUE(chosen.separable.enabled());
        EXPECT_EQ(chosen.tap_pass_taps, 0);
        pj::test::expect_matches_reference_on_both_data_kinds(
            p.problem(), line, [&](const void* s, void* d, void* i) { p.execute(s, d, i); });
    }
}

// A shared watch adds each input element to the watch at the first tap of the call that loads it: the row's
// first output and the call's first row (through a scan of its shared rows) watch all of theirs, later ones
// only what the output (row) before did not load. So one NaN at each input position in turn, of a channel that
// varies with the position (every block, the tail), on tie data: the row that reads it, and every later row of
// the call, must run the exact copy. Windows 3 wide at stride 2 and 5 at stride 3, dilation 2, ceil rounding (the first
// segment's first output peeled from its loop), 1-D and 2-D rows computed in pieces for threads, indices and
// nan=ignore; compared with the reference, values and indices.
TEST_P(JitIsa, SharedWatchSeesANanAtEveryInputPosition) {
    struct Case {
        const char* window;
        std::int64_t rows_h, taps_w;  // the plan's watch_shared_rows_h and watch_shared_taps_w
        bool pieces;
    };
    for (const char* dt : {"f32", "f64", "bf16", "f16"})
        for (const Case& c : {Case{"src=1x40x7x9 k=3x3 s=2x2 pb=1x1 pe=1x1", 1, 1, false},
                              Case{"src=1x32x9x8 k=3x3 s=2x2 round=ceil_torch idx=s64", 1, 1, false},
                              Case{"src=1x16x11x11 k=5x5 s=3x3 pb=2x2 pe=2x2 nan=ignore", 2, 2, false},
                              Case{"src=1x24x8x11 k=3x3 s=2x2 d=2x2 pb=2x2 pe=2x2", 2, 2, false},
                              Case{"src=1x24x150 k=3 s=2 idx=s32", 0, 1, true},
                              Case{"src=1x16x7x150 k=3x3 s=2x2 pb=1x1 pe=1x1", 1, 1, true}}) {
            const std::string line = std::string("maxpool dt=") + dt + " layout=nxc " + c.window;
            SCOPED_TRACE(line);
            const pj::Problem problem = pj::test::resolve_line(line);
            for (const jit::Isa planned : {jit::Isa::avx512, jit::Isa::avx2}) {
                const jit::KernelPlan plan = plan_on(planned, problem);
                EXPECT_TRUE(plan.watch_rows_for_nan) << jit::to_string(planned);
                EXPECT_EQ(plan.watch_shared_rows_h, c.rows_h) << jit::to_string(planned);
                EXPECT_EQ(plan.watch_shared_taps_w, c.taps_w) << jit::to_string(planned);
                EXPECT_EQ(plan.width_ranges, c.pieces) << jit::to_string(planned);
            }
            const pj::TensorDesc& d = problem.src_desc();
            const std::size_t elem = element_bytes(d), elements = pj::casegen::byte_size(d) / elem;
            const std::size_t C = static_cast<std::size_t>(d.dims[1]), positions = elements / C;
            std::mt19937_64 rng(elements);
            const std::vector<std::uint8_t> ties = tie_input(d, rng);
            const std::uint64_t nan = special_bits(d.dtype, 5);
            for (std::size_t position = 0; position < positions; ++position) {
                std::vector<std::uint8_t> src = ties;
                std::memcpy(src.data() + (position * C + (position * 7) % C) * elem, &nan, elem);
                SCOPED_TRACE("NaN at position " + std::to_string(position));
                expect_reference_on(isa(), line, src);
                if (c.pieces && position % 9 == 0) {
                    const std::shared_ptr<const pj::detail::Implementation> impl = pj::detail::choose_implementation(problem, isa(), pj::test::choice_for(isa()));
                    pj::test::expect_run_matches_reference(problem, src, [&](const void* s, void* dst, void* i) {
                        pj::execute_problem_split(problem, *impl, s, dst, i, 5, true);
                    }, "5 pieces");
                }
                if (::testing::Test::HasFailure()) return;
            }
        }
}

// Planes in registers: every plane mixes signed zeros, -1 and the lowest value (ties inside each window: its
// first zero in scan order must win, with its own bits) with a few 1s, and every third plane holds one NaN, so
// one call runs planes through the fast gathers and the exact ones in turn (under nan=ignore the NaN's windows
// take the rest of their elements). Compared with the reference, values and indices.
TEST_P(JitIsa, PlanesNanPlanesRunTheExactGathersAndTiesKeepScanOrder) {
    for (const char* dt : {"f32", "f64", "bf16", "s8"})
        for (const char* window : {"maxpool layout=ncx src=2x24x14x14 k=2x2 s=2x2 idx=s64",
                                   "maxpool layout=ncx src=1x24x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil idx=s32 nan=ignore",
                                   "adaptivemaxpool layout=ncx src=1x24x13x13 out=6x6 idx=s64",
                                   "maxpool layout=ncx src=1x24x7x7 k=3x3 s=2x2 pb=1x1 pe=1x1"}) {
            const std::string line = with_dtype(window, dt);
            SCOPED_TRACE(line);
            const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
            const pj::TensorDesc& d = p.src_desc();
            const bool is_float = d.dtype != pj::DType::s8;
            const std::size_t elem = pj::casegen::byte_size({d.dtype, d.layout, {1, 1, 1, 1}});
            const std::int64_t planes = d.dims[0] * d.dims[1], plane = d.dims[2] * d.dims[3];
            std::vector<std::uint8_t> src(pj::casegen::byte_size(d));
            std::mt19937_64 rng(static_cast<std::uint64_t>(planes * plane));
            for (std::int64_t q = 0; q < planes; ++q) {
                const std::int64_t nan_at = q % 3 == 0 ? static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(plane)) : -1;
                for (std::int64_t i = 0; i < plane; ++i) {
                    const std::uint64_t roll = rng() % 64;
                    const int kind = i == nan_at && is_float ? 5 : roll < 60 ? static_cast<int>(roll % 4) : 4;
                    // s8: the lowest value, -1, 0 twice over and 1 (ties of equal values, no signed zero).
                    const std::uint64_t bits = is_float ? special_bits(d.dtype, kind)
                                                        : std::array<std::uint64_t, 5>{0x80, 0xFF, 0, 0, 1}[kind];
                    std::memcpy(src.data() + static_cast<std::size_t>(q * plane + i) * elem, &bits, elem);
                }
            }
            expect_reference_on(isa(), line, src);
        }
}

// The line in batches of 1 and 13 on 1, 2 and 7 threads through the public API (which runs problems this small
// on one thread), and split as the executor splits it for 2 and 7 threads however small it is.
void check_batches_and_threads(const std::string& line, jit::Isa isa) {
    for (const std::int64_t batch : {1, 13})
        for (const int threads : {1, 2, 7}) {
            pj::test::check_created(with_batch(line, batch), isa, threads);
            if (threads > 1) check_split(with_batch(line, batch), isa, threads);
        }
}

// Channels-last rows of one image in few channel blocks, split along the width into pieces of about equal
// outputs (2 to 28 of them, uneven): borders on both sides, a NaN scan clipped to each piece's windows (k4 and
// k5 at stride 1), dilation, ceil rounding, empty windows at the row's ends and whole empty rows (2-D, rows in
// the padding), channel tails and swept blocks, indices; every data type.
TEST_P(JitIsa, RowsSplitAlongTheWidthMatchTheReference) {
    const std::vector<std::string> rows = {
        "maxpool layout=nxc src=1x20x300 k=3 s=2 pb=1 pe=1 idx=s64",
        "maxpool layout=nxc src=1x70x200 k=5 s=1 pb=2 pe=2 nan=ignore idx=s32",
        "maxpool layout=nxc src=1x300x257 k=3 s=2 d=2 round=ceil",
        "maxpool layout=nxc src=1x256x1000 k=3 s=2",
        "maxpool layout=nxc src=1x9x200 k=2 s=3 pb=3 pe=3 round=ceil idx=s64 axis=1",
        "maxpool layout=nxc src=1x16x2x200 k=2x3 s=3x1 pb=2x1 pe=2x1 round=ceil idx=s64",
        "maxpool layout=nxc src=1x8x150 k=4 s=1 pb=1 pe=2 idx=s64",
    };
    for (const std::string& shape : rows) {
        EXPECT_TRUE(plan_on(isa(), pj::test::resolve_line(shape)).width_ranges) << shape;
        for (const char* dt : dtypes)
            for (const int threads : {2, 3, 7}) check_split(with_dtype(shape, dt), isa(), threads);
    }
}

// Planar tiles of several output rows: their calls are made once at creation (Implementation::tile_calls), for
// any batch size, and together cover every output row of a tile once (rows two apart for rings and separable
// rows, 3-D planes, runs of equal windows, adaptive bins); channels last and tiles of more calls than the cap
// (outer axes beyond the per-row tables) make each call themselves. Running them is what every planar test does.
TEST_P(JitIsa, PlanarTileCallsAreMadeOnceAndCoverEveryRow) {
    for (const char* line : {"maxpool dt=f32 layout=ncx src=1x4x13x13 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=f32 layout=ncx src=0x4x13x13 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=f32 layout=ncx src=2x3x20x24 k=3x3 d=2x2 pb=2x2 pe=2x2 idx=s64",
                             "maxpool dt=u8 layout=ncx src=1x2x5x9x11 k=2x3x3 s=1x2x2 pb=0x1x1 pe=1x1x1",
                             "adaptivemaxpool dt=bf16 layout=ncx src=1x5x13x13 out=2x2 idx=s32"}) {
        SCOPED_TRACE(line);
        const pj::Problem p = pj::test::resolve_line(line);
        const auto impl = pj::detail::choose_implementation(p, isa(), pj::test::choice_for(isa()));
        ASSERT_TRUE(impl->kernel);
        if (impl->plan.strategy != jit::Strategy::ncx_width || impl->plan.stacked_planes) continue;
        ASSERT_FALSE(impl->tile_calls.empty()) << jit::to_string(impl->plan);
        std::int64_t rows = 0;
        for (const pj::detail::TileCall& call : impl->tile_calls) {
            rows += call.args.rows;
            EXPECT_EQ(call.args.src, nullptr);
            EXPECT_GE(call.src_offset, 0);
        }
        const std::int64_t out_rows = p.spatial_rank == 3 ? p.out[0] * p.out[1] : p.out[0];
        EXPECT_EQ(rows, out_rows);
        check_split(line, isa(), 1);
    }
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x4x13x13 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=f32 layout=ncx src=1x1x70000x3 k=2x3"}) {
        SCOPED_TRACE(line);
        EXPECT_TRUE(pj::detail::choose_implementation(pj::test::resolve_line(line), isa(), pj::test::choice_for(isa()))->tile_calls.empty());
    }
}

// Swept calls (channels last, several channel blocks a call) of an image with fewer calls, rows and pieces
// than threads: the executor shortens the sweeps, one call per thread, the last sweep shorter where the
// threads do not divide the blocks (KernelArgs::sweep_blocks below the plan's channel_sweep). Global pools
// (tap passes, or blocks with indices), windows of a few outputs, 3-D, adaptive bins, channel tails, both NaN
// policies; every data type, split for 2, 3, 7 and 16 threads, on adversarial and tie data.
TEST_P(JitIsa, SweepsShortenedForThreadsMatchTheReference) {
    const std::vector<std::string> shapes = {
        "maxpool layout=nxc src=1x1000x64 k=64",
        "maxpool layout=nxc src=1x1000x40 k=20 s=20 nan=ignore",
        "maxpool layout=nxc src=1x520x5x5 k=5x5 idx=s64",
        "maxpool layout=nxc src=1x600x3x10 k=3x4 s=3x4 pb=0x1 pe=0x1 idx=s32 axis=1",
        "maxpool layout=nxc src=1x300x2x3x3 k=2x3x3 idx=s64 axis=2",
        "adaptivemaxpool layout=nxc src=1x700x5x6 out=1x1 idx=s64",
    };
    for (const std::string& shape : shapes)
        for (const char* dt : dtypes) {
            const std::string line = with_dtype(shape, dt);
            const jit::KernelPlan plan = plan_on(isa(), pj::test::resolve_line(line));
            EXPECT_TRUE(plan.channel_sweep > 1 && plan.sweep_splits) << line << ": sweep " << plan.channel_sweep;
            for (const int threads : {2, 3, 7, 16}) check_split(line, isa(), threads);
        }
}

// Channels split into equal blocks in place of full blocks and a tail (rows bound by memory): every block a
// partial last vector, the sweep across them, results as the reference's on 1 and 3 threads.
TEST_P(JitIsa, BalancedChannelBlocksMatchTheReference) {
    const std::vector<std::string> shapes = {
        "maxpool layout=nxc src=2x120x9x10 k=2x2 s=2x2",
        "maxpool layout=nxc src=1x120x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 nan=ignore",
        "maxpool layout=nxc src=1x120x7x7 k=3x3 s=2x2 round=ceil_torch",
    };
    int balanced = 0;
    for (const std::string& shape : shapes)
        for (const char* dt : dtypes) {
            const std::string line = with_dtype(shape, dt);
            const jit::KernelPlan plan = plan_on(isa(), pj::test::resolve_line(line));
            if (plan.channel_tail == 0 && plan.channel_block == 60) ++balanced;
            for (const int threads : {1, 3}) check_split(line, isa(), threads);
        }
    EXPECT_GT(balanced, 0) << "no shape took balanced blocks on " << jit::to_string(isa());
}

// The executor's tilings: whole tiles, rows split because there are few tiles (of one channel block, or of every
// block of an image together), one thread, planes or runs of rows per kernel call; results identical. Problems
// this small run on one thread through the public API (too few bytes to wake a second), so each is also run
// split for the threads as if it were large.
TEST_P(JitIsa, ThreadsAndBatchSizesGiveIdenticalResults) {
    const std::vector<std::string> lines = {
        "maxpool dt=f32 layout=nxc src=1x70x33x17 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64",
        "maxpool dt=u8 layout=ncx src=1x5x5x9x21 k=2x3x3 s=1x2x2 idx=s32",
        "adaptivemaxpool dt=bf16 layout=nxc src=1x40x23x29 out=5x6 idx=s64",
        // one output row per plane: several planes per kernel call, channel index bases stepping per plane
        "maxpool dt=f32 layout=ncx src=1x37x5x6 k=5x6 idx=s64 axis=1",
        "maxpool dt=s8 layout=ncx src=1x37x5x6 k=5x6 idx=s32 axis=0",
        // rings in bands of rows: planar rows two apart (dilation 2), channels-last columns (two blocks)
        "maxpool dt=f32 layout=ncx src=1x3x20x24 k=3x3 d=2x2 pb=2x2 pe=2x2",
        "maxpool dt=bf16 layout=nxc src=1x70x20x20 k=5x5 pb=2x2 pe=2x2",
    };
    for (const std::string& line : lines) check_batches_and_threads(line, isa());
}

// Planes that stack go to the kernel an image's consecutive planes to a call, their rows one run: VGG's k2 s2
// on even planes, a window of the whole plane's height (one output row a plane), a dilated window that steps
// through the plane, an adaptive pool of equal bins, with indices numbered across the image's planes (axis 0
// and 1); each on one thread and split for 2 and 7 (calls that start and end inside an image), in batches of
// 1 and 13, in every data type, on adversarial and tie data. Windows that do not step through whole planes
// (a row left over, padding) and indices numbered per plane are planned apart.
TEST_P(JitIsa, StackedPlanesGoToTheKernelAnImageAtATime) {
    const std::vector<std::string> stacked = {
        "maxpool layout=ncx src=1x37x8x10 k=2x2 s=2x2", "maxpool layout=ncx src=1x37x8x10 k=2x2 s=2x2 idx=s64 axis=1",
        "maxpool layout=ncx src=1x9x6x20 k=6x3 s=1x2 idx=s32", "maxpool layout=ncx src=1x9x12x9 k=2x3 s=3x3 d=2x1 idx=s64",
        "adaptivemaxpool layout=ncx src=1x21x12x17 out=4x5",
        // u8 and s8 on AVX2: byte pairs, the rows before a call's last reaching into the next rows
        "maxpool layout=ncx src=1x37x14x14 k=2x2 s=2x2",
    };
    for (const std::string& shape : stacked) {
        // AVX-512 holds most of these small planes in registers: whole planes a call already.
        const jit::KernelPlan plan = plan_on(isa(), pj::test::resolve_line(shape));
        EXPECT_TRUE(plan.stacked_planes || (isa() == jit::Isa::avx512 && plan.strategy == jit::Strategy::ncx_planes)) << shape;
        EXPECT_TRUE(plan_on(jit::Isa::avx2, pj::test::resolve_line(shape)).stacked_planes) << shape;
        for (const char* dt : dtypes) check_batches_and_threads(with_dtype(shape, dt), isa());
    }
    for (const char* apart : {"maxpool dt=f32 layout=ncx src=1x8x9x10 k=2x2 s=2x2", "maxpool dt=f32 layout=ncx src=1x8x8x10 k=2x2 s=2x2 pb=1x0 pe=1x0",
                              "maxpool dt=f32 layout=ncx src=1x8x8x10 k=2x2 s=2x2 idx=s64 axis=2",
                              "maxpool dt=f32 layout=ncx src=1x8x8x10 k=2x2 s=2x2 idx=s64 order=col",
                              "maxpool dt=f32 layout=nxc src=1x8x8x10 k=2x2 s=2x2", "maxpool dt=f32 layout=ncx src=1x8x4x8x10 k=2x2x2 s=2x2x2"})
        EXPECT_FALSE(plan_on(isa(), pj::test::resolve_line(apart)).stacked_planes) << apart;
}

// bf16 items of consecutive lanes load two vectors at a time, split into even and odd elements
// (plan.widened_pairs): channels last with channel tails that leave a pair of 9 to 15 elements, blocks swept
// and not, ceil rounding and padding; planar rows of 9 to 16 outputs and long 1-D rows; both NaN policies;
// on adversarial data (NaN rows run the exact copy) and tie data (signed zeros: the first must win).
TEST_P(JitIsa, WidenedPairsMatchTheReference) {
    check_avx2_strategy_lines(isa(),
                              {"maxpool dt=bf16 layout=nxc src=2x25x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1",
                               "maxpool dt=bf16 layout=nxc src=1x31x13x13 k=3x3 s=2x2 round=ceil_torch nan=ignore",
                               "maxpool dt=bf16 layout=nxc src=1x16x8x8 k=2x2 s=2x2",
                               "maxpool dt=bf16 layout=nxc src=1x200x6x7 k=2x3 s=2x2 pb=0x1 pe=0x1",
                               "maxpool dt=bf16 layout=ncx src=1x5x9x27 k=1x3 s=1x2 pb=0x1 pe=0x1",
                               "maxpool dt=bf16 layout=ncx src=2x3x4x11 k=1x2 nan=ignore",
                               "maxpool dt=bf16 layout=ncx src=1x3x301 k=3 pb=1 pe=1",
                               "adaptivemaxpool dt=bf16 layout=nxc src=1x27x13x13 out=5x5"},
                              [](const jit::KernelPlan& plan) { return plan.widened_pairs; });
}

// Planar lanes at stride 2 merge two neighbouring width taps from one pair of loads (plan.paired_tap_loads):
// windows of 2 to 5 width taps (pairs and a single last tap), rows whose last item holds 1 to 16 outputs, the
// first and last windows in the padding, ceil rounding, 1-D to 3-D, adaptive bins, 64-bit lanes, both NaN
// policies, bf16's whole-dword pairs; on adversarial data (NaN rows run the exact copy) and tie data (signed
// zeros: the first must win, so tap t + 1's odd elements must merge after tap t's even ones).
TEST_P(JitIsa, PairedTapLoadsMatchTheReference) {
    check_avx2_strategy_lines(isa(),
                              {"maxpool dt=f32 layout=ncx src=2x3x10x37 k=2x2 s=2x2",
                               "maxpool dt=f32 layout=ncx src=1x2x9x64 k=2x2 s=2x2 nan=ignore",
                               "maxpool dt=f32 layout=ncx src=1x2x3x9x45 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1 round=ceil",
                               "maxpool dt=f32 layout=ncx src=1x3x70 k=5 s=2 pb=2 pe=2",
                               "maxpool dt=s32 layout=ncx src=1x2x7x70 k=2x4 s=2x2 pb=0x1 pe=0x2",
                               "maxpool dt=f64 layout=ncx src=1x3x41 k=3 s=2 pb=1 pe=1 round=ceil",
                               "maxpool dt=f64 layout=ncx src=1x2x6x33 k=2x2 s=2x2 nan=ignore",
                               "maxpool dt=s64 layout=ncx src=1x2x4x5x36 k=2x2x2 s=2x2x2",
                               "adaptivemaxpool dt=f32 layout=ncx src=1x3x8x50 out=4x25",
                               "maxpool dt=bf16 layout=ncx src=2x3x10x37 k=2x2 s=2x2",
                               "maxpool dt=bf16 layout=ncx src=1x2x9x64 k=2x2 s=2x2 nan=ignore",
                               "maxpool dt=bf16 layout=ncx src=1x3x70 k=5 s=2 pb=2 pe=2",
                               "maxpool dt=bf16 layout=ncx src=1x2x3x9x45 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1 round=ceil",
                               "adaptivemaxpool dt=bf16 layout=ncx src=1x3x8x50 out=4x25"},
                              [](const jit::KernelPlan& plan) { return plan.paired_tap_loads; });
}

// A source whose rows alias (a 0 stride along h) steps its calls' rows by 0 bytes whatever rows they are: the
// separable pixels with indices must not take rows whose windows start on the same input row for rows one tap
// apart (the index of a tie between aliased rows is the first row's).
TEST_P(JitIsa, AliasedSourceRowsKeepTheFirstRowsIndex) {
    for (const char* line : {"maxpool dt=s32 layout=nCx8c src=1x8x2x1 k=4x1 pb=1x0 pe=2x0 idx=s64 src_strides=1344x448x0x8",
                             "maxpool dt=s32 layout=nCx8c src=1x16x4x6 k=6x5 s=1x2 pad=same_upper round=ceil idx=s32 src_strides=1344x448x0x8",
                             "maxpool dt=f32 layout=nxc src=1x16x7x9 k=3x3 pb=1x1 pe=1x1 idx=s32 src_strides=144x1x0x16"})
        for (const int threads : {1, 3}) check_split(line, isa(), threads);
}

// The casegen generator's problems (the differential test's), each split as the executor splits it for 2, 3 or 7
// threads however small it is (bands of rows, rows of every channel block, width pieces, rings' residues): the
// public API runs problems this small on one thread.
TEST_P(JitIsa, GeneratedProblemsSplitForThreadsMatchTheReference) {
    pj::casegen::Generator gen(isa() == jit::Isa::avx512 ? 0x5B117001 : 0x5B117002);
    for (int i = 0; i < 1000; ++i) {
        const std::string line = pj::to_string(gen.any());
        check_split(line, isa(), std::array{2, 3, 7}[static_cast<std::size_t>(i % 3)]);
        if (HasFailure()) return;
    }
}

INSTANTIATE_TEST_SUITE_P(Isas, JitIsa, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const auto& isa_info) { return std::string(jit::to_string(isa_info.param)); });

}  // namespace
