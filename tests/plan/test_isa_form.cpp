// The ISA form the rules give a problem where the CPU runs AVX-512 and AVX2 (jit::rules_isa_form, the measured
// reasons in jit/plan/plan.hpp), for cores that run 512-bit operations in halves and for cores that do not. Plans
// only: the traits are given, not measured, so every host checks both kinds of core.
#include "jit/plan/plan.hpp"
#include "support/run_compare.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

jit::Isa form_of(const std::string& line, bool splits, bool byte_permutes = false) {
    jit::CpuTraits traits;
    traits.splits_512_bit_ops = splits;
    traits.byte_permutes = byte_permutes;
    return jit::rules_isa_form(pj::test::resolve_line(line), traits).isa;
}

// Planar rows on cores that split 512-bit operations: memory-bound rows and bf16 take the AVX2 form; compare-bound
// rows of other types and small planes (held in registers) keep AVX-512. Elsewhere AVX-512.
TEST(IsaForm, PlanarRowsTakeAvx2WhereTheCoreSplits512BitOperations) {
    for (const char* line : {"maxpool dt=f32 layout=ncx src=1x256x56x56 k=2x2 s=2x2",
                             "maxpool dt=bf16 layout=ncx src=1x192x28x28 k=3x3 s=1x1 pb=1x1 pe=1x1"}) {
        EXPECT_EQ(form_of(line, true), jit::Isa::avx2) << line;
        EXPECT_EQ(form_of(line, false), jit::Isa::avx512) << line;
    }
    for (const char* line : {"maxpool dt=f32 layout=ncx src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2",
                             "adaptivemaxpool dt=f32 layout=ncx src=1x512x13x13 out=7x7"}) {
        EXPECT_EQ(form_of(line, true), jit::Isa::avx512) << line;
        EXPECT_EQ(form_of(line, false), jit::Isa::avx512) << line;
    }
}

// Planar u8/s8 rows that the 256-bit form compares in byte lanes (byte rows, flat planes) take it on every core;
// where the core splits 512-bit operations, small planes held in registers come first. Elsewhere rows the 256-bit
// form would widen (a global 7x7 window), and rows with indices, keep AVX-512; so do 2-D byte pairs past the row's
// edges in rows of 32 outputs or more (the stem, its ceil twin) where the core does not split.
TEST(IsaForm, PlanarBytesTakeTheByteRowsOfAvx2) {
    for (const bool splits : {false, true}) {
        for (const char* line : {"maxpool dt=s8 layout=ncx src=1x192x28x28 k=3x3 s=1x1 pb=1x1 pe=1x1",
                                 "maxpool dt=u8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch",
                                 "maxpool dt=u8 layout=ncx src=1x256x56x56 k=2x2 s=2x2"})
            EXPECT_EQ(form_of(line, splits), jit::Isa::avx2) << line << (splits ? " (splits)" : "");
    }
    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=s8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 round=ceil"}) {
        EXPECT_EQ(form_of(line, false), jit::Isa::avx512) << line;
        EXPECT_EQ(form_of(line, true), jit::Isa::avx2) << line << " (splits)";
    }
    EXPECT_EQ(form_of("maxpool dt=u8 layout=ncx src=16x2048x7x7 k=7x7", false), jit::Isa::avx512);
    EXPECT_EQ(form_of("maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64", false),
              jit::Isa::avx512);
    // VGG pool5: byte rows in the 256-bit form (Intel: 4.4 us against 13.6), small planes where the core splits.
    EXPECT_EQ(form_of("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2", false), jit::Isa::avx2);
    EXPECT_EQ(form_of("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2", true), jit::Isa::avx512);
}

// u8/s8 planes that the AVX-512 form computes in byte lanes by byte permutes (a core with AVX512_VBMI) keep
// AVX-512 on every core: small planes in registers, and 2-D max pools in byte bands (adaptive bins that are a max
// pool's windows among them: 13x13 to 7x7 and to 6x6). Without byte permutes, and with indices, the rules above:
// GoogLeNet's and VGG pool3's byte rows and pairs take the 256-bit form on every core.
TEST(IsaForm, BytePlanesAndBandsTakeAvx512WhereTheCoreHasBytePermutes) {
    for (const bool splits : {false, true}) {
        for (const char* line : {"adaptivemaxpool dt=u8 layout=ncx src=1x512x13x13 out=7x7",
                                 "adaptivemaxpool dt=s8 layout=ncx src=1x256x13x13 out=6x6",
                                 "maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2",
                                 "maxpool dt=u8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch",
                                 "maxpool dt=s8 layout=ncx src=1x256x56x56 k=2x2 s=2x2"})
            EXPECT_EQ(form_of(line, splits, true), jit::Isa::avx512) << line << (splits ? " (splits)" : "");
        for (const char* line : {"maxpool dt=u8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch",
                                 "maxpool dt=u8 layout=ncx src=1x256x56x56 k=2x2 s=2x2"})
            EXPECT_EQ(form_of(line, splits, false), jit::Isa::avx2) << line << (splits ? " (splits)" : "");
    }
    EXPECT_EQ(form_of("adaptivemaxpool dt=u8 layout=ncx src=1x512x13x13 out=7x7", false), jit::Isa::avx2);
    // Indices: 32-bit lanes, no bands (the stem's padded rows keep AVX-512's border items).
    EXPECT_EQ(form_of("maxpool dt=u8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch idx=s32", false, true),
              form_of("maxpool dt=u8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch idx=s32", false, false));
}

// Channels-last blocks of at most 32 bytes of compare lanes fill half a zmm: the AVX2 form on every core.
// u8 byte lanes: 32 channels are 32 bytes; f32: 8 channels are 32 bytes; 9 f32 channels are 36.
TEST(IsaForm, ChannelsLastBlocksOfHalfAZmmTakeAvx2OnEveryCore) {
    for (const bool splits : {false, true}) {
        EXPECT_EQ(form_of("maxpool dt=u8 layout=nxc src=1x32x150x150 k=3x3 s=2x2 pb=1x1 pe=1x1", splits), jit::Isa::avx2);
        EXPECT_EQ(form_of("maxpool dt=f32 layout=nxc src=1x8x20x20 k=2x2 s=2x2", splits), jit::Isa::avx2);
        // With indices bytes take 32-bit lanes: 32 channels are 128 bytes.
        EXPECT_EQ(form_of("maxpool dt=u8 layout=nxc src=1x32x20x20 k=2x2 s=2x2 idx=s64", splits), jit::Isa::avx512);
        EXPECT_EQ(form_of("maxpool dt=f32 layout=nxc src=1x9x20x20 k=2x2 s=2x2", splits), jit::Isa::avx512);
        // A blocked layout's run of 8 f32 channels is 32 bytes too.
        EXPECT_EQ(form_of("maxpool dt=f32 layout=nCx8c src=1x64x20x20 k=2x2 s=2x2", splits), jit::Isa::avx2);
        // Bytes in blocks of 8 or 16 take byte lanes (jit::min_byte_lane_run: runs of a quarter of a ymm), 8 or 16
        // bytes of a ymm: the AVX2 form (Xeon 2: u8 nCx16c k2 s2 and k3 s2 1.5-3x faster than the AVX-512 form's
        // 32-bit lanes, and the AVX-512 form's masked byte lanes 1.5-1.7x slower than those).
        EXPECT_EQ(form_of("maxpool dt=u8 layout=nCx8c src=1x64x20x20 k=2x2 s=2x2", splits), jit::Isa::avx2);
        EXPECT_EQ(form_of("maxpool dt=u8 layout=nCx16c src=1x64x20x20 k=2x2 s=2x2", splits), jit::Isa::avx2);
    }
}

// Byte lanes of 33 to 63 channels (no indices): the AVX2 form where the core splits 512-bit operations; from 64
// channels, and for 32-bit lanes, AVX-512.
TEST(IsaForm, ByteLanesOfLessThanAZmmTakeAvx2WhereTheCoreSplits) {
    for (const char* line : {"maxpool dt=u8 layout=nxc src=1x40x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=s8 layout=nxc src=1x63x28x28 k=2x2 s=2x2"}) {
        EXPECT_EQ(form_of(line, true), jit::Isa::avx2) << line;
        EXPECT_EQ(form_of(line, false), jit::Isa::avx512) << line;
    }
    EXPECT_EQ(form_of("maxpool dt=u8 layout=nxc src=1x64x28x28 k=2x2 s=2x2", true), jit::Isa::avx512);
    EXPECT_EQ(form_of("maxpool dt=u8 layout=nxc src=1x40x28x28 k=2x2 s=2x2 idx=s32", true), jit::Isa::avx512);
    EXPECT_EQ(form_of("maxpool dt=f32 layout=nxc src=1x12x28x28 k=2x2 s=2x2", true), jit::Isa::avx512);
}

// Compare-bound channels-last 2-D rows (reads per element >= 4: k5 s1 reads each element 25 times, k2 s2 once)
// whose windows span 5 rows or more: the AVX2 form where the core splits, AVX-512 elsewhere.
TEST(IsaForm, CompareBoundChannelsLastRowsTakeAvx2WhereTheCoreSplits) {
    const char* sppf = "maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2";
    EXPECT_EQ(form_of(sppf, true), jit::Isa::avx2);
    EXPECT_EQ(form_of(sppf, false), jit::Isa::avx512);
    // Windows of 3 rows keep the AVX-512 column ring.
    EXPECT_EQ(form_of("maxpool dt=f32 layout=nxc src=1x192x28x28 k=3x3 s=1x1 pb=1x1 pe=1x1", true), jit::Isa::avx512);
    const char* vgg = "maxpool dt=f32 layout=nxc src=1x256x56x56 k=2x2 s=2x2";
    EXPECT_EQ(form_of(vgg, true), jit::Isa::avx512);
    EXPECT_EQ(form_of(vgg, false), jit::Isa::avx512);
}

}  // namespace

namespace {

// Rules from tuning on Zen 4 (jit/plan/plan_memory.cpp): f32 planar windows of 5 rows or more take the AVX2
// form's separable rows (s32 keeps AVX-512); bf16 channels-last rows bound by compares in a column ring's window
// (fewer than 5 rows) take the AVX2 form's separable pixels; bf16 small planes keep AVX-512's planes in
// registers only where the AVX2 form's windows are uneven. Every rule only where the core splits.
TEST(IsaForm, RulesFromTuningWhereTheCoreSplits) {
    const auto both = [](const char* line, jit::Isa split) {
        EXPECT_EQ(form_of(line, true), split) << line;
        EXPECT_EQ(form_of(line, false), jit::Isa::avx512) << line;
    };
    both("maxpool dt=f32 layout=ncx src=1x256x40x40 k=9x9 pb=4x4 pe=4x4", jit::Isa::avx2);
    both("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2);
    both("maxpool dt=s32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx512);
    both("maxpool dt=bf16 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", jit::Isa::avx2);
    both("maxpool dt=bf16 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2", jit::Isa::avx512);  // spans 5 rows
    both("maxpool dt=bf16 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx512);  // memory-bound
    both("adaptivemaxpool dt=bf16 layout=ncx src=1x512x13x13 out=7x7", jit::Isa::avx512);
    both("adaptivemaxpool dt=bf16 layout=ncx src=1x256x13x13 out=6x6", jit::Isa::avx2);
    both("maxpool dt=bf16 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx2);
}

}  // namespace

namespace {

// Where the rules planned the AVX-512 form to decide (planar bytes: byte planes, bands, edge byte pairs) and chose
// it, they hand that plan over (create() does not plan the problem again): the plan the AVX-512 form makes with the
// same traits. Where they chose the AVX2 form, or did not plan, none.
TEST(IsaForm, HandsOverTheAvx512PlanItMade) {
    jit::CpuTraits traits;
    traits.byte_permutes = true;
    jit::PlanOptions options;
    options.core = traits;
    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",    // bands
                             "adaptivemaxpool dt=u8 layout=ncx src=1x256x13x13 out=6x6",               // bands
                             "maxpool dt=s8 layout=ncx src=1x8x6x6 k=3x3 s=1x1 pb=1x1 pe=1x1"}) {     // planes
        SCOPED_TRACE(line);
        const pj::Problem p = pj::test::resolve_line(line);
        const jit::IsaForm form = jit::rules_isa_form(p, traits);
        ASSERT_EQ(form.isa, jit::Isa::avx512);
        ASSERT_TRUE(form.avx512_plan.has_value());
        EXPECT_TRUE(*form.avx512_plan == jit::make_plan(p, jit::Isa::avx512, options));
    }
    traits.byte_permutes = false;
    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x256x56x56 k=2x2 s=2x2",     // AVX2's byte rows
                             "maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 s=2x2"}) {  // no plan made
        SCOPED_TRACE(line);
        EXPECT_FALSE(jit::rules_isa_form(pj::test::resolve_line(line), traits).avx512_plan.has_value());
    }
}

}  // namespace
