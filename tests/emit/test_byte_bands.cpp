// Byte bands (planar u8/s8 2-D max pools without indices on a core with byte permutes, jit/plan/plan_bands.cpp and
// jit/emit/emit_byte_bands.cpp): the plan's bands and permutes worked out by hand from the window definition, what
// the planner declines, and the code against the reference on tie data and the lowest value where the CPU has
// AVX512_VBMI (skipped by name otherwise).
#include "jit/isa/isa.hpp"
#include "jit/plan/strategies.hpp"
#include "support/byte_band_windows.hpp"
#include "support/cpu_isas.hpp"
#include "support/plan_util.hpp"
#include "support/run_compare.hpp"
#include "support/tie_data.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pj::test::expect_reference_on;
using pooljit::testing::plan_of;

jit::PlanOptions vbmi() {
    jit::PlanOptions options;
    options.core.byte_permutes = true;
    return options;
}

// The AVX-512 form's bands: 64 lanes (support/byte_band_windows.hpp).
void expect_permutes_read_the_windows(const jit::KernelPlan& plan, std::int64_t sw, std::int64_t dw, std::int64_t pw) {
    pj::test::expect_bands_read_the_windows(plan, 64, sw, dw, pw);
}

// The stem (112x112, k3 s2 p1): rows of 56 outputs from 112 bytes, two registers; band 0 reads row -1 (masked),
// bands 1 to 54 lie inside the plane (the last one's rows 107-109 end at byte 109 * 112 + 128 = 12336 of 12544),
// band 55's last row register reaches past the plane. GoogLeNet (28x28, k3 s2 ceil_torch, 14 outputs a row): two
// rows a band (84 bytes: two registers; one row a band would cost 7 operations for 14 outputs, two 9 for 28,
// three would span 140 bytes); bands of rows 0-11 inside, rows 12-13 reach row 28, past the plane. A 3x3 dilated
// by 2 with p1: output 1's first tap (column 0) lies before output 0's first real one (column 1), so V starts at
// column 0. Rows of 150 bytes at stride 2: chunks of 64 and 11 outputs.
TEST(PlanFacts, ByteBandsGatherEveryWindowFromItsRowsMaxima) {
    const jit::KernelPlan stem = plan_of("maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                         jit::Isa::avx512, vbmi());
    ASSERT_TRUE(stem.byte_bands.enabled());
    EXPECT_EQ(stem.strategy, jit::Strategy::ncx_planes);
    EXPECT_EQ(jit::strategy_names(stem), "byte_bands");
    EXPECT_EQ(stem.lanes, 64);
    EXPECT_EQ(stem.compare, jit::CompareType::u8);
    EXPECT_EQ(stem.byte_bands.rows, 1);
    ASSERT_EQ(stem.byte_bands.chunks.size(), 1u);
    EXPECT_EQ(stem.byte_bands.chunks[0], (jit::ByteBandChunk{0, 56, 0, 2, 0}));
    EXPECT_EQ(stem.byte_bands.runs,
              (std::vector<jit::ByteBandRun>{{0, 1, 1, false}, {1, 54, 1, true}, {55, 1, 1, false}}));
    expect_permutes_read_the_windows(stem, 2, 1, 1);
    // Looped bands prefetch 2 KiB ahead (a band steps 2 rows of 112 bytes); prefetch_kib sets the distance or,
    // at -1, leaves it out.
    EXPECT_EQ(stem.byte_bands.prefetch_distance, 2048);
    jit::PlanOptions far = vbmi(), none = vbmi();
    far.choice.prefetch_kib = 6;
    none.choice.prefetch_kib = -1;
    const char* const stem_line = "maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1";
    EXPECT_EQ(plan_of(stem_line, jit::Isa::avx512, far).byte_bands.prefetch_distance, 6144);
    EXPECT_EQ(plan_of(stem_line, jit::Isa::avx512, none).byte_bands.prefetch_distance, 0);

    const jit::KernelPlan googlenet = plan_of("maxpool dt=s8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch",
                                              jit::Isa::avx512, vbmi());
    ASSERT_TRUE(googlenet.byte_bands.enabled());
    EXPECT_EQ(googlenet.compare, jit::CompareType::s8);
    EXPECT_EQ(googlenet.byte_bands.rows, 2);
    EXPECT_EQ(googlenet.byte_bands.chunks, (std::vector<jit::ByteBandChunk>{{0, 14, 0, 2, 0}}));
    EXPECT_EQ(googlenet.byte_bands.runs, (std::vector<jit::ByteBandRun>{{0, 6, 2, true}, {12, 1, 2, false}}));
    expect_permutes_read_the_windows(googlenet, 2, 1, 0);
    // Output 13's third tap (column 28) is past the row: it takes the window's first real tap again.
    EXPECT_EQ(googlenet.byte_bands.permutes[2][13], 26);
    EXPECT_EQ(googlenet.byte_bands.permutes[2][14 + 13], 56 + 26);

    const jit::KernelPlan dilated = plan_of("maxpool dt=u8 layout=ncx src=1x64x56x56 k=3x3 d=2x2 pb=1x1 pe=1x1",
                                            jit::Isa::avx512, vbmi());
    ASSERT_TRUE(dilated.byte_bands.enabled());
    EXPECT_EQ(dilated.byte_bands.chunks, (std::vector<jit::ByteBandChunk>{{0, 54, 0, 1, 0}}));
    expect_permutes_read_the_windows(dilated, 1, 2, 1);

    const jit::KernelPlan wide = plan_of("maxpool dt=u8 layout=ncx src=1x32x150x150 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                         jit::Isa::avx512, vbmi());
    ASSERT_TRUE(wide.byte_bands.enabled());
    EXPECT_EQ(wide.byte_bands.chunks,
              (std::vector<jit::ByteBandChunk>{{0, 64, 0, 2, 0}, {64, 11, 127, 1, 3}}));
    expect_permutes_read_the_windows(wide, 2, 1, 1);
    // Views: a source row pitch of 40 for rows of 28 (GoogLeNet's shape): two rows a band read 2 x 40 + 28 bytes,
    // V's second row from lane 80; with an output row pitch of 20 for rows of 14 too (a store a row).
    const jit::KernelPlan pitched = plan_of(
        "maxpool dt=u8 layout=ncx src=1x8x28x28 k=3x3 s=2x2 round=ceil_torch src_strides=8960x1120x40x1 dst_strides=2240x280x20x1",
        jit::Isa::avx512, vbmi());
    ASSERT_TRUE(pitched.byte_bands.enabled());
    EXPECT_EQ(pitched.byte_bands.pitch, 40);
    EXPECT_EQ(pitched.byte_bands.out_pitch, 20);
    EXPECT_EQ(pitched.byte_bands.extent(), 27 * 40 + 28);
    EXPECT_EQ(pitched.byte_bands.rows, 2);
    expect_permutes_read_the_windows(pitched, 2, 1, 0);
    const jit::KernelPlan rows_apart = plan_of(
        "maxpool dt=u8 layout=ncx src=1x8x28x28 k=3x3 s=2x2 round=ceil_torch src_strides=8960x1120x40x1",
        jit::Isa::avx512, vbmi());
    ASSERT_TRUE(rows_apart.byte_bands.enabled());
    EXPECT_EQ(rows_apart.byte_bands.rows, 2);
    EXPECT_EQ(rows_apart.byte_bands.permutes[0][14], 80);  // row g = 1, output 0's first tap: 1 x 2 x 40 + 0
    expect_permutes_read_the_windows(rows_apart, 2, 1, 0);
    // A plane of 2^28 rows of one byte, k2x1: 64 rows a band (64 bytes of input rows, one register), the bands
    // inside found by bisection: 4194303 looped (the last one's rows 268435328-268435391 read up to byte
    // 268435393 of 268435456), then the last band's 63 rows.
    const jit::KernelPlan tall = plan_of("maxpool dt=u8 layout=ncx src=1x1x268435456x1 k=2x1", jit::Isa::avx512, vbmi());
    ASSERT_TRUE(tall.byte_bands.enabled());
    EXPECT_EQ(tall.byte_bands.rows, 64);
    EXPECT_EQ(tall.byte_bands.runs,
              (std::vector<jit::ByteBandRun>{{0, 4194303, 64, true}, {268435392, 1, 63, false}}));
    for (const char* line : {"maxpool dt=s8 layout=ncx src=1x2x7x300 k=2x5 s=1x3 d=1x2 pb=0x3 pe=1x4 round=ceil",
                             "maxpool dt=u8 layout=ncx src=1x3x30x33 k=2x3 s=4x4 pb=1x2 pe=1x2"}) {
        SCOPED_TRACE(line);
        const pj::Problem p = pj::test::resolve_line(line);
        expect_permutes_read_the_windows(plan_of(line, jit::Isa::avx512, vbmi()), p.stride[1], p.dilation[1], p.pad_begin[1]);
    }
}

// Declined: no byte permutes (the AVX-512 form), indices, f32, 1-D, source rows that overlap (a row pitch under
// the width), elements of a row apart (a width stride of 2), a window wider than 128 bytes, dilations and strides
// past 2^30 (a row offset times the pitch would pass 64 bits: 2^58 + 1 rows of 64 bytes wrap to the next row),
// rows of more than 1024 outputs (16 chunks of 64), 64x64 windows over a 64x64 plane padded by 63 (252
// straight-line bands of 256 operations each: past 16384), a whole-plane window (byte planes reduce planes
// together), output rows under a pitch smaller than their width (no channels), the choices bands=off and
// planes=off. bands=on where no bands serve is refused by name.
TEST(PlanFacts, ByteBandsDeclineWhatTheyCannotGather) {
    const char* const stem = "maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1";
    EXPECT_FALSE(plan_of(stem, jit::Isa::avx512).byte_bands.enabled());
    // The AVX2 form gathers its bands by byte shuffles (test_byte_shuffle_bands.cpp): 32 lanes.
    EXPECT_EQ(plan_of(stem, jit::Isa::avx2, vbmi()).byte_bands.enabled() ? plan_of(stem, jit::Isa::avx2, vbmi()).lanes : 0, 32);
    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s32",
                             "maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=ncx src=1x64x1000 k=3 s=2",
                             "maxpool dt=u8 layout=ncx src=1x3x20x20 k=3x3 src_strides=1200x400x10x1",
                             "maxpool dt=u8 layout=ncx src=1x3x20x20 k=3x3 src_strides=2400x800x40x2",
                             "maxpool dt=u8 layout=ncx src=1x3x4x400 k=2x130",
                             "maxpool dt=u8 layout=ncx src=2x64x7x7 k=7x7",
                             "maxpool dt=u8 layout=ncx src=1x1x4x64 k=2x1 d=288230376151711745x1 pe=288230376151711744x0",
                             "maxpool dt=u8 layout=ncx src=1x1x4x2 k=2x1 s=1099511627776x1 d=1099511627775x1 pb=1099511627775x0 pe=1099511627776x0",
                             "maxpool dt=u8 layout=ncx src=1x1x2x1100 k=1x2 s=1x1",
                             "maxpool dt=u8 layout=ncx src=1x1x64x64 k=64x64 pb=63x63 pe=63x63",
                             "maxpool dt=u8 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=s8 layout=ncx src=2x0x6x6 k=1x2 s=1x3 d=1x3 dst_strides=0x1x0x0"}) {
        SCOPED_TRACE(line);
        EXPECT_FALSE(plan_of(line, jit::Isa::avx512, vbmi()).byte_bands.enabled());
    }
    jit::PlanOptions off = vbmi(), planes_off = vbmi(), on = vbmi();
    off.choice.bands = pj::PlanChoice::Switch::off;
    planes_off.choice.planes = pj::PlanChoice::Switch::off;
    on.choice.bands = pj::PlanChoice::Switch::on;
    EXPECT_FALSE(plan_of(stem, jit::Isa::avx512, off).byte_bands.enabled());
    EXPECT_FALSE(plan_of(stem, jit::Isa::avx512, planes_off).byte_bands.enabled());
    EXPECT_TRUE(plan_of(stem, jit::Isa::avx512, on).byte_bands.enabled());
    EXPECT_THROW(plan_of("maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2", jit::Isa::avx512, on),
                 jit::UnhonouredChoice);
}

// Integer ties (mostly the lowest value) and the lowest value everywhere, on 1 and 2 threads: the suite's shapes
// (the stem, its ceil twin, GoogLeNet, Inception, SPPF, SPP, VGG pool3 and pool5, the dilated 3x3s, MobileNet's
// 150x150 rows in chunks), windows in the padding of the first and last rows, strides that skip rows, planes of
// one row and of one column, adaptive bins taken as a max pool's, an output whose channel planes lie apart
// (the gaps keep their poison), and row pitches in the source and the output (one of 2 MiB: a band steps too far
// to prefetch).
TEST(ByteBands, MatchTheReferenceOnTiesAndTheLowestValue) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(jit::Isa::avx512);
    if (!jit::cpu_features().avx512_vbmi) GTEST_SKIP() << "the CPU (or POOLJIT_CPU_MASK) lacks avx512_vbmi";
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
                                 "maxpool dt=u8 layout=ncx src=1x3x56x56 k=3x3 d=2x2 pb=1x1 pe=1x1",
                                 "maxpool dt=s8 layout=ncx src=1x3x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2",
                                 "maxpool dt=u8 layout=ncx src=1x3x150x150 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                 "maxpool dt=s8 layout=ncx src=1x2x9x10 k=3x3 s=2x2 d=2x1 pb=4x2 pe=4x2",
                                 "maxpool dt=u8 layout=ncx src=1x3x30x33 k=2x3 s=4x4 pb=1x2 pe=1x2",
                                 "maxpool dt=s8 layout=ncx src=1x3x1x70 k=1x4 s=1x2 pb=0x1 pe=0x1",
                                 "maxpool dt=u8 layout=ncx src=1x3x70x1 k=4x1 s=2x1 pb=1x0 pe=2x0",
                                 "adaptivemaxpool dt=s8 layout=ncx src=2x3x13x13 out=3x3",
                                 "maxpool dt=u8 layout=ncx src=2x3x10x12 k=3x5 s=2x2 pb=1x2 pe=1x2 dst_strides=300x50x6x1",
                                 "maxpool dt=s8 layout=ncx src=2x3x28x28 k=3x3 s=2x2 round=ceil_torch src_strides=3360x1120x40x1",
                                 "maxpool dt=u8 layout=ncx src=1x3x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1 src_strides=48384x16128x128x1 dst_strides=10752x3584x64x1",
                                 "maxpool dt=s8 layout=ncx src=1x2x5x20 k=2x3 s=1x2 src_strides=20971520x10485760x2097152x1"}) {
            SCOPED_TRACE(line + std::string(" on ") + std::to_string(threads) + " threads");
            ASSERT_TRUE(plan_of(line, jit::Isa::avx512, vbmi()).byte_bands.enabled());
            const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(jit::Isa::avx512));
            const pj::TensorDesc& d = p.src_desc();
            std::mt19937_64 rng(5);
            expect_reference_on(jit::Isa::avx512, line, pj::test::integer_ties(d, rng));
            std::vector<std::uint8_t> lowest(pj::casegen::byte_size(d), d.dtype == pj::DType::s8 ? 0x80 : 0x00);
            expect_reference_on(jit::Isa::avx512, line, lowest);
        }
    }
    pj::set_num_threads(0);
}

}  // namespace
