// The planner's NaN decisions (jit/plan/plan_nan.cpp): which float rows scan their input for NaN before the fast
// code, which watch the values they load instead, and in how many running sums. Every expected value is worked
// out by hand from the definitions in jit/plan/plan.hpp.
#include "jit/plan/plan.hpp"
#include "support/plan_util.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::testing::plan_of;

// Planar rows of items (plain, or masked on AVX-512) whose elements few windows read watch their loads instead of
// scanning the row first; the others keep the scan.
TEST(PlanFacts, PlanarRowsOfItemsReadByFewWindowsWatchTheirLoads) {
    const auto watches = [](const std::string& line, jit::Isa isa) {
        const jit::KernelPlan plan = plan_of(line, isa);
        EXPECT_NE(plan.scan_rows_for_nan, plan.watch_rows_for_nan) << line;
        return plan.watch_rows_for_nan;
    };
    // AVX2: VGG pool5 (each element read by 1 window), 3-D k2 s2 (1), 1-D k3 s2 (1.5), k3x3 s2x2 (2.25).
    EXPECT_TRUE(watches("maxpool dt=f32 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx2));
    EXPECT_TRUE(watches("maxpool dt=bf16 layout=ncx src=1x64x16x56x56 k=2x2x2 s=2x2x2", jit::Isa::avx2));
    EXPECT_TRUE(watches("maxpool dt=f32 layout=ncx src=1x256x16000 k=3 s=2", jit::Isa::avx2));
    EXPECT_TRUE(watches("maxpool dt=f64 layout=ncx src=1x3x10x40 k=3x3 s=3x2", jit::Isa::avx2));
    // 3x3 windows at stride 2 along h and 1 along w: each element read by 4.5 windows, a scan reads it once.
    EXPECT_FALSE(watches("maxpool dt=f32 layout=ncx src=1x3x9x40 k=3x3 s=2x1 pb=1x1 pe=1x1", jit::Isa::avx2));
    // Separable rows (the stem's overlapping rows) read the input through their buffers.
    EXPECT_FALSE(watches("maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2));
    // AVX-512: f32 and f16 fast rows are masked items, watched too; VGG pool5's planes sit in registers, adaptive
    // bins to 2x2 take taps as lanes (their own loads), and 3x3 windows at stride 1 along w keep the scan.
    EXPECT_TRUE(watches("maxpool dt=f32 layout=ncx src=1x256x56x56 k=2x2 s=2x2", jit::Isa::avx512));
    EXPECT_TRUE(watches("maxpool dt=f16 layout=ncx src=1x256x16000 k=3 s=2", jit::Isa::avx512));
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx512).watch_rows_for_nan);
    EXPECT_FALSE(watches("adaptivemaxpool dt=f32 layout=ncx src=1x256x13x13 out=2x2", jit::Isa::avx512));
    EXPECT_FALSE(watches("maxpool dt=f32 layout=ncx src=1x3x9x40 k=3x3 s=2x1 pb=1x1 pe=1x1", jit::Isa::avx512));
}

TEST(PlanFacts, FloatRowsScanForNan) {
    const auto plan = [](const char* dtype) {
        return plan_of(std::string("maxpool dt=") + dtype + " layout=nxc src=1x8x9x9 k=3x3 idx=s64");
    };
    for (const char* dtype : {"f32", "f64", "bf16", "f16"}) EXPECT_TRUE(plan(dtype).scan_rows_for_nan) << dtype;
    for (const char* dtype : {"s8", "u8", "s32", "s64"}) EXPECT_FALSE(plan(dtype).scan_rows_for_nan) << dtype;
}

TEST(PlanFacts, ChannelsLastRowsReadByFewWindowsSkipTheNanScan) {
    // Channels last, the scan is a second pass over memory that pays only for dense windows (4 or more reads
    // per input element); planar rows keep it where windows overlap that much (AVX-512's masked items watch at
    // k2 s2, PlanarRowsOfItemsReadByFewWindowsWatchTheirLoads).
    const auto scans = [](const std::string& layout, const std::string& window) {
        return plan_of("maxpool dt=f32 layout=" + layout + " src=1x64x20x20 " + window).scan_rows_for_nan;
    };
    EXPECT_FALSE(scans("nxc", "k=2x2 s=2x2"));
    EXPECT_FALSE(scans("nxc", "k=3x3 s=2x2 pb=1x1 pe=1x1"));  // 2.25 reads
    EXPECT_FALSE(scans("nxc", "k=7x7 s=7x7"));
    EXPECT_FALSE(scans("nxc", "k=20x20"));  // a global pool reads each element once, whatever its stride
    EXPECT_TRUE(scans("nxc", "k=2x2 s=1x1"));
    EXPECT_TRUE(scans("nxc", "k=5x5 s=1x1 pb=2x2 pe=2x2"));
    EXPECT_TRUE(scans("ncx", "k=2x2"));
    EXPECT_TRUE(scans("ncx", "k=3x3"));
    EXPECT_FALSE(plan_of("adaptivemaxpool dt=f32 layout=nxc src=1x8x13x13 out=6x6").scan_rows_for_nan);
    // No fast item shapes of their own either.
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x64x20x20 k=3x3 s=2x2").fast_segments.empty());
}

TEST(PlanFacts, FloatRowsWithoutTheScanWatchTheirLoads) {
    // Exactly the float rows that skip the scan run the fast copy with a watch: one or the other, never both.
    const auto plan = [](const std::string& line) { return plan_of(line); };
    for (const char* dtype : {"f32", "f64", "bf16", "f16"}) {
        const jit::KernelPlan stem = plan(std::string("maxpool dt=") + dtype + " layout=nxc src=1x64x20x20 k=3x3 s=2x2");
        EXPECT_TRUE(stem.watch_rows_for_nan) << dtype;
        EXPECT_FALSE(stem.scan_rows_for_nan) << dtype;
        const jit::KernelPlan dense = plan(std::string("maxpool dt=") + dtype + " layout=nxc src=1x64x20x20 k=3x3 pb=1x1 pe=1x1");
        EXPECT_FALSE(dense.watch_rows_for_nan) << dtype;
        EXPECT_TRUE(dense.scan_rows_for_nan) << dtype;
    }
    EXPECT_TRUE(plan("adaptivemaxpool dt=f32 layout=nxc src=1x8x13x13 out=6x6").watch_rows_for_nan);
    EXPECT_TRUE(plan("maxpool dt=f32 layout=nxc src=1x8x9x9 k=2x2 s=2x2 idx=s64").watch_rows_for_nan);
    for (const char* dtype : {"s8", "u8", "s32", "s64"})
        EXPECT_FALSE(plan(std::string("maxpool dt=") + dtype + " layout=nxc src=1x64x20x20 k=3x3 s=2x2").watch_rows_for_nan);
    EXPECT_FALSE(plan("maxpool dt=f32 layout=ncx src=1x64x20x20 k=3x3 s=2x2").watch_rows_for_nan);
}

TEST(PlanFacts, WatchedRowsSumTheirLoadsInAsManyChainsAsTheRegistersHoldAndBf16LoadsPairs) {
    // The stem's channels-last f32 rows on AVX2: 2 accumulators, fresh, scratch, the empty value, the compare
    // result, the lane mask and the tail mask are 8 of 16 registers; 4 sums for each of the 2 vectors fill the
    // rest. With s64 indices (2 index vectors, the channel base, -1, the tap index and its widened mask: 6 more)
    // 2 registers are left: one sum a vector. AVX-512 (no mask registers among its 32): 4 vectors, 4 sums each.
    const auto chains = [](const std::string& line, jit::Isa isa) {
        const jit::KernelPlan plan = plan_of(line, isa);
        EXPECT_TRUE(plan.watch_rows_for_nan) << line;
        return std::pair{plan.vectors_per_block, plan.watch_chains};
    };
    const std::string stem = "maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1";
    EXPECT_EQ(chains(stem, jit::Isa::avx2), std::pair(2, 4));
    EXPECT_EQ(chains(stem + " idx=s64", jit::Isa::avx2), std::pair(2, 1));
    EXPECT_EQ(chains(stem, jit::Isa::avx512), std::pair(4, 4));
    // bf16 values in plain items load two vectors at a time (each trait splits a load into even and odd
    // elements), tap passes over wide pixels included; not with indices, not where the row keeps maxima of its
    // own (separable pixels), not f32.
    const auto pairs = [](const std::string& line, jit::Isa isa) { return plan_of(line, isa).widened_pairs; };
    const std::string bf16_stem = "maxpool dt=bf16 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1";
    EXPECT_TRUE(pairs(bf16_stem, jit::Isa::avx2));
    EXPECT_TRUE(pairs("maxpool dt=bf16 layout=ncx src=1x8x20x37 k=1x3 pb=0x1 pe=0x0 nan=ignore", jit::Isa::avx2));
    EXPECT_FALSE(pairs(bf16_stem + " idx=s32", jit::Isa::avx2));
    EXPECT_TRUE(pairs(bf16_stem, jit::Isa::avx512));
    EXPECT_FALSE(pairs(bf16_stem + " idx=s32", jit::Isa::avx512));
    EXPECT_TRUE(pairs("maxpool dt=bf16 layout=ncx src=1x1024x1024 k=1024", jit::Isa::avx512));
    // Planar bf16 lanes at stride 2: one word load of each span under an opmask (AVX-512, masked items too), in
    // whole registers of lanes, with indices too; not AVX2 (its even-element loads), not f32, not channels last.
    const auto words = [](const std::string& line, jit::Isa isa) { return plan_of(line, isa).even_word_loads; };
    const std::string vgg_bf16 = "maxpool dt=bf16 layout=ncx src=1x64x224x224 k=2x2 s=2x2";
    EXPECT_TRUE(words(vgg_bf16, jit::Isa::avx512));
    EXPECT_TRUE(words("maxpool dt=bf16 layout=ncx src=1x3x10x70 k=3x5 s=2x2 pb=1x2 pe=1x2 round=ceil", jit::Isa::avx512));
    EXPECT_TRUE(words(vgg_bf16 + " idx=s32", jit::Isa::avx512));
    EXPECT_TRUE(words(vgg_bf16 + " idx=s64", jit::Isa::avx512));
    EXPECT_FALSE(words(vgg_bf16, jit::Isa::avx2));
    EXPECT_FALSE(words("maxpool dt=f32 layout=ncx src=1x64x224x224 k=2x2 s=2x2", jit::Isa::avx512));
    EXPECT_FALSE(words("maxpool dt=bf16 layout=nxc src=1x64x224x224 k=2x2 s=2x2", jit::Isa::avx512));
    EXPECT_FALSE(pairs(stem, jit::Isa::avx2));
    EXPECT_TRUE(pairs("maxpool dt=bf16 layout=nxc src=16x2048x7x7 k=7x7", jit::Isa::avx2));  // tap passes
    EXPECT_FALSE(pairs("maxpool dt=bf16 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2));
    // A whole plane's maximum (global pools, PointNet, adaptive to one bin) takes its vectors in pairs in any
    // block: the order is of no consequence to a maximum.
    EXPECT_TRUE(pairs("maxpool dt=bf16 layout=ncx src=1x1024x1024 k=1024", jit::Isa::avx2));
    EXPECT_TRUE(pairs("adaptivemaxpool dt=bf16 layout=ncx src=1x256x13x13 out=1x1", jit::Isa::avx2));
    EXPECT_FALSE(pairs("adaptivemaxpool dt=bf16 layout=ncx src=1x256x13x13 out=1x1 idx=s64", jit::Isa::avx2));
    // Rows without a watch keep the one (unused) chain.
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2).watch_chains, 1);
}

}  // namespace
