// Byte bands in the AVX2 form (jit/plan/plan_bands.cpp, jit/emit/emit_byte_shuffle_bands.cpp): 32 byte lanes a
// band, each width tap gathered by in-lane byte shuffles. The plan's chunks and runs worked out by hand from the
// window definition, what the AVX2 form declines, and the code against the reference on tie data, the lowest value
// and random bytes on every core with AVX2: planes that hold under two vectors (every load of a straight-line band
// moved inside the plane), each store size from 1 to 32 bytes, row pitches in the source and the output.
#include "jit/isa/isa.hpp"
#include "jit/plan/strategies.hpp"
#include "support/byte_band_windows.hpp"
#include "support/cpu_isas.hpp"
#include "support/guarded_buffer.hpp"
#include "support/plan_util.hpp"
#include "support/tie_data.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::testing::plan_of;

jit::PlanOptions bands_on() {
    jit::PlanOptions options;
    options.choice.bands = pj::PlanChoice::Switch::on;
    return options;
}

// The AVX2 form's bands: 32 lanes (support/byte_band_windows.hpp).
void expect_lanes_read_their_windows(const jit::KernelPlan& plan, std::int64_t sw, std::int64_t dw, std::int64_t pw) {
    pj::test::expect_bands_read_the_windows(plan, 32, sw, dw, pw);
}

// The stem (112x112, k3 s2 p1) on AVX2: rows of 56 outputs in chunks of 32 (columns 0-63, two registers) and 24
// (columns 63-111: 49 bytes, two registers); band 0 reads row -1 (its loads moved), bands 1-54 lie inside (the last
// one's chunk 1 reads rows 107-109 up to byte 109 x 112 + 63 + 64 = 12335 of 12544), band 55's rows reach row 112.
// GoogLeNet (28x28, k3 s2 ceil_torch): 14 outputs from 28 bytes, one register, one row a band (two rows would
// span 2 x 28 + 28 = 84 bytes, past two registers). VGG pool5 (14x14, k2 s2): 7 outputs from 14 bytes.
TEST(PlanFacts, ByteShuffleBandsGatherEveryWindowInTheAvx2Form) {
    const jit::KernelPlan stem = plan_of("maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2);
    ASSERT_TRUE(stem.byte_bands.enabled());
    EXPECT_EQ(jit::strategy_names(stem), "byte_bands");
    EXPECT_EQ(stem.lanes, 32);
    EXPECT_EQ(stem.byte_bands.rows, 1);
    EXPECT_EQ(stem.byte_bands.chunks, (std::vector<jit::ByteBandChunk>{{0, 32, 0, 2, 0}, {32, 24, 63, 2, 3}}));
    EXPECT_EQ(stem.byte_bands.runs,
              (std::vector<jit::ByteBandRun>{{0, 1, 1, false}, {1, 54, 1, true}, {55, 1, 1, false}}));
    expect_lanes_read_their_windows(stem, 2, 1, 1);
    // An image's planes past 512 KiB (the stem's 64 x 12544 bytes) prefetch 24 KiB ahead; the smaller ones do not.
    EXPECT_EQ(stem.byte_bands.prefetch_distance, 24576);

    const jit::KernelPlan googlenet = plan_of("maxpool dt=s8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch", jit::Isa::avx2);
    ASSERT_TRUE(googlenet.byte_bands.enabled());
    EXPECT_EQ(googlenet.compare, jit::CompareType::s8);
    EXPECT_EQ(googlenet.byte_bands.rows, 1);
    EXPECT_EQ(googlenet.byte_bands.chunks, (std::vector<jit::ByteBandChunk>{{0, 14, 0, 1, 0}}));
    expect_lanes_read_their_windows(googlenet, 2, 1, 0);
    EXPECT_EQ(googlenet.byte_bands.prefetch_distance, 0);

    const jit::KernelPlan pool5 = plan_of("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx2, bands_on());
    ASSERT_TRUE(pool5.byte_bands.enabled());
    EXPECT_EQ(pool5.byte_bands.chunks.front().outputs, 7);
    expect_lanes_read_their_windows(pool5, 2, 1, 0);

    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x32x150x150 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=s8 layout=ncx src=1x2x7x300 k=2x5 s=1x3 d=1x2 pb=0x3 pe=1x4 round=ceil",
                             "maxpool dt=u8 layout=ncx src=1x3x30x33 k=2x3 s=4x4 pb=1x2 pe=1x2",
                             "maxpool dt=u8 layout=ncx src=1x64x56x56 k=3x3 d=2x2 pb=1x1 pe=1x1"}) {
        SCOPED_TRACE(line);
        const pj::Problem p = pj::test::resolve_line(line);
        expect_lanes_read_their_windows(plan_of(line, jit::Isa::avx2, bands_on()), p.stride[1], p.dilation[1], p.pad_begin[1]);
    }
}

// Declined in the AVX2 form: a plane of fewer than 32 bytes (a load cannot move inside it), windows at stride 1
// whose outputs sit at their inputs (flat planes take them unless bands=on asks), indices, f32, windows wider than
// 64 bytes, output rows under a pitch smaller than their width (a view of no channels); by the rules (bands=on
// takes them), rows of more than 64 outputs and windows apart along the width (byte pairs).
TEST(PlanFacts, ByteShuffleBandsDeclineWhatTheyCannotGather) {
    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x32x150x150 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=ncx src=1x64x56x56 k=2x2 s=2x2",
                             "maxpool dt=s8 layout=ncx src=1x64x30x30 k=2x2 s=2x2",
                             "maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2"}) {
        SCOPED_TRACE(line);
        EXPECT_FALSE(plan_of(line, jit::Isa::avx2).byte_bands.enabled());
        EXPECT_TRUE(plan_of(line, jit::Isa::avx2, bands_on()).byte_bands.enabled());
    }
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=1x64x30x30 k=3x2 s=2x1", jit::Isa::avx2).byte_bands.enabled());
    for (const char* line : {"maxpool dt=u8 layout=ncx src=2x5x5x5 k=2x2",
                             "maxpool dt=u8 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1 idx=s32",
                             "maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=ncx src=1x3x4x400 k=2x66",
                             "maxpool dt=s8 layout=ncx src=2x0x6x6 k=1x2 s=1x3 d=1x3 dst_strides=0x1x0x0"}) {
        SCOPED_TRACE(line);
        EXPECT_FALSE(plan_of(line, jit::Isa::avx2).byte_bands.enabled());
    }
    const char* const inception = "maxpool dt=u8 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1";
    EXPECT_TRUE(plan_of(inception, jit::Isa::avx2).flat_planes.enabled());
    EXPECT_TRUE(plan_of(inception, jit::Isa::avx2, bands_on()).byte_bands.enabled());
    EXPECT_THROW(plan_of("maxpool dt=u8 layout=ncx src=2x5x5x5 k=2x2", jit::Isa::avx2, bands_on()), jit::UnhonouredChoice);
}

// Integer ties, the lowest value and random bytes, on 1 and 2 threads, bands asked for: the suite's shapes, planes
// of 32 to 63 bytes (every straight-line load moved inside the plane, from both ends), output rows of each store
// size (1-5, 7, 8, 9, 16, 17, 31 and 32 bytes), several rows a band (stored at once, and a row at a time under an
// output row pitch: 2, 3 and 4 bytes a row), columns in chunks, windows in the padding, s8 and u8.
TEST(ByteShuffleBands, MatchTheReferenceOnTiesTheLowestValueAndRandomBytes) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(jit::Isa::avx2);
    pj::PlanChoice choice = pj::test::choice_for(jit::Isa::avx2);
    choice.bands = pj::PlanChoice::Switch::on;
    for (const int threads : {1, 2}) {
        pj::set_num_threads(threads);
        for (const char* line : {"maxpool dt=u8 layout=ncx src=1x5x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                 "maxpool dt=s8 layout=ncx src=1x4x112x112 k=3x3 s=2x2 round=ceil",
                                 "maxpool dt=u8 layout=ncx src=2x5x28x28 k=3x3 s=2x2 round=ceil_torch",
                                 "maxpool dt=s8 layout=ncx src=1x6x28x28 k=3x3 pb=1x1 pe=1x1",
                                 "maxpool dt=u8 layout=ncx src=1x5x20x20 k=5x5 pb=2x2 pe=2x2",
                                 "maxpool dt=s8 layout=ncx src=1x3x40x40 k=9x9 pb=4x4 pe=4x4",
                                 "maxpool dt=u8 layout=ncx src=1x4x56x56 k=2x2 s=2x2",
                                 "maxpool dt=s8 layout=ncx src=2x7x14x14 k=2x2 s=2x2",
                                 "maxpool dt=u8 layout=ncx src=1x3x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2",
                                 "maxpool dt=s8 layout=ncx src=1x3x150x150 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                 "maxpool dt=u8 layout=ncx src=1x2x9x10 k=3x3 s=2x2 d=2x1 pb=4x2 pe=4x2",
                                 "maxpool dt=s8 layout=ncx src=1x3x30x33 k=2x3 s=4x4 pb=1x2 pe=1x2",
                                 "maxpool dt=u8 layout=ncx src=1x3x1x70 k=1x4 s=1x2 pb=0x1 pe=0x1",
                                 "maxpool dt=s8 layout=ncx src=1x3x70x1 k=4x1 s=2x1 pb=1x0 pe=2x0",
                                 "maxpool dt=u8 layout=ncx src=2x3x6x6 k=2x2",
                                 "maxpool dt=s8 layout=ncx src=2x3x7x9 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                 "maxpool dt=u8 layout=ncx src=1x3x2x16 k=2x2 pb=1x1 pe=1x1",
                                 "adaptivemaxpool dt=u8 layout=ncx src=2x3x13x13 out=6x6",
                                 "adaptivemaxpool dt=s8 layout=ncx src=2x3x13x13 out=3x3",
                                 "adaptivemaxpool dt=u8 layout=ncx src=1x3x13x13 out=2x2",
                                 "maxpool dt=u8 layout=ncx src=1x2x40x2 k=1x2",
                                 "maxpool dt=s8 layout=ncx src=1x2x40x3 k=2x1 s=1x1",
                                 "maxpool dt=u8 layout=ncx src=1x2x40x5 k=1x1",
                                 "maxpool dt=s8 layout=ncx src=1x2x40x8 k=3x2 s=2x2 round=ceil",
                                 "maxpool dt=u8 layout=ncx src=1x2x40x9 k=2x1 s=1x1",
                                 "maxpool dt=s8 layout=ncx src=1x2x40x32 k=2x2 s=2x2",
                                 "maxpool dt=u8 layout=ncx src=1x2x40x34 k=2x2 s=2x2",
                                 "maxpool dt=s8 layout=ncx src=1x2x40x62 k=2x2 s=2x2",
                                 "maxpool dt=u8 layout=ncx src=1x2x33x31 k=2x3 s=1x1 pb=1x1",
                                 "maxpool dt=u8 layout=ncx src=1x2x2x40 k=1x40",
                                 "maxpool dt=s8 layout=ncx src=1x2x40x4 k=1x3 dst_strides=400x200x5x1",
                                 "maxpool dt=u8 layout=ncx src=1x2x40x6 k=3x3 s=1x2 round=ceil dst_strides=400x200x4x1",
                                 "maxpool dt=u8 layout=ncx src=2x3x10x12 k=3x5 s=2x2 pb=1x2 pe=1x2 dst_strides=300x50x6x1",
                                 "maxpool dt=s8 layout=ncx src=2x3x28x28 k=3x3 s=2x2 round=ceil_torch src_strides=3360x1120x40x1",
                                 "maxpool dt=u8 layout=ncx src=1x3x30x8 k=2x2 s=2x2 dst_strides=600x200x9x1",
                                 "maxpool dt=s8 layout=ncx src=1x3x40x5 k=1x1 src_strides=600x200x5x1 dst_strides=800x240x6x1",
                                 "maxpool dt=u8 layout=ncx src=1x3x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1 src_strides=48384x16128x128x1 dst_strides=10752x3584x64x1"}) {
            SCOPED_TRACE(line + std::string(" on ") + std::to_string(threads) + " threads");
            const pj::Problem problem = pj::test::resolve_line(line);
            ASSERT_TRUE(jit::make_plan(problem, jit::Isa::avx2, jit::PlanOptions{.choice = choice}).byte_bands.enabled());
            const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
            ASSERT_EQ(p.impl_name(), "jit:avx2");
            const pj::TensorDesc& d = p.src_desc();
            const auto run = [&](const void* s, void* o, void* i) { p.execute(s, o, i); };
            std::mt19937_64 rng(7);
            pj::test::expect_run_matches_reference(p.problem(), pj::test::integer_ties(d, rng), run, "avx2");
            std::vector<std::uint8_t> lowest(pj::casegen::byte_size(d), d.dtype == pj::DType::s8 ? 0x80 : 0x00);
            pj::test::expect_run_matches_reference(p.problem(), lowest, run, "avx2");
            std::vector<std::uint8_t> random(pj::casegen::byte_size(d));
            for (std::uint8_t& b : random) b = static_cast<std::uint8_t>(rng());
            pj::test::expect_run_matches_reference(p.problem(), random, run, "avx2");
        }
    }
    pj::set_num_threads(0);
}

// Guard pages against both ends of the source and the output (generated code is invisible to ASan): planes of 32
// to 63 bytes, where every straight-line load moves inside the plane from either end, and the one store of a
// single byte a row, on the only plane of the tensor, so a byte read or written past the plane faults.
TEST(ByteShuffleBands, StayInsideTheCallersBuffers) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(jit::Isa::avx2);
    pj::PlanChoice choice = pj::test::choice_for(jit::Isa::avx2);
    choice.bands = pj::PlanChoice::Switch::on;
    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x1x6x6 k=2x2",
                             "maxpool dt=s8 layout=ncx src=1x1x2x16 k=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=ncx src=1x1x7x9 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil",
                             "maxpool dt=s8 layout=ncx src=1x1x2x40 k=1x40",
                             "maxpool dt=u8 layout=ncx src=1x1x40x1 k=3x1 s=2x1 pb=1x0 pe=1x0",
                             "adaptivemaxpool dt=u8 layout=ncx src=1x1x13x13 out=6x6",
                             "maxpool dt=s8 layout=ncx src=1x1x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1"}) {
        SCOPED_TRACE(line);
        const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
        ASSERT_EQ(p.impl_name(), "jit:avx2");
        const std::size_t src_bytes = pj::casegen::byte_size(p.src_desc()), dst_bytes = pj::casegen::byte_size(p.dst_desc());
        std::mt19937_64 rng(11);
        std::vector<std::uint8_t> src(src_bytes), want(dst_bytes);
        for (std::uint8_t& b : src) b = static_cast<std::uint8_t>(rng());
        pj::reference::execute(p.problem(), src.data(), want.data(), nullptr);
        for (const pj::test::GuardSide side : {pj::test::GuardSide::after_end, pj::test::GuardSide::before_start}) {
            SCOPED_TRACE(pj::test::to_string(side));
            const pj::test::GuardedBuffer g_src(src_bytes, side), g_dst(dst_bytes, side);
            std::memcpy(g_src.data(), src.data(), src_bytes);
            p.execute(g_src.data(), g_dst.data(), nullptr);
            EXPECT_EQ(g_dst.bytes(), want);
        }
    }
}

}  // namespace
