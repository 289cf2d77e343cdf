// The planner as data: plan facts for given problems (width runs: test_width_runs.cpp; NaN scans and watches:
// test_plan_nan.cpp; strategies that read a window's input once for several outputs: test_plan_window_reuse.cpp;
// index multipliers and steps: test_plan_indices.cpp). Every expected value below is worked out by hand from the
// definitions in jit/plan/plan.hpp and DESIGN.md section 3.
#include "jit/plan/plan.hpp"
#include "jit/plan/plan_rows.hpp"
#include "support/plan_util.hpp"
#include "support/width_runs_string.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::testing::runs_string;

// ---- plan facts ----------------------------------------------------------------------------------------------

using pooljit::testing::plan_of;
using pooljit::testing::problem_of;

const std::string resnet_stem = "maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1";

TEST(PlanFacts, ResNetStemAvx512) {
    const jit::KernelPlan plan = plan_of(resnet_stem);
    EXPECT_EQ(plan.isa, jit::Isa::avx512);
    EXPECT_EQ(plan.strategy, jit::Strategy::nxc_channels);
    EXPECT_EQ(plan.dtype, pj::DType::f32);
    EXPECT_EQ(plan.compare, jit::CompareType::f32);
    EXPECT_TRUE(plan.is_float);
    EXPECT_EQ(plan.nan, pj::NanPolicy::propagate);
    EXPECT_EQ(plan.vector_bytes, 64);
    EXPECT_EQ(plan.lanes, 16);               // 64 bytes / 4
    EXPECT_EQ(plan.vectors_per_block, 4);    // 64 channels / 16 lanes
    EXPECT_EQ(plan.channel_block, 64);
    EXPECT_EQ(plan.channel_tail, 0);
    // out = (112 + 2 - 3) / 2 + 1 = 56. Output 0 starts at -1: taps 1, 2 are real. Output 55 starts at 109:
    // its last tap, 111, is the last element.
    EXPECT_EQ(plan.out_width, 56);
    EXPECT_EQ(plan.in_width, 112);
    EXPECT_EQ(plan.kernel_w, 3);
    EXPECT_EQ(plan.stride_w, 2);
    EXPECT_EQ(plan.dilation_w, 1);
    EXPECT_EQ(plan.pad_w, 1);
    EXPECT_EQ(runs_string(plan.width_runs), "[0,1):taps[1,3) [1,56):taps[0,3) ");
    EXPECT_TRUE(plan.unroll_width_taps);
    // A pixel is 64 channels x 4 bytes = 256 bytes.
    EXPECT_EQ(plan.src_step_w, 256);
    EXPECT_EQ(plan.src_tap_stride_w, 256);
    EXPECT_EQ(plan.src_out_stride_w, 512);
    EXPECT_EQ(plan.dst_out_stride_w, 256);
    EXPECT_EQ(plan.src_tap_stride_h, 112 * 256);
    EXPECT_EQ(plan.src_tap_stride_d, 0);
    EXPECT_FALSE(plan.has_indices);
}

TEST(PlanFacts, ResNetStemAvx2) {
    const jit::KernelPlan plan = plan_of(resnet_stem, jit::Isa::avx2);
    EXPECT_EQ(plan.isa, jit::Isa::avx2);
    EXPECT_EQ(plan.vector_bytes, 32);
    EXPECT_EQ(plan.lanes, 8);
    EXPECT_EQ(plan.vectors_per_block, 2);  // 16 ymm registers hold at most 2 vectors of accumulators and indices
    EXPECT_EQ(plan.channel_block, 16);
    EXPECT_EQ(plan.channel_tail, 0);       // 64 = 4 blocks of 16
    EXPECT_EQ(runs_string(plan.width_runs), "[0,1):taps[1,3) [1,56):taps[0,3) ");
}

TEST(PlanFacts, ChannelBlocksAndTails) {
    struct Row {
        std::int64_t channels;
        jit::Isa isa;
        const char* dtype;
        int vectors_per_block;
        std::int64_t channel_block, channel_tail;
    };
    // needed = ceil(C / lanes); vectors = clamp(needed, 1, an eighth of the registers: 4 on AVX-512 | 2 on AVX2);
    // block = min(vectors * lanes, C); tail = C mod block. These rows read 2.25 elements an element (bound by
    // memory): a tail goes where C splits into full + 1 equal blocks that load no more vectors a pixel.
    const Row rows[] = {
        {17, jit::Isa::avx512, "f32", 2, 17, 0},  // one block of 17: a full vector and a 1-lane partial one
        {17, jit::Isa::avx2, "f32", 2, 16, 1},    // 8 lanes: blocks of 16, one channel left over
        {65, jit::Isa::avx512, "f32", 4, 64, 1},
        {100, jit::Isa::avx512, "f32", 4, 64, 36},
        {1, jit::Isa::avx512, "f32", 1, 1, 0},
        {16, jit::Isa::avx512, "f32", 1, 16, 0},
        {65, jit::Isa::avx512, "f64", 4, 32, 1},  // 8 lanes of f64
        {33, jit::Isa::avx2, "s64", 2, 8, 1},     // 4 lanes of s64
        {40, jit::Isa::avx2, "u8", 2, 40, 0},     // u8 in 32 byte lanes on AVX2: a full vector and 8 lanes
        {40, jit::Isa::avx512, "u8", 1, 40, 0},   // u8 in 64 byte lanes on AVX-512: one partial vector
        {300, jit::Isa::avx512, "s8", 4, 256, 44},  // 300 = 2 x 150: 3 vectors each, 6 > 4 + 1
        {120, jit::Isa::avx2, "u8", 2, 60, 0},      // 64 + 56 (2 + 2 vectors) as 2 x 60 (2 + 2)
        {120, jit::Isa::avx512, "f32", 4, 60, 0},   // 64 + 56 (4 + 4) as 2 x 60 (4 + 4)
        {72, jit::Isa::avx2, "u8", 2, 64, 8},       // 2 x 36 would load 4 vectors a pixel, not 3
        {96, jit::Isa::avx2, "u8", 2, 64, 32},      // 2 x 48: 4, not 3
    };
    for (const Row& r : rows) {
        const std::string line = std::string("maxpool dt=") + r.dtype + " layout=nxc src=1x" + std::to_string(r.channels) +
                                 "x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1";
        SCOPED_TRACE(line + " on " + jit::to_string(r.isa));
        const jit::KernelPlan plan = plan_of(line, r.isa);
        EXPECT_EQ(plan.vectors_per_block, r.vectors_per_block);
        EXPECT_EQ(plan.channel_block, r.channel_block);
        EXPECT_EQ(plan.channel_tail, r.channel_tail);
    }
}

// Channels-last items of one or two vectors whose windows span at least 4 width taps take two chains of maxima a
// kernel row (KernelPlan::row_chains), f16 (its fast rows in f32 lanes) included; blocks of more vectors, indices,
// windows of 3 width taps and rows a ring serves keep one.
TEST(PlanFacts, ItemsOfFewVectorsTakeTwoChainsOfMaximaARow) {
    const auto chains = [](const std::string& line, jit::Isa isa) { return plan_of(line, isa).row_chains; };
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2}) {
        SCOPED_TRACE(jit::to_string(isa));
        EXPECT_EQ(chains("maxpool dt=f32 layout=nCx8c src=16x2048x7x7 k=7x7", isa), 2);
        EXPECT_EQ(chains("maxpool dt=u8 layout=nxc src=1x16x20x20 k=2x6 s=2x1", isa), 2);
        EXPECT_EQ(chains("maxpool dt=f32 layout=nxc src=16x2048x7x7 k=7x7", isa), 1);
        EXPECT_EQ(chains("maxpool dt=f32 layout=nCx8c src=16x2048x7x7 k=7x7 idx=s32", isa), 1);
        EXPECT_EQ(chains("maxpool dt=f16 layout=nCx8c src=16x2048x7x7 k=7x7", isa), 2);
        EXPECT_EQ(chains("maxpool dt=f32 layout=nCx8c src=16x2048x7x7 k=7x3", isa), 1);
    }
    EXPECT_EQ(chains("maxpool dt=f32 layout=nCx16c src=16x2048x7x7 k=7x7", jit::Isa::avx512), 2);
    EXPECT_EQ(chains("maxpool dt=f32 layout=nCx16c src=2x40x9x11 k=3x5 pb=1x2 pe=1x2", jit::Isa::avx512), 1);  // a ring
}

TEST(PlanFacts, ChannelsLastRowsBoundByComparesKeepTheirTailBlock) {
    // k3 s1 reads 9 elements an element: blocks stay as they are, 64 + 56.
    const jit::KernelPlan plan = plan_of("maxpool dt=u8 layout=nxc src=1x120x28x28 k=3x3 s=1x1 pb=1x1 pe=1x1", jit::Isa::avx2);
    EXPECT_EQ(plan.channel_block, 64);
    EXPECT_EQ(plan.channel_tail, 56);
}

TEST(PlanFacts, ChannelsLastIndicesInLongChainsTakeAFifthOfTheRegistersPerBlock) {
    const auto vectors = [](const std::string& line, jit::Isa isa) { return plan_of(line, isa).vectors_per_block; };
    // Rows bound by compares that separable pixels do not take (a dilation along the width, 1-D, 3-D) and
    // windows of 16 taps or more (a global pool): 3 ymm.
    EXPECT_EQ(vectors("maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2 idx=s64", jit::Isa::avx2), 3);
    EXPECT_EQ(vectors("maxpool dt=f32 layout=nxc src=1x256x1000 k=9 pb=4 pe=4 idx=s32", jit::Isa::avx2), 3);
    EXPECT_EQ(vectors("maxpool dt=f32 layout=nxc src=1x64x8x28x28 k=3x3x3 pb=1x1x1 pe=1x1x1 idx=s64", jit::Isa::avx2), 3);
    EXPECT_EQ(vectors("maxpool dt=u8 layout=nxc src=16x2048x7x7 k=7x7 idx=s64", jit::Isa::avx2), 3);
    // Short windows of rows bound by memory keep 2 (a third left SegNet a channel tail swept apart), as do
    // values without indices and planar rows.
    EXPECT_EQ(vectors("maxpool dt=u8 layout=nxc src=1x64x360x480 k=2x2 s=2x2 idx=s64", jit::Isa::avx2), 2);
    EXPECT_EQ(vectors("maxpool dt=f32 layout=nxc src=1x256x16000 k=3 s=2 idx=s64", jit::Isa::avx2), 2);
    EXPECT_EQ(vectors("maxpool dt=f32 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", jit::Isa::avx2), 2);
    EXPECT_EQ(vectors("maxpool dt=f32 layout=ncx src=1x256x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64", jit::Isa::avx2), 2);
    // AVX-512 keeps its most, 4 zmm, where the rows are not separable (a dilation along the width); SPP's
    // separable pixels take a cache line's channels, 1 zmm.
    EXPECT_EQ(vectors("maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2 idx=s64", jit::Isa::avx512), 4);
    EXPECT_EQ(vectors("maxpool dt=f32 layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64", jit::Isa::avx512), 1);
}

TEST(PlanFacts, ChannelsLastRowsBoundByMemorySweepSeveralBlocksPerCall) {
    const auto sweep = [](const std::string& dtype, std::int64_t channels, const std::string& window,
                          jit::Isa isa = jit::Isa::avx512) {
        return plan_of("maxpool dt=" + dtype + " layout=nxc src=1x" + std::to_string(channels) + "x14x14 " + window, isa)
            .channel_sweep;
    };
    // The largest divisor of the full blocks spanning at most 8 KiB: 2048 f32 channels are 32 blocks of 64.
    EXPECT_EQ(sweep("f32", 256, "k=2x2 s=2x2"), 4);
    EXPECT_EQ(sweep("f32", 200, "k=2x2 s=2x2"), 3);  // 3 full blocks; the tail of 8 is a call of its own
    EXPECT_EQ(sweep("f32", 2048, "k=7x7 s=7x7"), 32);
    EXPECT_EQ(sweep("f32", 4096, "k=2x2 s=2x2"), 32);
    EXPECT_EQ(sweep("f32", 64 * 7 * 5, "k=2x2 s=2x2"), 7);  // 35 blocks: 7 divides them, 32 does not
    EXPECT_EQ(sweep("f32", 64 * 37, "k=2x2 s=2x2"), 1);     // a prime count of blocks above the cap
    EXPECT_EQ(sweep("bf16", 256, "k=3x3 s=2x2 pb=1x1 pe=1x1"), 4);
    EXPECT_EQ(sweep("f32", 256, "k=2x2 s=2x2", jit::Isa::avx2), 16);  // blocks of 16 channels
    // Rows bound by compares keep one block per call, and planar rows have no channel blocks.
    EXPECT_EQ(sweep("f32", 256, "k=3x3 s=1x1 pb=1x1 pe=1x1"), 1);
    EXPECT_EQ(sweep("f32", 64, "k=2x2 s=2x2"), 1);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x256x14x14 k=2x2 s=2x2").channel_sweep, 1);
}

TEST(PlanFacts, ZeroChannelsStillHaveAPositiveBlock) {
    // C = 0 is allowed (execute is a no-op); a zero block would make a channel loop spin forever.
    const jit::KernelPlan plan = plan_of("maxpool dt=f32 layout=nxc src=1x0x5x5 k=2x2");
    EXPECT_GE(plan.channel_block, 1);
    EXPECT_EQ(plan.channel_tail, 0);
}

TEST(PlanFacts, LongOneDimensionalWindowLoopsOverTaps) {
    // out = (256 - 200) / 1 + 1 = 57, every window wholly inside the input.
    const jit::KernelPlan long_window = plan_of("maxpool dt=f32 layout=ncx src=1x1x256 k=200");
    EXPECT_FALSE(long_window.unroll_width_taps);
    EXPECT_EQ(long_window.kernel_w, 200);
    EXPECT_EQ(runs_string(long_window.width_runs), "[0,57):taps[0,200) ");
    EXPECT_EQ(long_window.src_tap_stride_h, 0);

    const jit::KernelPlan short_window = plan_of("maxpool dt=f32 layout=ncx src=1x1x256 k=3");
    EXPECT_TRUE(short_window.unroll_width_taps);
    EXPECT_EQ(runs_string(short_window.width_runs), "[0,254):taps[0,3) ");
}

// The most common count of real taps along h (and d) over the output rows is unrolled; the others loop.
TEST(PlanFacts, RowsWithTheMostCommonOuterTapsUnrollThem) {
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2}) {
        SCOPED_TRACE(jit::to_string(isa));
        // The stem: row 0 reads rows {0, 1} (pad 1), rows 1-55 three rows each (row 55: 109-111).
        const jit::KernelPlan stem = plan_of(resnet_stem, isa);
        EXPECT_EQ(stem.unrolled_taps_h, 3);
        EXPECT_EQ(stem.unrolled_taps_d, 0);
        // C3D: every output plane and row reads 2 input planes and 2 rows.
        const jit::KernelPlan c3d = plan_of("maxpool dt=f32 layout=nxc src=1x64x16x56x56 k=2x2x2 s=2x2x2", isa);
        EXPECT_EQ(c3d.unrolled_taps_d, 2);
        EXPECT_EQ(c3d.unrolled_taps_h, 2);
        // Adaptive 5 -> 3 rows: bins [0,2), [1,4), [3,5): two of 2 rows, one of 3.
        EXPECT_EQ(plan_of("adaptivemaxpool dt=f32 layout=nxc src=1x64x5x9 out=3x3", isa).unrolled_taps_h, 2);
        // 5x5 = 25 taps unroll; 6x6 = 36 pass the 32 taps of straight-line code and loop.
        EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x64x30x30 k=5x5 s=5x5", isa).unrolled_taps_h, 5);
        EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x64x30x30 k=6x6 s=6x6", isa).unrolled_taps_h, 0);
        // Windows of one row have no outer loop to unroll; 1-D rows have no outer axis.
        EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x64x30x30 k=1x3 s=1x2", isa).unrolled_taps_h, 0);
        EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x64x300 k=3 s=2", isa).unrolled_taps_h, 0);
        // Fast rows that are a ring's or separable rows' code, not items.
        EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2", isa).unrolled_taps_h, 0);
    }
}

TEST(PlanFacts, WindowsFarWiderThanTheInputAreComputedAtRunTime) {
    // One input element, kernel k, pads k - 1 on both sides: out = (1 + 2(k-1) - k) + 1 = k, and output o
    // holds the element at tap k-1-o, so every output is a run of its own: k runs.
    const std::int64_t cap = static_cast<std::int64_t>(jit::default_max_width_runs);
    const auto line = [](std::int64_t k) {
        return "maxpool dt=f32 layout=nxc src=1x1x1 k=" + std::to_string(k) + " pb=" + std::to_string(k - 1) +
               " pe=" + std::to_string(k - 1);
    };
    const jit::KernelPlan at_cap = plan_of(line(cap));
    ASSERT_EQ(at_cap.width_runs.size(), jit::default_max_width_runs);
    EXPECT_EQ(at_cap.width_runs.front(), (jit::WidthRun{0, 1, cap - 1, cap}));
    EXPECT_EQ(at_cap.width_runs.back(), (jit::WidthRun{cap - 1, cap, 0, 1}));
    EXPECT_FALSE(at_cap.computed_windows);
    EXPECT_EQ(at_cap.segments.size(), jit::default_max_width_runs);

    // Beyond the cap: every output's window is computed at run time; each one reaches the element.
    const jit::KernelPlan beyond = plan_of(line(cap + 1));
    EXPECT_TRUE(beyond.computed_windows);
    EXPECT_TRUE(beyond.segments.empty());
    jit::ComputedWindows expected;
    expected.computed = cap + 1;
    expected.stride = 1;
    expected.kernel = static_cast<std::uint64_t>(cap + 1);
    expected.dilation = 1;
    expected.pad = static_cast<std::uint64_t>(cap);
    expected.in = 1;
    EXPECT_EQ(beyond.walk, expected);
    EXPECT_FALSE(beyond.unroll_width_taps);

    // Pads beyond the kernel: out = 1 + 800 - 300 + 1 = 502. Outputs 0..100 end before the element
    // (o + 299 < 400) and outputs 401..501 start after it (o >= 401): stored empty without computing.
    const jit::KernelPlan padded = plan_of("maxpool dt=f32 layout=nxc src=1x1x1 k=300 pb=400 pe=400");
    ASSERT_TRUE(padded.computed_windows);
    EXPECT_EQ(padded.walk.empty_before, 101);
    EXPECT_EQ(padded.walk.computed, 300);
    EXPECT_EQ(padded.walk.empty_after, 101);
    EXPECT_EQ(padded.walk.first_padded_position, 101u);
}

TEST(PlanFacts, NcxLanesAreOutputsAlongTheWidth) {
    // out = 56; AVX-512 f32: 16 lanes, ceil(56/16) = 4 vectors, so an item holds up to 64 outputs.
    const jit::KernelPlan plan = plan_of("maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1");
    EXPECT_EQ(plan.strategy, jit::Strategy::ncx_width);
    EXPECT_EQ(plan.channel_block, 1);
    EXPECT_EQ(plan.vectors_per_block, 4);
    EXPECT_EQ(plan.src_step_w, 4);  // neighbouring positions are neighbouring elements
    EXPECT_EQ(plan.src_tap_stride_h, 112 * 4);
    // Run [0,1) (taps 1..2, first real position 0) and run [1,56) (3 taps from position 1, step 2): each is one
    // partial item, lanes 2 positions apart. The first one's whole registers (16 positions from 0) stay inside the
    // row; the second's (up to position 1 + 2 + 2*48 + 2*16 - 1 = 130) would not.
    ASSERT_EQ(plan.segments.size(), 2u);
    EXPECT_EQ(plan.segments[0], (jit::Segment{0, 1, 1, 2, 0, 0, 2, false, false, false, true}));
    EXPECT_EQ(plan.segments[1], (jit::Segment{1, 1, 55, 3, 1, 0, 2}));

    // A long row: full items of 64 outputs in a loop, then the rest.
    const jit::KernelPlan row = plan_of("maxpool dt=f32 layout=ncx src=1x1x1000 k=2 s=1");
    ASSERT_EQ(row.segments.size(), 2u);
    // 999 = 15 * 64 + 39; the full items read at most position 14*64 + 1 + 63 = 960, the last one up to 1008.
    EXPECT_EQ(row.segments[0], (jit::Segment{0, 15, 64, 2, 0, 64, 1, false, false, false, true}));
    EXPECT_EQ(row.segments[1], (jit::Segment{960, 1, 39, 2, 960, 0, 1}));
}

TEST(PlanFacts, NcxRowsPrefetchTheInputRowsTheyStepOverAboutTwelveKibAhead) {
    // Stem: an output row steps over 2 input rows of 112 f32 = 896 bytes, prefetched 14 output rows ahead
    // (12544 bytes, the first multiple of 896 past 12 KiB).
    const jit::KernelPlan stem = plan_of("maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1");
    EXPECT_EQ(stem.prefetch_bytes, 896);
    EXPECT_EQ(stem.prefetch_distance, 14 * 896);
    // 3-D: the rows along h of each d slice; u8 rows are 224 bytes; stride 1 (the ring's SPPF) steps one row.
    const jit::KernelPlan i3d = plan_of("maxpool dt=f32 layout=ncx src=1x64x32x112x112 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1");
    EXPECT_EQ(i3d.prefetch_bytes, 896);
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1").prefetch_bytes, 224);
    jit::PlanOptions rows;  // SPPF's rows (flat planes by the rules)
    rows.choice.planes = pj::PlanChoice::Switch::off;
    const jit::KernelPlan sppf = plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx512, rows);
    EXPECT_GT(sppf.ring_rows, 0);
    EXPECT_EQ(sppf.prefetch_bytes, 80);
    EXPECT_EQ(sppf.prefetch_distance, 154 * 80);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2).prefetch_bytes,
              896);
    // None: 1-D rows (the row is the plane), rows past 4 KiB per output row, channels last, planes in registers.
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x256x16000 k=3 s=2").prefetch_bytes, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x4x8x600 k=3x3 s=2x2").prefetch_bytes, 0);  // 4800 bytes
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x4x8x512 k=3x3 s=2x2").prefetch_bytes, 4096);
    // 2-D windows apart along h (VGG's k2 s2, SegNet) leave the streams to the hardware, unless a choice asks.
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x64x224x224 k=2x2 s=2x2").prefetch_bytes, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x64x57x57 k=3x3 s=3x3").prefetch_bytes, 0);
    jit::PlanOptions asked;
    asked.choice.prefetch_kib = 12;
    const jit::KernelPlan vgg_asked = plan_of("maxpool dt=f32 layout=ncx src=1x64x224x224 k=2x2 s=2x2", jit::Isa::avx2, asked);
    EXPECT_EQ(vgg_asked.prefetch_bytes, 1792);
    EXPECT_EQ(vgg_asked.prefetch_distance, 7 * 1792);
    // A stride whose product with the row's bytes passes 2^64 (wrapping to 0 once divided the planner by zero).
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x1x3x300 k=1x1 s=4611686018427387904x1").prefetch_bytes, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x1x3x300 k=1x1 s=9223372036854775807x1").prefetch_bytes, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1").prefetch_bytes, 0);
    const jit::KernelPlan pool5 = plan_of("maxpool dt=f32 layout=ncx src=1x512x14x14 k=2x2 s=2x2");
    EXPECT_EQ(pool5.strategy, jit::Strategy::ncx_planes);
    EXPECT_EQ(pool5.prefetch_bytes, 0);
}

// Channels-last 1-D rows that sweep channel blocks prefetch, after each block of an output, a line of each input
// pixel the output steps over, the first whole pixel 8 KiB or more past its window (AVX2 only: measured there),
// with indices too; not where a call holds one block, not beyond 4 KiB pixels or 4 pixels an output.
TEST(PlanFacts, ChannelsLastSweepsPrefetchTheirPixelsAboutEightKibAhead) {
    const char* const audio = "maxpool dt=f32 layout=nxc src=1x256x16000 k=3 s=2";
    const jit::KernelPlan avx2 = plan_of(audio, jit::Isa::avx2);
    ASSERT_GT(avx2.channel_sweep, 1);
    EXPECT_EQ(avx2.sweep_prefetch_pixels, 2);
    EXPECT_EQ(avx2.sweep_prefetch_pixel_bytes, 1024);
    EXPECT_EQ(avx2.sweep_prefetch_distance, 8192);
    EXPECT_EQ(plan_of("maxpool dt=bf16 layout=nxc src=1x192x301 k=4 s=3 pb=1 pe=2 round=ceil", jit::Isa::avx2)
                  .sweep_prefetch_distance,
              22 * 384);  // the first multiple of a 384-byte pixel past 8 KiB
    EXPECT_EQ(plan_of(audio, jit::Isa::avx512).sweep_prefetch_distance, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x256x16000 k=3 s=2 idx=s64", jit::Isa::avx2).sweep_prefetch_distance, 8192);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x256x16000 k=5 s=5", jit::Isa::avx2).sweep_prefetch_distance, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2)
                  .sweep_prefetch_distance,
              0);
    jit::PlanOptions off, near;
    off.choice.prefetch_kib = -1;
    near.choice.prefetch_kib = 3;
    EXPECT_EQ(plan_of(audio, jit::Isa::avx2, off).sweep_prefetch_distance, 0);
    EXPECT_EQ(plan_of(audio, jit::Isa::avx2, near).sweep_prefetch_distance, 3072);
}

// 3-D windows of several planes that no two output rows share take their prefetches inside the items (every
// plane's rows, where the row's burst took the first plane's); 2-D rows, windows of one plane and windows that
// overlap keep the burst.
TEST(PlanFacts, ThreeDimensionalWindowsApartPrefetchInsideTheirItems) {
    const auto in_items = [](const std::string& line) { return plan_of(line, jit::Isa::avx2).prefetch_in_items; };
    EXPECT_TRUE(in_items("maxpool dt=f32 layout=ncx src=1x128x16x56x56 k=2x2x2 s=2x2x2"));
    EXPECT_TRUE(in_items("maxpool dt=u8 layout=ncx src=1x128x16x56x56 k=2x2x2 s=2x2x2 idx=s32"));
    EXPECT_FALSE(in_items("maxpool dt=f32 layout=ncx src=1x64x224x224 k=2x2 s=2x2"));
    EXPECT_FALSE(in_items("maxpool dt=f32 layout=ncx src=1x64x32x112x112 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1"));
    EXPECT_FALSE(in_items("maxpool dt=f32 layout=ncx src=1x4x9x16x56 k=3x2x2 s=2x2x2"));
    EXPECT_FALSE(in_items("maxpool dt=f32 layout=nxc src=1x128x16x56x56 k=2x2x2 s=2x2x2"));
}

TEST(PlanFacts, LongChannelsLastRowsMayBeComputedInPieces) {
    // The audio row (7999 outputs) on both ISAs, a 2-D row, and 64 outputs, the shortest that may be split.
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=nxc src=1x256x16000 k=3 s=2").width_ranges);
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x256x16000 k=3 s=2", jit::Isa::avx2).width_ranges);
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x64x2x300 k=2x3").width_ranges);
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x8x64 k=1").width_ranges);
    // Not: 63 outputs, planar rows, adaptive rows, windows computed at run time, a stride of 2^40.
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=nxc src=1x8x63 k=1").width_ranges);
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x256x16000 k=3 s=2").width_ranges);
    EXPECT_FALSE(plan_of("adaptivemaxpool dt=f32 layout=nxc src=1x33x1000 out=600").width_ranges);
    const jit::KernelPlan computed = plan_of("maxpool dt=f32 layout=nxc src=1x17x100 k=300 pb=299 pe=299");
    EXPECT_TRUE(computed.computed_windows);
    EXPECT_FALSE(computed.width_ranges);
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=nxc src=1x8x70 k=1 s=1099511627776 pe=1099511627776000").width_ranges);
}

TEST(PlanFacts, NcxFastRowsShareItemsBetweenBorderAndInteriorOutputs) {
    // SPPF's 5x5 stride 1 pad 2 on a 20-wide row: five segments (two border outputs on each side), but the fast
    // rows take all 20 outputs as one masked item (two vectors) whose tap 0 sits at position -2.
    const std::string sppf = "maxpool dt=f32 layout=ncx src=1x1x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2";
    const jit::KernelPlan plan = plan_of(sppf);
    EXPECT_EQ(plan.segments.size(), 5u);
    jit::Segment whole{0, 1, 20, 5, -2, 32, 1};  // items of 2 vectors x 16 lanes
    whole.masked = true;
    ASSERT_EQ(plan.fast_segments.size(), 1u);
    EXPECT_EQ(plan.fast_segments[0], whole);
    // A long row: masked items at both ends, the interior items in between as one plain looped segment.
    const jit::KernelPlan row = plan_of("maxpool dt=f32 layout=ncx src=1x1x300 k=3 s=1 pb=1 pe=1");
    ASSERT_EQ(row.fast_segments.size(), 3u);
    EXPECT_TRUE(row.fast_segments[0].masked);
    EXPECT_EQ(row.fast_segments[1], (jit::Segment{64, 3, 64, 3, 63, 64, 1}));  // outputs [64, 256), all interior
    EXPECT_TRUE(row.fast_segments[2].masked);
    EXPECT_EQ(row.fast_segments[2].out_begin, 256);
    EXPECT_EQ(row.fast_segments[2].outputs_per_item, 44);
    // f16 too (its fast rows in f32 lanes, converted back at the store); not for AVX2 (no opmasks), nxc, or rows
    // with empty windows.
    EXPECT_TRUE(plan_of(sppf, jit::Isa::avx2).fast_segments.empty());
    EXPECT_FALSE(plan_of("maxpool dt=f16 layout=ncx src=1x1x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2").fast_segments.empty());
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x1x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2").fast_segments.empty());
    for (const jit::Segment& s : plan_of("maxpool dt=f32 layout=ncx src=1x1x3x8 k=2x2 s=1x1 pb=3x3 pe=3x3").fast_segments)
        EXPECT_FALSE(s.masked);
}

TEST(PlanFacts, ChannelsLastBytesWithoutIndicesCompareInByteLanes) {
    const jit::KernelPlan u8 = plan_of("maxpool dt=u8 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1");
    EXPECT_EQ(u8.compare, jit::CompareType::u8);
    EXPECT_EQ(u8.lanes, 64);
    EXPECT_EQ(u8.channel_block, 64);
    EXPECT_EQ(plan_of("maxpool dt=s8 layout=nxc src=1x64x9x9 k=3x3").compare, jit::CompareType::s8);
    // AVX2 has a byte max too: 32 channels a vector, two vectors a block.
    const jit::KernelPlan narrow = plan_of("maxpool dt=u8 layout=nxc src=1x70x9x9 k=3x3", jit::Isa::avx2);
    EXPECT_EQ(narrow.compare, jit::CompareType::u8);
    EXPECT_EQ(narrow.lanes, 32);
    EXPECT_EQ(narrow.channel_block, 64);
    EXPECT_EQ(narrow.channel_tail, 6);
    // With indices, or planar without byte bands, the bytes are widened to 32-bit lanes as before; the AVX2 form's
    // byte bands compare planar bytes in bytes (test_byte_shuffle_bands.cpp).
    jit::PlanOptions no_bands;
    no_bands.choice.bands = pj::PlanChoice::Switch::off;
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2}) {
        EXPECT_EQ(plan_of("maxpool dt=u8 layout=nxc src=1x64x9x9 k=3x3 idx=s32", isa).compare, jit::CompareType::s32);
        EXPECT_EQ(plan_of("maxpool dt=u8 layout=ncx src=1x64x9x9 k=3x3", isa, no_bands).compare, jit::CompareType::s32);
    }
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=ncx src=1x64x9x9 k=3x3", jit::Isa::avx2).compare, jit::CompareType::u8);
}

// Planar items whose loads at a whole register's width stay inside the input row load whole registers; the
// row's last items, whose registers would pass the row's end, keep exact loads. The stem's u8 rows on AVX2
// (56 outputs, items of 16 lanes two positions apart, 8 lanes a vector; widened, as where byte rows do not take
// them): items start at positions 2*16*i - 1; an item reads its last pair's registers up to position first +
// 2*8 + 2*8 - 1 + (taps - 1).
TEST(PlanFacts, NcxItemsLoadWholeRegistersInsideTheRow) {
    const jit::KernelPlan plan = plan_of("maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                         jit::Isa::avx2, jit::PlanOptions{.no_byte_rows = true});
    ASSERT_FALSE(plan.segments.empty());
    for (const jit::Segment& s : plan.segments) {
        SCOPED_TRACE("segment at output " + std::to_string(s.out_begin));
        const std::int64_t last_pair = (s.outputs_per_item - 1) / plan.lanes * plan.lanes;
        const std::int64_t last = s.first_position + (s.repeat - 1) * s.item_step + (s.taps - 1) + 2 * last_pair + 2 * 8 - 1;
        EXPECT_EQ(s.whole_register_loads, s.first_position >= 0 && last < 112) << last;
    }
    EXPECT_TRUE(plan.segments.front().whole_register_loads || plan.segments.size() > 2);
    EXPECT_FALSE(plan.segments.back().whole_register_loads);  // the row's end
    // VGG pool1 (112 outputs, 7 items of 16): item i reads up to position 32 i + 1 + 16 + 16 - 1, so the loop
    // splits after 6 items.
    const jit::KernelPlan vgg = plan_of("maxpool dt=bf16 layout=ncx src=1x64x224x224 k=2x2 s=2x2", jit::Isa::avx2);
    ASSERT_EQ(vgg.segments.size(), 2u);
    EXPECT_EQ(vgg.segments[0], (jit::Segment{0, 6, 16, 2, 0, 32, 2, false, false, false, true}));
    // The last item's exact loads: every load has the row's element before it (its first tap is at 192).
    EXPECT_EQ(vgg.segments[1], (jit::Segment{96, 1, 16, 2, 192, 32, 2, false, false, false, false, true, true, true}));
    // Half vectors beside 64-bit index lanes keep exact loads.
    const jit::KernelPlan half = jit::make_plan(pj::resolve(pj::parse_max_pool(
                                                    "maxpool dt=f32 layout=ncx src=1x4x9x120 k=3x3 s=1x1 idx=s64")),
                                                jit::Isa::avx2, jit::PlanOptions{.wide_index_lanes = true});
    for (const jit::Segment& s : half.segments) EXPECT_FALSE(s.whole_register_loads);
}

// Without opmasks, taps-as-lanes rows blend the lanes past the window out at every row, so they load a whole
// register where the input row holds one. Adaptive 13 -> 3 along the width: windows [0,5) [4,9) [8,13), one
// load of 8 lanes a row from the window's start: the first two items stay inside the row, the third would
// read positions 8 .. 15 and keeps its exact load.
TEST(PlanFacts, Avx2TapsAsLanesLoadWholeRegistersInsideTheRow) {
    const jit::KernelPlan bins = plan_of("adaptivemaxpool dt=bf16 layout=ncx src=1x256x13x13 out=3x3", jit::Isa::avx2);
    jit::Segment inside{0, 2, 1, 5, 0, 4, 0};
    inside.taps_as_lanes = true;
    inside.whole_register_loads = true;
    jit::Segment last{2, 1, 1, 5, 8, 4, 0};
    last.taps_as_lanes = true;
    ASSERT_EQ(bins.fast_segments.size(), 2u);
    EXPECT_EQ(bins.fast_segments[0], inside);
    EXPECT_EQ(bins.fast_segments[1], last);
    // With opmasks the lanes past the window are never loaded.
    for (const jit::Segment& s : plan_of("adaptivemaxpool dt=bf16 layout=ncx src=1x256x13x13 out=3x3").fast_segments)
        EXPECT_FALSE(s.whole_register_loads);
}

// Items of lanes 2 positions apart with exact loads say what the row holds around their first load (tap 0, first
// vector), so that an even-element load can take whole dwords or words. Adaptive 13 -> 7 along the width:
// outputs 1 .. 5 start at 1, 3, .. 9 (an element before: position 0); adaptive 13 -> 6: outputs start at 0,
// 2, .. 10 (none before; after the last lane's first tap, 10, comes 11).
TEST(PlanFacts, EvenElementLoadsKnowTheRoomAroundTheirFirstLoad) {
    const auto stride_two = [](const std::string& line) {
        for (const jit::Segment& s : plan_of(line, jit::Isa::avx2).segments)
            if (s.lane_step == 2 && s.outputs_per_item > 1) return s;
        return jit::Segment{};
    };
    const jit::Segment seven = stride_two("adaptivemaxpool dt=bf16 layout=ncx src=1x512x13x13 out=7x7");
    EXPECT_EQ(seven.first_position, 1);
    EXPECT_TRUE(seven.element_before_later_loads && seven.element_before_first_load);
    // (With indices: without them, AVX2 takes these even bins as their max pool's byte pairs.)
    const jit::Segment six = stride_two("adaptivemaxpool dt=u8 layout=ncx src=1x256x13x13 out=6x6 idx=s64");
    EXPECT_EQ(six.first_position, 0);
    EXPECT_TRUE(six.element_before_later_loads);
    EXPECT_FALSE(six.element_before_first_load);
    EXPECT_TRUE(six.element_after_first_load);
    // VGG pool5's 7 outputs of 14: the first load starts the row and its last lane's tap, 12, has 13 after it (with
    // indices: without them, AVX2 takes the rows as byte pairs).
    const jit::Segment pool5 = stride_two("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2 idx=s32");
    EXPECT_FALSE(pool5.element_before_first_load);
    EXPECT_TRUE(pool5.element_after_first_load);
    // f32 deinterleaves its pairs (no even-element loads), and AVX-512 loads its spans under opmasks.
    EXPECT_FALSE(stride_two("maxpool dt=f32 layout=ncx src=1x512x14x14 k=2x2 s=2x2").element_before_later_loads);
    for (const jit::Segment& s : plan_of("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2").segments)
        EXPECT_FALSE(s.element_before_later_loads);
}

// Planar lanes at stride 2 take two neighbouring width taps from one pair of loads, for data loaded as stored and
// bf16 (on AVX-512 in plain items); not bytes, not with indices or a width dilation, not at stride 1, not where
// the fast row keeps maxima of its own (the stem's separable rows).
TEST(PlanFacts, PlanarLanesAtStrideTwoTakeTwoTapsFromOnePairOfLoads) {
    const auto tap_pairs = [](const std::string& line, jit::Isa isa) { return plan_of(line, isa).paired_tap_loads; };
    const std::string vgg = "maxpool dt=f32 layout=ncx src=1x64x224x224 k=2x2 s=2x2";
    EXPECT_TRUE(tap_pairs(vgg, jit::Isa::avx2));
    EXPECT_TRUE(tap_pairs("maxpool dt=f64 layout=ncx src=1x8x16000 k=3 s=2", jit::Isa::avx2));
    EXPECT_TRUE(tap_pairs(vgg, jit::Isa::avx512));
    EXPECT_TRUE(tap_pairs("maxpool dt=bf16 layout=ncx src=1x64x224x224 k=2x2 s=2x2", jit::Isa::avx512));
    EXPECT_FALSE(tap_pairs(vgg + " idx=s64", jit::Isa::avx2));
    // bf16 pairs its even elements widened in place (one load of whole dwords, taps low and high; AVX-512 beside
    // its even-word loads); bytes do not.
    EXPECT_TRUE(tap_pairs("maxpool dt=bf16 layout=ncx src=1x64x224x224 k=2x2 s=2x2", jit::Isa::avx2));
    EXPECT_FALSE(tap_pairs("maxpool dt=u8 layout=ncx src=1x64x224x224 k=2x2 s=2x2", jit::Isa::avx2));
    EXPECT_FALSE(tap_pairs("maxpool dt=f32 layout=ncx src=1x64x224x224 k=2x2 s=2x2 d=1x2", jit::Isa::avx2));
    EXPECT_FALSE(tap_pairs("maxpool dt=f32 layout=ncx src=1x64x224x224 k=2x2 s=2x1", jit::Isa::avx2));
    EXPECT_FALSE(tap_pairs("maxpool dt=f32 layout=nxc src=1x64x224x224 k=2x2 s=2x2", jit::Isa::avx2));
    EXPECT_FALSE(tap_pairs("maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2));
}

TEST(PlanFacts, WidePixelsComputeLongWindowsInTapPasses) {
    // Global 7x7 of 2048 channels: every h row's 7 width taps one pass over the call's 128 (AVX2: 16-channel
    // blocks of 8 KiB pixels) or 32 (AVX-512: 64-channel) blocks.
    for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512}) {
        const jit::KernelPlan global = plan_of("maxpool dt=f32 layout=nxc src=16x2048x7x7 k=7x7", isa);
        EXPECT_EQ(global.tap_pass_taps, 8) << jit::to_string(isa);
        EXPECT_EQ(global.channel_sweep * global.channel_block, 2048) << jit::to_string(isa);
    }
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=nxc src=1x1024x1024 k=1024").tap_pass_taps, 8);  // 1 KiB pixels
    EXPECT_EQ(plan_of("maxpool dt=bf16 layout=nxc src=1x512x28x28 k=5x5 s=4x4").tap_pass_taps, 8);
    // f16 keeps its partial maxima in the output as f16, exactly (its fast rows hold no NaN).
    EXPECT_EQ(plan_of("maxpool dt=f16 layout=nxc src=16x2048x7x7 k=7x7").tap_pass_taps, 8);
    // Indices beside 32-bit compare lanes: their lanes wait on the stack between passes (8 KiB for the call's
    // 2048 channels), u8 widened to 32-bit lanes as well.
    for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512}) {
        EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=16x2048x7x7 k=7x7 idx=s64", isa).tap_pass_taps, 8);
        EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x1024x1024 k=1024 idx=s32", isa).tap_pass_taps, 8);
        EXPECT_EQ(plan_of("maxpool dt=u8 layout=nxc src=16x2048x7x7 k=7x7 idx=s64", isa).tap_pass_taps, 8);
        // 64-bit compare lanes take 64-bit index lanes: blocks.
        EXPECT_EQ(plan_of("maxpool dt=f64 layout=nxc src=16x2048x7x7 k=7x7 idx=s64", isa).tap_pass_taps, 0);
    }
    // A choice of separable pixels makes calls of one block: no passes left (tests/emit: they would size the frame).
    jit::PlanOptions separable;
    separable.choice.reuse = pj::PlanChoice::Reuse::separable;
    const jit::KernelPlan pixels = plan_of("maxpool dt=f32 layout=nxc src=1x512x28x28 k=5x5 s=4x4 idx=s32", jit::Isa::avx2, separable);
    EXPECT_TRUE(pixels.separable.enabled());
    EXPECT_EQ(pixels.channel_sweep, 1);
    EXPECT_EQ(pixels.tap_pass_taps, 0);
    // Declined: pixels under 1 KiB, 3 width taps a pass (k3 s2 ran 0.5-1.0x), one pass, dense windows (compare
    // bound, one block a call).
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=16x128x7x7 k=7x7").tap_pass_taps, 0);
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=nxc src=16x512x7x7 k=7x7").tap_pass_taps, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x1024x28x28 k=3x3 s=2x2").tap_pass_taps, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x1024x28x28 k=1x8 s=1x8").tap_pass_taps, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x2048x20x20 k=5x5 pb=2x2 pe=2x2").tap_pass_taps, 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x2048x7x7 k=7x7").tap_pass_taps, 0);
}

TEST(PlanFacts, AdaptiveWindowsBecomeSegmentsOrComputedWindows) {
    // 224 -> 7: windows [32o, 32o + 32), one segment of 7 outputs stepping by 32 along the width.
    const jit::KernelPlan even = plan_of("adaptivemaxpool dt=f32 layout=nxc src=1x8x224x224 out=7x7");
    ASSERT_FALSE(even.computed_windows);
    ASSERT_EQ(even.segments.size(), 1u);
    EXPECT_EQ(even.segments[0], (jit::Segment{0, 7, 1, 32, 0, 32, 0}));
    EXPECT_FALSE(even.unroll_width_taps);  // 32 taps loop
    // 5 -> 3: [0,2) [1,4) [3,5): sizes 2, 3, 2, so three segments.
    const jit::KernelPlan uneven = plan_of("adaptivemaxpool dt=f32 layout=nxc src=1x8x5 out=3");
    ASSERT_EQ(uneven.segments.size(), 3u);
    EXPECT_EQ(uneven.segments[1], (jit::Segment{1, 1, 1, 3, 1, 0, 0}));
    EXPECT_EQ(uneven.segments[2], (jit::Segment{2, 1, 1, 2, 3, 0, 0}));
    // An irregular pattern over many outputs: windows computed at run time, at any row length.
    for (const char* line : {"adaptivemaxpool dt=f32 layout=ncx src=1x1x1000 out=600",
                             "adaptivemaxpool dt=f32 layout=ncx src=1x1x100003 out=70001"}) {
        SCOPED_TRACE(line);
        const jit::KernelPlan irregular = plan_of(line);
        EXPECT_TRUE(irregular.computed_windows);
        EXPECT_TRUE(irregular.segments.empty());
        EXPECT_TRUE(irregular.walk.adaptive);
        EXPECT_EQ(irregular.walk.in, static_cast<std::uint64_t>(irregular.in_width));
        EXPECT_EQ(irregular.walk.out, static_cast<std::uint64_t>(irregular.out_width));
        EXPECT_EQ(irregular.walk.computed, irregular.out_width);
        EXPECT_EQ(irregular.walk.empty_before + irregular.walk.empty_after, 0);
    }
}

TEST(PlanFacts, CompareTypeAndLanesPerDtype) {
    struct Row {
        const char* dtype;
        jit::CompareType compare;
        bool is_float;
        int lanes_avx512, lanes_avx2;
    };
    // Narrow types are widened to 32-bit lanes; 64-bit types take 64-bit lanes. (u8 and s8 without indices,
    // channels last, on AVX-512 compare in byte lanes: ChannelsLastBytesWithoutIndicesCompareInByteLanes.)
    const Row rows[] = {
        {"f32", jit::CompareType::f32, true, 16, 8},  {"f64", jit::CompareType::f64, true, 8, 4},
        {"f16", jit::CompareType::f32, true, 16, 8},  {"bf16", jit::CompareType::f32, true, 16, 8},
        {"s8", jit::CompareType::s32, false, 16, 8},  {"u8", jit::CompareType::s32, false, 16, 8},
        {"s32", jit::CompareType::s32, false, 16, 8}, {"s64", jit::CompareType::s64, false, 8, 4},
    };
    for (const Row& r : rows) {
        const std::string line = std::string("maxpool dt=") + r.dtype + " layout=nxc src=1x64x9x9 k=2x2 idx=s64";
        SCOPED_TRACE(line);
        const jit::KernelPlan wide = plan_of(line, jit::Isa::avx512);
        const jit::KernelPlan narrow = plan_of(line, jit::Isa::avx2);
        EXPECT_EQ(wide.compare, r.compare);
        EXPECT_EQ(narrow.compare, r.compare);
        EXPECT_EQ(wide.is_float, r.is_float);
        EXPECT_EQ(wide.lanes, r.lanes_avx512);
        EXPECT_EQ(narrow.lanes, r.lanes_avx2);
        EXPECT_EQ(wide.vector_bytes, 64);
        EXPECT_EQ(narrow.vector_bytes, 32);
    }
}

TEST(PlanFacts, ByteStridesOfNarrowThreeDimensionalInput) {
    // f16, 3 channels: a pixel is 6 bytes. In 4x5x6, a step along H is 6 pixels and along D 5 x 6 pixels.
    const jit::KernelPlan plan = plan_of("maxpool dt=f16 layout=nxc src=1x3x4x5x6 k=2x2x2 s=1x1x2 d=2x1x1");
    EXPECT_EQ(plan.src_step_w, 6);
    EXPECT_EQ(plan.src_tap_stride_w, 6);
    EXPECT_EQ(plan.src_out_stride_w, 12);
    EXPECT_EQ(plan.dst_out_stride_w, 6);
    EXPECT_EQ(plan.src_tap_stride_h, 36);
    EXPECT_EQ(plan.src_tap_stride_d, 2 * 180);
}

TEST(PlanFacts, PlanIsPureAndIgnoresBatch) {
    // N is a run-time argument, outside the cache key: the plan may not depend on it.
    const std::string rest = "x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64";
    const jit::KernelPlan one = plan_of("maxpool dt=f32 layout=nxc src=1" + rest);
    EXPECT_EQ(one, plan_of("maxpool dt=f32 layout=nxc src=1" + rest));
    EXPECT_EQ(one, plan_of("maxpool dt=f32 layout=nxc src=8" + rest));
}

// ---- printing ------------------------------------------------------------------------------------------------

TEST(PlanString, NamesTheKeyFacts) {
    const std::string text = jit::to_string(plan_of(resnet_stem));
    for (const char* fact : {"isa=avx512", "strategy=nxc_channels", "dtype=f32", "compare=f32", "lanes=16",
                             "channel_block=64", "channel_tail=0", "out_width=56", "[0,1):taps[1,3)", "[1,56):taps[0,3)"})
        EXPECT_NE(text.find(fact), std::string::npos) << "missing " << fact << " in: " << text;
    EXPECT_EQ(text.find("indices="), std::string::npos) << text;

    // 2-D: N=2, C=3, H=5, W=7, column-major indices: multipliers 1 (h) and 5 (w), channels 35 apart.
    const std::string with_indices =
        jit::to_string(plan_of("maxpool dt=f32 layout=nxc src=2x3x5x7 k=2x2 s=1x2 d=2x3 idx=s32 order=col"));
    for (const char* fact : {"indices=s32", "index_lanes=32", "index_mult=1,5,0", "channel_index_stride=35"})
        EXPECT_NE(with_indices.find(fact), std::string::npos) << "missing " << fact << " in: " << with_indices;
    // The facts are the first line; every later line is one choose_* step's decision.
    std::size_t at = with_indices.find('\n');
    ASSERT_NE(at, std::string::npos) << with_indices;
    EXPECT_EQ(with_indices.substr(0, at).find("choice"), std::string::npos);
    for (; at != std::string::npos; at = with_indices.find('\n', at + 1))
        EXPECT_EQ(with_indices.compare(at + 1, 7, "choice "), 0) << with_indices.substr(at + 1);
}

// Each choose_* step says what it chose or why it declined, and no step names the ISA: the reasons are about what
// the trait can do (POOLJIT_VERBOSE=2 prints them).
TEST(PlanChoices, StepsSayWhatTheyChoseOrWhyTheyDeclined) {
    const auto choices = [](const std::string& line, jit::Isa isa) {
        std::string all;
        for (const std::string& c : plan_of(line, isa).choices) all += c + "\n";
        return all;
    };
    const std::string sppf = "maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2";
    EXPECT_NE(choices(sppf, jit::Isa::avx512).find("row_ring: 5 rows"), std::string::npos) << choices(sppf, jit::Isa::avx512);
    const std::string global_f16 = "maxpool dt=f16 layout=ncx src=1x8x20x20 k=3x3 s=1x1 pb=1x1 pe=1x1";
    EXPECT_NE(choices(global_f16, jit::Isa::avx512).find("separable_rows: no, a ring of row maxima in registers took the rows"),
              std::string::npos)
        << choices(global_f16, jit::Isa::avx512);
    const std::string u8_nxc = "maxpool dt=u8 layout=nxc src=1x64x20x20 k=3x3 s=2x2 idx=s64";
    EXPECT_NE(choices(u8_nxc, jit::Isa::avx512).find("byte_lanes: no, indices need 32-bit lanes beside the values"),
              std::string::npos)
        << choices(u8_nxc, jit::Isa::avx512);
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2})
        for (const std::string& line : {sppf, global_f16, u8_nxc}) {
            const std::string text = choices(line, isa);
            EXPECT_FALSE(text.empty()) << line;
            EXPECT_EQ(text.find("avx"), std::string::npos) << text;
            EXPECT_EQ(text.find("AVX"), std::string::npos) << text;
        }
}

}  // namespace

namespace {

// A window's span along an axis, (k - 1) * d + 1, compared without overflow (kernels and dilations near 2^62).
TEST(PlanFacts, WindowSpansCompareWithoutOverflow) {
    const pooljit::Problem dilated = problem_of("maxpool src=1x1x20x20 k=3x3 d=2x1");
    EXPECT_TRUE(jit::window_spans_at_least(dilated, 0, 5));
    EXPECT_FALSE(jit::window_spans_at_least(dilated, 0, 6));
    EXPECT_TRUE(jit::window_spans_at_least(dilated, 1, 3));
    EXPECT_FALSE(jit::window_spans_at_least(dilated, 1, 4));
    const pooljit::Problem one = problem_of("maxpool src=1x1x20x20 k=1x2");
    EXPECT_FALSE(jit::window_spans_at_least(one, 0, 2));
    EXPECT_TRUE(jit::window_spans_at_least(one, 0, 1));
    pooljit::Problem huge = dilated;  // a resolved problem's fields set past what a tensor could hold
    huge.kernel[0] = std::int64_t{1} << 62;
    huge.dilation[0] = std::int64_t{1} << 62;
    EXPECT_TRUE(jit::window_spans_at_least(huge, 0, std::numeric_limits<std::int64_t>::max()));
    huge.kernel[0] = 2;
    EXPECT_FALSE(jit::window_spans_at_least(huge, 0, std::numeric_limits<std::int64_t>::max()));
    EXPECT_TRUE(jit::window_spans_at_least(huge, 0, (std::int64_t{1} << 62) + 1));
}

}  // namespace

namespace {

// Byte planes (jit/plan/plan_items.cpp): the vector is the widest the plane holds, and the plane's loads go to
// 1, 2 or 4 chains, a loop beyond 16 whole vectors, a shared routine beyond 4 loads.
TEST(PlanFacts, BytePlanesTakeTheWidestVectorThePlaneHoldsAndChainTheirLoads) {
    const jit::KernelPlan global = plan_of("maxpool dt=u8 layout=ncx src=16x2048x7x7 k=7x7", jit::Isa::avx512);
    ASSERT_TRUE(global.byte_planes.enabled());
    EXPECT_EQ(global.byte_planes.vector_bytes, 32);  // 49 bytes: one ymm and one overlapping it
    EXPECT_EQ(global.byte_planes.loads(), 2);
    EXPECT_EQ(global.byte_planes.chains, 2);
    EXPECT_EQ(global.byte_planes.loop_passes, 0);
    EXPECT_FALSE(global.byte_planes.shared_routine);
    const jit::KernelPlan pointnet = plan_of("maxpool dt=s8 layout=ncx src=1x1024x1024 k=1024", jit::Isa::avx2);
    ASSERT_TRUE(pointnet.byte_planes.enabled());
    EXPECT_EQ(pointnet.byte_planes.vector_bytes, 32);
    EXPECT_EQ(pointnet.byte_planes.chains, 4);
    EXPECT_EQ(pointnet.byte_planes.loop_passes, 7);  // 32 whole vectors: 4, then 7 passes of 4
    EXPECT_TRUE(pointnet.byte_planes.shared_routine);
    EXPECT_EQ(plan_of("adaptivemaxpool dt=u8 layout=ncx src=1x256x13x13 out=1x1", jit::Isa::avx512).byte_planes.vector_bytes, 64);
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=ncx src=1x3x5x6 k=5x6", jit::Isa::avx2).byte_planes.vector_bytes, 16);
    // Not byte planes: indices, planes of fewer than 16 bytes, the choice planes=off, wider data.
    EXPECT_FALSE(plan_of("maxpool dt=u8 layout=ncx src=1x3x7x7 k=7x7 idx=s32").byte_planes.enabled());
    EXPECT_FALSE(plan_of("maxpool dt=u8 layout=ncx src=1x3x3x3 k=3x3").byte_planes.enabled());
    jit::PlanOptions off;
    off.choice.planes = pj::PlanChoice::Switch::off;
    EXPECT_FALSE(plan_of("maxpool dt=u8 layout=ncx src=1x3x7x7 k=7x7", jit::Isa::avx2, off).byte_planes.enabled());
    EXPECT_FALSE(plan_of("maxpool dt=bf16 layout=ncx src=1x3x7x7 k=7x7").byte_planes.enabled());
}

}  // namespace
