// The planner as data, for the strategies that read a window's input once for several outputs: planes in
// registers, whole planes as one span, separable rows and pixels, row and column rings, taps as lanes. Every
// expected value is worked out by hand from the definitions in jit/plan/plan.hpp and DESIGN.md section 3.
#include "jit/plan/plan.hpp"
#include "support/plan_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::testing::bands_off;
using pooljit::testing::plan_of;

// Planes in registers: for each output vector (outputs flat across the plane's rows) and each tap ordinal, the
// permutes' lanes must read exactly the window's taps in scan order, worked out here from the window definition
// (VGG pool5: output (oh, ow), tap (kh, kw) reads element (2 oh + kh) * 14 + 2 ow + kw; with a pad of 1 and ceil
// rounding, the taps inside the input), each lane once per ordinal, from registers of the plane.
void expect_gathers_read_the_windows(const jit::KernelPlan& plan, std::int64_t in_h, std::int64_t in_w, std::int64_t out_h,
                                     std::int64_t out_w, std::int64_t k, std::int64_t s, std::int64_t pad) {
    ASSERT_EQ(plan.strategy, jit::Strategy::ncx_planes);
    EXPECT_EQ(plan.plane.elements, in_h * in_w);
    EXPECT_EQ(plan.plane.outputs, out_h * out_w);
    EXPECT_EQ(plan.plane.registers, (in_h * in_w + plan.lanes - 1) / plan.lanes);
    // read[o] lists the elements output o's lanes received, ordinal by ordinal.
    std::vector<std::vector<std::int64_t>> read(static_cast<std::size_t>(out_h * out_w));
    int last_vector = 0, last_tap = 0;
    std::uint64_t seen_this_tap = 0;
    for (const jit::PlaneGather& g : plan.plane.gathers) {
        ASSERT_GE(g.first, 0);
        ASSERT_LT(g.second, plan.plane.registers);
        ASSERT_TRUE(g.vector > last_vector || (g.vector == last_vector && g.tap >= last_tap)) << "gathers out of order";
        if (g.vector != last_vector || g.tap != last_tap) seen_this_tap = 0;
        EXPECT_EQ(g.lanes_mask & seen_this_tap, 0u) << "a lane read twice for one tap";
        seen_this_tap |= g.lanes_mask;
        last_vector = g.vector;
        last_tap = g.tap;
        for (int j = 0; j < plan.lanes; ++j) {
            if (!(g.lanes_mask >> j & 1)) continue;
            const std::int64_t o = std::int64_t{g.vector} * plan.lanes + j;
            ASSERT_LT(o, out_h * out_w);
            const std::int32_t src = g.source[static_cast<std::size_t>(j)];
            const std::int64_t element = std::int64_t{src < plan.lanes ? g.first : g.second} * plan.lanes + src % plan.lanes;
            auto& list = read[static_cast<std::size_t>(o)];
            EXPECT_EQ(static_cast<std::int64_t>(list.size()), g.tap) << "output " << o;
            list.push_back(element);
            if (plan.has_indices) {
                EXPECT_EQ(g.index[static_cast<std::size_t>(j)], element);  // row-major, axis 0
            }
        }
    }
    for (std::int64_t oh = 0; oh < out_h; ++oh)
        for (std::int64_t ow = 0; ow < out_w; ++ow) {
            std::vector<std::int64_t> want;
            for (std::int64_t kh = 0; kh < k; ++kh)
                for (std::int64_t kw = 0; kw < k; ++kw) {
                    const std::int64_t h = oh * s - pad + kh, w = ow * s - pad + kw;
                    if (h >= 0 && h < in_h && w >= 0 && w < in_w) want.push_back(h * in_w + w);
                }
            EXPECT_EQ(read[static_cast<std::size_t>(oh * out_w + ow)], want) << "output (" << oh << ", " << ow << ")";
        }
}

TEST(PlanFacts, NcxPlanesOfShortRowsGatherEveryWindowFromRegisters) {
    // VGG pool5: 196 elements in 13 registers, 49 outputs in 4 vectors, 4 taps each.
    expect_gathers_read_the_windows(plan_of("maxpool dt=f32 layout=ncx src=1x512x14x14 k=2x2 s=2x2"), 14, 14, 7, 7, 2, 2, 0);
    expect_gathers_read_the_windows(plan_of("maxpool dt=bf16 layout=ncx src=1x512x14x14 k=2x2 s=2x2 idx=s64"), 14, 14, 7, 7,
                                    2, 2, 0);
    // Borders: 9x11, k3 s2 p1 ceil -> 5x6 outputs, corner windows of 4 taps (every tap ordinal past a window's
    // count leaves its lane out).
    expect_gathers_read_the_windows(plan_of("maxpool dt=u8 layout=ncx src=1x8x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil idx=s32"),
                                    9, 11, 5, 6, 3, 2, 1);
    // 64-bit lanes: 8 to a register, so a 10x10 plane (100 elements) takes 13.
    expect_gathers_read_the_windows(plan_of("maxpool dt=f64 layout=ncx src=1x8x10x10 k=2x2 s=2x2"), 10, 10, 5, 5, 2, 2, 0);
    EXPECT_EQ(plan_of("adaptivemaxpool dt=f32 layout=ncx src=1x256x13x13 out=6x6").strategy, jit::Strategy::ncx_planes);
    EXPECT_EQ(plan_of("adaptivemaxpool dt=f32 layout=ncx src=1x256x13x13 out=3x3").strategy, jit::Strategy::ncx_planes);
    // 13 -> 2: four outputs of 7x7 taps, 18 permutes per output (at most 8): the rows' taps-as-lanes items.
    EXPECT_EQ(plan_of("adaptivemaxpool dt=f32 layout=ncx src=1x256x13x13 out=2x2").strategy, jit::Strategy::ncx_width);

    // Not: rows of a vector or more, planes over 16 registers (f32 28x28; f64 14x14), one output per plane (whole
    // planes), more permutes than allowed (15x15 k7: 225 outputs of 49 taps), f16 with indices, half vectors
    // beside 64-bit index lanes, channels last, AVX2. (f16 values convert as they load and store.)
    const auto planes = [](const std::string& line, jit::Isa isa = jit::Isa::avx512, jit::PlanOptions options = {}) {
        const jit::KernelPlan plan = jit::make_plan(pj::resolve(pj::parse_max_pool(line)), isa, options);
        return plan.strategy == jit::Strategy::ncx_planes && !plan.flat_planes.enabled();
    };
    EXPECT_TRUE(planes("maxpool dt=f32 layout=ncx src=1x1x16x16 k=3x3 s=2x2 pb=1x1 pe=1x1"));  // 16 registers
    EXPECT_FALSE(planes("maxpool dt=f32 layout=ncx src=1x1x16x17 k=3x3 s=2x2 pb=1x1 pe=1x1"));
    EXPECT_FALSE(planes("maxpool dt=f32 layout=ncx src=1x1x8x32 k=2x2 s=2x2"));  // 16 outputs per row
    EXPECT_FALSE(planes("maxpool dt=f32 layout=ncx src=1x512x28x28 k=2x2 s=2x2"));
    EXPECT_FALSE(planes("maxpool dt=f64 layout=ncx src=1x512x14x14 k=2x2 s=2x2"));
    EXPECT_FALSE(planes("maxpool dt=f32 layout=ncx src=1x1x14x14 k=14x14"));
    EXPECT_FALSE(planes("maxpool dt=f32 layout=ncx src=1x1x15x15 k=7x7 pb=3x3 pe=3x3"));
    EXPECT_FALSE(planes("maxpool dt=f16 layout=ncx src=1x512x14x14 k=2x2 s=2x2 idx=s32"));
    EXPECT_TRUE(planes("maxpool dt=f16 layout=ncx src=1x512x14x14 k=2x2 s=2x2"));
    jit::PlanOptions wide;
    wide.wide_index_lanes = true;
    EXPECT_FALSE(planes("maxpool dt=f32 layout=ncx src=1x512x14x14 k=2x2 s=2x2 idx=s64", jit::Isa::avx512, wide));
    EXPECT_FALSE(planes("maxpool dt=f32 layout=nxc src=1x512x14x14 k=2x2 s=2x2"));
    EXPECT_FALSE(planes("maxpool dt=f32 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx2));
}

// u8/s8 planes on a core with byte permutes: byte lanes, 64 to a register (VGG pool5's 196 bytes in 4, its 49
// outputs in one vector; 13x13 to 7x7 in 3), each window read as for 32-bit lanes. Without byte permutes, with
// indices, over 256 bytes (GoogLeNet's 28x28), with rows of 16 outputs, or on AVX2: not byte lanes.
TEST(PlanFacts, BytePlanesInRegistersGatherEveryWindowInByteLanes) {
    jit::PlanOptions vbmi;
    vbmi.core.byte_permutes = true;
    vbmi.choice.bands = pj::PlanChoice::Switch::off;  // the rules give 2-D max pools byte bands (test_byte_bands.cpp)
    const jit::KernelPlan pool5 = plan_of("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx512, vbmi);
    EXPECT_EQ(pool5.lanes, 64);
    EXPECT_EQ(pool5.compare, jit::CompareType::u8);
    EXPECT_EQ(pool5.plane.registers, 4);
    expect_gathers_read_the_windows(pool5, 14, 14, 7, 7, 2, 2, 0);
    expect_gathers_read_the_windows(
        plan_of("maxpool dt=s8 layout=ncx src=1x8x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil", jit::Isa::avx512, vbmi), 9, 11,
        5, 6, 3, 2, 1);
    const jit::KernelPlan bins = plan_of("adaptivemaxpool dt=u8 layout=ncx src=1x512x13x13 out=7x7", jit::Isa::avx512, vbmi);
    EXPECT_EQ(bins.strategy, jit::Strategy::ncx_planes);
    EXPECT_EQ(bins.lanes, 64);
    EXPECT_EQ(bins.plane.registers, 3);
    const auto byte_lanes = [&](const std::string& line, jit::Isa isa, const jit::PlanOptions& options) {
        const jit::KernelPlan plan = plan_of(line, isa, options);
        return plan.strategy == jit::Strategy::ncx_planes && plan.lanes == 64;
    };
    EXPECT_FALSE(byte_lanes("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx512, {}));
    EXPECT_FALSE(byte_lanes("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2 idx=s32", jit::Isa::avx512, vbmi));
    EXPECT_FALSE(byte_lanes("maxpool dt=u8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch", jit::Isa::avx512, vbmi));
    EXPECT_FALSE(byte_lanes("maxpool dt=u8 layout=ncx src=1x1x8x32 k=2x2 s=2x2", jit::Isa::avx512, vbmi));
    EXPECT_FALSE(byte_lanes("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx2, vbmi));
}

TEST(PlanFacts, NcxWindowsOfTheWholePlaneReadItAsOneSpan) {
    // Global 7x7: the window is the plane, 49 contiguous elements: one item that reads them as one span.
    const jit::KernelPlan global = plan_of("maxpool dt=f32 layout=ncx src=16x2048x7x7 k=7x7 idx=s64 axis=2");
    jit::Segment whole{0, 1, 1, 49, 0, 0, 0};
    whole.whole_plane = true;
    ASSERT_EQ(global.fast_segments.size(), 1u);
    EXPECT_EQ(global.fast_segments[0], whole);
    EXPECT_TRUE(global.scan_rows_for_nan);  // the item watches for NaN itself, and leaves for the exact copy
    EXPECT_FALSE(global.segments[0].whole_plane);
    const auto whole_plane = [](const std::string& line, jit::Isa isa = jit::Isa::avx512) {
        const jit::KernelPlan plan = plan_of(line, isa);
        return !plan.fast_segments.empty() && plan.fast_segments[0].whole_plane;
    };
    // Also: 1-D and 3-D, integers and f16, a kernel larger than the input with padding, an adaptive pool to
    // one bin, a plane of 16 vectors, and the first vector whole (16 f32 elements).
    EXPECT_TRUE(whole_plane("maxpool dt=s8 layout=ncx src=1x4x37 k=37 idx=s32"));
    EXPECT_TRUE(whole_plane("maxpool dt=f16 layout=ncx src=1x4x3x4x5 k=3x4x5 idx=s64"));
    EXPECT_TRUE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x5x6 k=7x8 pb=1x1 pe=1x1"));
    EXPECT_TRUE(whole_plane("adaptivemaxpool dt=bf16 layout=ncx src=1x4x13x13 out=1x1 idx=s64"));
    EXPECT_TRUE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x16x16 k=16x16"));
    EXPECT_TRUE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x4x4 k=4x4"));
    // Beyond 16 vectors the plane is searched by a loop over blocks of vectors instead of straight code; AVX2
    // takes the same strategy in 8-lane vectors.
    const auto looped = [](const std::string& line, jit::Isa isa = jit::Isa::avx512) {
        const jit::KernelPlan plan = plan_of(line, isa);
        return !plan.fast_segments.empty() && plan.fast_segments[0].whole_plane && plan.loop_whole_plane;
    };
    EXPECT_TRUE(looped("maxpool dt=f32 layout=ncx src=1x4x16x17 k=16x17"));
    EXPECT_TRUE(looped("maxpool dt=f64 layout=ncx src=1x4x12x12 k=12x12"));
    EXPECT_TRUE(looped("maxpool dt=f32 layout=ncx src=1x1024x1024 k=1024", jit::Isa::avx2));
    EXPECT_FALSE(looped("maxpool dt=f32 layout=ncx src=1x4x16x16 k=16x16"));
    EXPECT_TRUE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x7x7 k=7x7", jit::Isa::avx2));
    EXPECT_FALSE(looped("maxpool dt=f32 layout=ncx src=1x4x7x7 k=7x7", jit::Isa::avx2));
    // Looped planes keep as many maxima in flight as the registers hold, each float maximum with its own NaN sum
    // where they hold that too. AVX2 PointNet f32: 4 maxima, 4 sums, and fresh, scratch, the empty value, the
    // pair's second vector, the compare result, the lane mask and the tail mask: 15 of 16. With indices (4 more
    // registers, and each maximum its index vector): 2 maxima and 1 sum make 16. u8 (no sums, no compare
    // registers): 4 maxima in 9. AVX-512's 32 registers: 4 and 4.
    const auto flight = [](const std::string& line, jit::Isa isa) {
        const jit::KernelPlan plan = plan_of(line, isa);
        return std::pair{plan.vectors_per_block, plan.whole_plane_sums};
    };
    EXPECT_EQ(flight("maxpool dt=f32 layout=ncx src=1x1024x1024 k=1024", jit::Isa::avx2), std::pair(4, 4));
    EXPECT_EQ(flight("maxpool dt=f32 layout=ncx src=1x1024x1024 k=1024 idx=s64", jit::Isa::avx2), std::pair(2, 1));
    EXPECT_EQ(flight("maxpool dt=u8 layout=ncx src=1x1024x1024 k=1024", jit::Isa::avx2), std::pair(4, 1));
    EXPECT_EQ(flight("maxpool dt=f32 layout=ncx src=1x1024x1024 k=1024", jit::Isa::avx512), std::pair(4, 4));
    // Without indices the maximum is stored (f16's converted back), searched for only when a float zero; indices search.
    const auto stores = [](const std::string& line) { return plan_of(line, jit::Isa::avx2).whole_plane_stores_maximum; };
    EXPECT_TRUE(stores("maxpool dt=f32 layout=ncx src=1x4x7x7 k=7x7"));
    EXPECT_TRUE(stores("maxpool dt=u8 layout=ncx src=1x4x1024 k=1024"));
    EXPECT_TRUE(stores("maxpool dt=f16 layout=ncx src=1x4x7x7 k=7x7"));
    EXPECT_FALSE(stores("maxpool dt=f32 layout=ncx src=1x4x7x7 k=7x7 idx=s32"));
    // Not: under one vector, windows that skip elements (dilation) or miss some (several outputs), indices not
    // numbered by offset (column-major, an axis that drops the outer dimension), nxc.
    EXPECT_FALSE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x3x5 k=3x5"));
    EXPECT_FALSE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x9x9 k=5x5 d=2x2"));
    EXPECT_FALSE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x9x9 k=8x8"));
    EXPECT_FALSE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x7x7 k=7x7 idx=s64 order=col"));
    EXPECT_FALSE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x7x7 k=7x7 idx=s64 axis=3"));
    EXPECT_TRUE(whole_plane("maxpool dt=f32 layout=ncx src=1x4x7x7 k=7x7 idx=s64 axis=1"));
    EXPECT_FALSE(whole_plane("maxpool dt=f32 layout=nxc src=1x4x7x7 k=7x7"));
}

// Planar 2-D values whose windows share rows along h and that no register ring holds: the row padded into a
// buffer, sized from the geometry; calls of rows dilation / stride apart.
TEST(PlanFacts, NcxRowsNoRingHoldsAreSeparable) {
    // SPP k9 on 40x40 f32, AVX2: 5 vectors of 8 maxima per row; taps read 5 x 8 + 8 lanes of the padded row, the
    // input lands from lane 4 (its padding), so 4 lead lanes start it at a vector: 4 + 48 lanes, rounded to
    // vectors, plus a vector of slack. 64 x 4 + 5 x 32 = 416 bytes a buffered row, 39 rows in 16 KiB: 31 output
    // rows a pass (31 + 8 rows). (The rules give SPP's planes to flat planes; the choice planes=off keeps the
    // rows.)
    jit::PlanOptions rows;
    rows.choice.planes = pj::PlanChoice::Switch::off;
    const jit::KernelPlan spp = plan_of("maxpool dt=f32 layout=ncx src=1x256x40x40 k=9x9 pb=4x4 pe=4x4", jit::Isa::avx2, rows);
    EXPECT_EQ(spp.separable, (jit::SeparableRows{.group_rows = 31, .window_rows = 9, .row_step = 1, .phases = 1,
                                                 .phase_lanes = 64, .lead_lanes = {4, 0}, .pad_lanes = 4,
                                                 .maxima_vectors = 5, .accumulators = 8, .paired_output_rows = true}));
    EXPECT_EQ(spp.ring_rows, 0);
    // Maxima in flight: the block's 2 accumulators, then free registers up to 8. The rows take 2 accumulators,
    // the fresh load, scratch, the empty value, the second of a stride-2 pair, the NaN watch and 3 blend
    // registers: 10 of 16, so 6 more.
    // The same in u8 on AVX-512 (27 ring registers would not fit), in byte lanes (byte rows: 40 outputs): one
    // vector of 64 maxima; 60 lead lanes put the input's first element (padded lane 4) at a vector's start;
    // taps reach 64 + 8 lanes, the input 4 + 64: 60 + 72 = 132 rounded up to 192, plus a vector of slack = 256;
    // 256 + 64 bytes a row, 51 rows: every one of the 40 output rows in one pass.
    const jit::KernelPlan spp_u8 = plan_of("maxpool dt=u8 layout=ncx src=1x256x40x40 k=9x9 pb=4x4 pe=4x4", jit::Isa::avx512, rows);
    EXPECT_EQ(spp_u8.separable,
              (jit::SeparableRows{.group_rows = 40, .window_rows = 9, .row_step = 1, .phases = 1, .phase_lanes = 256,
                                  .lead_lanes = {60, 0}, .pad_lanes = 4, .maxima_vectors = 1, .accumulators = 8,
                                  .paired_output_rows = true}));
    EXPECT_EQ(spp_u8.compare, jit::CompareType::u8);
    // A 300-wide row: 38 vectors of maxima; taps reach 306 lanes: 320 with slack, 1280 + 1216 bytes a row,
    // 6 rows: 4 output rows of 3 taps a pass.
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x2x300x300 k=3x3", jit::Isa::avx2).separable.group_rows, 4);
    // Dilation 2 at stride 1: calls of rows 2 apart, one row of maxima apart, merged in pairs (as SPP's rows; not
    // the stem's rows, 2 apart, nor a stride of 4 under a dilation of 2, below).
    const jit::KernelPlan dilated = plan_of("maxpool dt=f32 layout=ncx src=1x2x21x100 k=3x3 d=2x1 pb=2x1 pe=2x1", jit::Isa::avx512, rows);
    EXPECT_EQ(dilated.ring_row_interval, 2);
    EXPECT_TRUE(dilated.separable.paired_output_rows);
    // The stem at stride 2: output rows 2 input rows apart, the padded row in its even and odd lanes. Padded
    // lane 0 is the padding: the input's even elements are odd padded lanes (phase 1 from its lane 0), its odd
    // ones even lanes (phase 0 from lane 1, after 7 lead lanes). Taps reach 56 + 1 lanes of each phase: 7 + 57
    // lanes plus slack = 72 a phase; 144 x 4 + 7 x 32 = 800 bytes a row, 20 rows: (20 - 3) / 2 + 1 = 9 output
    // rows a pass.
    const jit::KernelPlan stem = plan_of("maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2);
    EXPECT_EQ(stem.separable, (jit::SeparableRows{.group_rows = 9, .window_rows = 3, .row_step = 2, .phases = 2,
                                                  .phase_lanes = 72, .lead_lanes = {7, 0}, .pad_lanes = 1,
                                                  .maxima_vectors = 7, .accumulators = 8}));
    EXPECT_EQ(stem.ring_row_interval, 1);
    // A stride of 4 under a dilation of 2: 2 tap strides between rows; AVX-512 f32 takes the stem too.
    const jit::KernelPlan strided = plan_of("maxpool dt=f32 layout=ncx src=1x3x40x40 k=3x3 s=4x1 d=2x1", jit::Isa::avx2);
    EXPECT_EQ(strided.separable.row_step, 2);
    EXPECT_FALSE(strided.separable.paired_output_rows);
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1").separable.enabled());
    // Not: a register ring took the rows (AVX-512 SPPF), windows that share no row (k2 s2), a
    // stride and dilation that are not multiples of one another, widened bytes at stride 2 along h where masked
    // rows widen their taps (AVX-512 u8 rows of 14 outputs, too few for byte rows), a width stride of 3, nxc,
    // 1-D. (Byte rows take the u8 stem, in the AVX2 form with planes=off, and k2 s2.)
    // (SPPF's planes go to flat planes by the rules; the choice planes=off keeps the rows.)
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx512, rows).separable.enabled());
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2, rows).separable.enabled());
    EXPECT_TRUE(plan_of("maxpool dt=f16 layout=ncx src=1x3x40x40 k=9x9 pb=4x4 pe=4x4 idx=s32", jit::Isa::avx2).separable.enabled());
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x3x40x40 k=2x2 s=2x2", jit::Isa::avx2).separable.enabled());
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x3x40x40 k=3x3 s=3x1 d=2x1", jit::Isa::avx2).separable.enabled());
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch").separable.byte_pairs);
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1").separable.enabled());
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=1x3x40x40 k=2x2 s=2x2", jit::Isa::avx2).separable.enabled());
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2, rows).separable.enabled());
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x3x40x90 k=3x3 s=1x3", jit::Isa::avx2).separable.enabled());
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x3x400 k=9 pb=4 pe=4", jit::Isa::avx2).separable.enabled());
}

TEST(PlanFacts, NcxRowsOfOneItemWhoseWindowsMoveByOneTapKeepARingOfRowMaxima) {
    // (f32, bf16 and byte planes whose outputs sit at their inputs go to flat planes by the rules; planes=off
    // keeps the rows.)
    jit::PlanOptions rows;
    rows.choice.planes = pj::PlanChoice::Switch::off;
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2", jit::Isa::avx512, rows).ring_rows, 5);
    EXPECT_EQ(plan_of("maxpool dt=bf16 layout=ncx src=1x192x28x28 k=3x3 s=1x1 pb=1x1 pe=1x1", jit::Isa::avx512, rows).ring_rows, 3);
    // (Byte pairs take these u8 rows by the rules; the choice of the ring widens them.)
    jit::PlanOptions ring_chosen;
    ring_chosen.choice.reuse = pj::PlanChoice::Reuse::ring;
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=1x8x9x30 k=4x3 s=1x2 pb=1x0 pe=2x1").separable.byte_pairs);
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=ncx src=1x8x9x30 k=4x3 s=1x2 pb=1x0 pe=2x1", jit::Isa::avx512, ring_chosen).ring_rows, 4);
    // Windows that move by one tap every ring_row_interval output rows: at dilation 2 every second row (the
    // executor calls each residue's rows), a stride that equals the dilation every row, a stride of 2 under a
    // dilation of 4 every second row.
    const auto ring_of = [&](const std::string& line) {
        const jit::KernelPlan plan = plan_of(line, jit::Isa::avx512, rows);
        return std::pair{plan.ring_rows, plan.ring_row_interval};
    };
    EXPECT_EQ(ring_of("maxpool dt=f32 layout=ncx src=1x64x56x56 k=3x3 pb=1x1 pe=1x1"), std::pair(std::int64_t{3}, std::int64_t{1}));
    EXPECT_EQ(ring_of("maxpool dt=f32 layout=ncx src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2"), std::pair(std::int64_t{3}, std::int64_t{2}));
    EXPECT_EQ(ring_of("maxpool dt=f32 layout=ncx src=1x64x20x20 k=3x3 s=2x1 d=2x1"), std::pair(std::int64_t{3}, std::int64_t{1}));
    EXPECT_EQ(ring_of("maxpool dt=f32 layout=ncx src=1x64x30x20 k=3x3 s=2x1 d=4x1"), std::pair(std::int64_t{3}, std::int64_t{2}));
    // With indices in 32-bit lanes, twice the registers: SPPF's 5 rows x 2 vectors x 2 = 20 fit, 6 rows do not
    // (without indices they do); 64-bit data takes 64-bit index lanes.
    const auto ring = [](const std::string& line, jit::Isa isa = jit::Isa::avx512) { return plan_of(line, isa).ring_rows; };
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2 idx=s64"), 5);
    EXPECT_EQ(ring("maxpool dt=u8 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1 idx=s32 axis=1"), 3);
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x512x20x20 k=6x5 s=1x1 pb=2x2 pe=3x2 idx=s64"), 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=6x5 s=1x1 pb=2x2 pe=3x2", jit::Isa::avx512, rows).ring_rows, 6);
    EXPECT_EQ(ring("maxpool dt=f64 layout=ncx src=1x512x20x20 k=3x3 pb=1x1 pe=1x1 idx=s64"), 0);
    // Not: a stride along h that does not divide its dilation (windows of neighbouring rows never share rows one
    // tap apart), rows of several items (224 outputs), 1-D and 3-D, AVX2, or more ring registers than allowed
    // (channels last: the column ring below). f16 takes it (one row short of its pads: not a flat plane).
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x64x20x20 k=3x3 s=2x1"), 0);
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x64x30x20 k=3x3 s=2x1 d=3x1"), 0);
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x64x224x224 k=3x3 pb=1x1 pe=1x1"), 0);
    EXPECT_EQ(ring("maxpool dt=f16 layout=ncx src=1x64x20x20 k=5x5 pb=2x2 pe=1x2"), 5);
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x64x20 k=5"), 0);
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x64x4x20x20 k=1x5x5"), 0);
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x64x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2), 0);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x64x20x40 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx512, rows).ring_rows, 5);  // 40 lanes: 3 vectors
    EXPECT_EQ(ring("maxpool dt=f32 layout=ncx src=1x64x20x40 k=6x5 pb=2x2 pe=2x2"), 0);   // 18 > 16 registers
}

TEST(PlanFacts, NxcWindowsOverlappingAlongHeightKeepAColumnRing) {
    // SPPF (k5: 5 rows x 4 vectors of f32 channels = 20 registers) and Inception (k3), in f32, bf16 and u8; k2 s1.
    // (bf16 windows of 5 rows take separable pixels without indices: the test after next.)
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2").ring_rows, 5);
    EXPECT_EQ(plan_of("maxpool dt=bf16 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1").ring_rows, 3);
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1").ring_rows, 3);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x64x20x20 k=2x2").ring_rows, 2);
    // A call walks at most 16 KiB of one column's input: SPPF f32, 5 taps x 256 bytes a row, 12 rows of input
    // (8 output rows); Inception u8, 3 x 192 bytes, 28 rows of input (26 output rows).
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2").ring_call_rows, 8);
    EXPECT_EQ(plan_of("maxpool dt=u8 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1").ring_call_rows, 26);
    // A width dilation of 2^61 (3 outputs of a padded row): the bound is divided, never multiplied past 2^63.
    const jit::KernelPlan dilated = plan_of(
        "maxpool dt=f32 layout=nxc src=1x256x6x3 k=4x2 d=1x2305843009213693952 pb=0x1152921504606846976 "
        "pe=0x1152921504606846976");
    EXPECT_EQ(dilated.ring_rows, 4);
    EXPECT_EQ(dilated.ring_call_rows, 1);
    // With indices of data narrower than 32 bits, an index vector beside each row maximum: SPPF takes 2 vectors
    // of channels per block (5 rows x 2 x 2 = 20 registers), k3 3 vectors, k2 all 4. 32-bit data with indices
    // takes separable pixels (a cache line's channels, 1 zmm) and no ring.
    const auto ring_and_vectors = [](const std::string& line, jit::Isa isa = jit::Isa::avx512,
                                     const jit::PlanOptions& options = {}) {
        const jit::KernelPlan plan = plan_of(line, isa, options);
        return std::pair{plan.ring_rows, plan.vectors_per_block};
    };
    EXPECT_EQ(ring_and_vectors("maxpool dt=bf16 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2 idx=s64"), std::pair(std::int64_t{5}, 2));
    EXPECT_EQ(ring_and_vectors("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2 idx=s64"), std::pair(std::int64_t{0}, 1));
    EXPECT_EQ(ring_and_vectors("maxpool dt=s32 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1 idx=s64"), std::pair(std::int64_t{0}, 1));
    EXPECT_EQ(ring_and_vectors("maxpool dt=u8 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1 idx=s32"), std::pair(std::int64_t{3}, 3));
    EXPECT_EQ(ring_and_vectors("maxpool dt=bf16 layout=nxc src=1x192x28x28 k=2x2 idx=s64 axis=1"), std::pair(std::int64_t{2}, 4));
    EXPECT_EQ(plan_of("maxpool dt=f64 layout=nxc src=1x64x20x20 k=3x3 pb=1x1 pe=1x1").ring_rows, 3);
    // Not: indices beside 32- and 64-bit data (above, and f64), a stride or dilation along h, input read by few
    // windows (k2 s2 along the width), 1-D and 3-D. f16 takes it (its fast rows in f32 lanes) for windows of
    // fewer than 5 rows, and with indices; its windows of 5 rows or more take separable pixels, as bf16's do.
    EXPECT_EQ(plan_of("maxpool dt=f16 layout=nxc src=1x64x20x20 k=3x3 pb=1x1 pe=1x1").ring_rows, 3);
    EXPECT_EQ(plan_of("maxpool dt=f16 layout=nxc src=1x64x20x20 k=5x5 pb=2x2 pe=2x2 idx=s32").ring_rows, 5);
    EXPECT_EQ(plan_of("maxpool dt=f16 layout=nxc src=1x64x20x20 k=5x5 pb=2x2 pe=2x2").ring_rows, 0);
    EXPECT_TRUE(plan_of("maxpool dt=f16 layout=nxc src=1x64x20x20 k=5x5 pb=2x2 pe=2x2").separable.enabled());
    for (const char* line : {"maxpool dt=f64 layout=nxc src=1x64x20x20 k=3x3 pb=1x1 pe=1x1 idx=s64",
                             "maxpool dt=f32 layout=nxc src=1x64x20x20 k=3x3 s=2x1",
                             "maxpool dt=f32 layout=nxc src=1x64x20x20 k=3x3 d=2x1",
                             "maxpool dt=f32 layout=nxc src=1x64x112x112 k=2x2 s=1x2",
                             "maxpool dt=f32 layout=nxc src=1x64x20 k=5",
                             "maxpool dt=f32 layout=nxc src=1x64x4x20x20 k=1x5x5"})
        EXPECT_EQ(plan_of(line).ring_rows, 0) << line;
    // A ring its registers would not hold at the vectors the channels want takes fewer vectors: a k6 window in 3
    // vectors (18 of the ring's 20 registers, not 24); AVX2's 16 registers hold SPPF's 5 rows of s32 in 2
    // vectors (the ring's 10 registers); SPP's 9x9 window, its 9 width taps unrolled for the ring, in 1 vector on AVX2 (9 of
    // the ring's 10 registers) and 2 on AVX-512 (18 of 20). A width of 17 taps is not unrolled: no ring. (On
    // AVX2 SPPF and SPP, and on every core windows of 7 rows or more, take separable pixels by the rules, so the
    // ring is asked for there.)
    jit::PlanOptions ring;
    ring.choice.reuse = pooljit::PlanChoice::Reuse::ring;
    EXPECT_EQ(ring_and_vectors("maxpool dt=f32 layout=nxc src=1x512x20x20 k=6x5 pb=2x2 pe=3x2"), std::pair(std::int64_t{6}, 3));
    EXPECT_EQ(ring_and_vectors("maxpool dt=s32 layout=nxc src=1x192x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2, ring),
              std::pair(std::int64_t{5}, 2));
    const std::string spp = "maxpool dt=f32 layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4";
    EXPECT_EQ(ring_and_vectors("maxpool dt=s32 layout=nxc src=1x192x40x40 k=9x9 pb=4x4 pe=4x4", jit::Isa::avx2, ring),
              std::pair(std::int64_t{9}, 1));
    EXPECT_EQ(ring_and_vectors(spp, jit::Isa::avx512, ring), std::pair(std::int64_t{9}, 2));
    EXPECT_TRUE(plan_of(spp, jit::Isa::avx512, ring).unroll_width_taps);
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x64x40x40 k=3x17 pb=1x8 pe=1x8").ring_rows, 0);
}

TEST(PlanFacts, NxcPixelIndicesRideInTheSeparableBuffers) {
    // SPP k9 f32 with indices: a padded position is a pixel and a vector of index lanes (one vector of 8 channels,
    // 64 bytes), a row of maxima 40 outputs x 2 vectors (2560 bytes); 48 positions leave 18 rows of maxima in
    // 48 KiB: 10 output rows a pass. Each maximum in flight takes an index register beside it: the block's 2 and
    // 13 others leave 3 registers, and the 4 the row code takes only for a moment (a tap's index, a widened
    // mask, a tail mask, the -1 constant) hold maxima too: 3 more maxima, 4 in flight.
    const jit::KernelPlan spp = plan_of("maxpool dt=f32 layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64", jit::Isa::avx2);
    EXPECT_EQ(spp.vectors_per_block, 1);
    EXPECT_EQ(spp.separable, (jit::SeparableRows{.group_rows = 10, .window_rows = 9, .row_step = 1, .phases = 1,
                                                 .phase_lanes = 48, .lead_lanes = {0, 0}, .pad_lanes = 4,
                                                 .maxima_vectors = 80, .accumulators = 4, .paired_width_windows = true}));
    // SPPF: a cache line of channels a pixel (2 vectors), 24 positions of 96 bytes, rows of 20 x 4 vectors:
    // 18 rows of maxima, 14 output rows a pass; 15 registers leave one, which with the row code's 4 make a
    // second output's 2 maxima and 2 index vectors.
    const jit::KernelPlan sppf = plan_of("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2 idx=s32", jit::Isa::avx2);
    EXPECT_EQ(sppf.vectors_per_block, 2);
    EXPECT_EQ(sppf.separable.group_rows, 14);
    EXPECT_EQ(sppf.separable.accumulators, 4);
    // Without indices no register is shared: SPPF's values keep their 8 maxima (the free registers alone).
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2).separable.accumulators, 8);
    // Integers over any pixel (their compares take 32-bit lanes beside the indices).
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1 idx=s64", jit::Isa::avx2).separable.enabled());
    // Not: a dilation along the width, windows empty along the width (a padded tap would keep its index), 64-bit
    // compare lanes. AVX-512 takes them for 32-bit data, which its column ring does not carry with indices, in
    // twice the bytes (zmm pixels): 48 positions of 128 bytes, rows of 40 outputs x 2 zmm, 10 output rows a pass
    // as on AVX2.
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2 idx=s64",
                             "maxpool dt=f32 layout=nxc src=1x16x9x8 k=3x3 pb=1x3 pe=1x3 idx=s64",
                             "maxpool dt=f64 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2 idx=s64"})
        EXPECT_FALSE(plan_of(line, jit::Isa::avx2).separable.enabled()) << line;
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64").separable.group_rows, 10);
}

TEST(PlanFacts, NxcPixelsAreSeparableWhereTheColumnRingHoldsANarrowBlock) {
    // SPPF f32 on AVX2 (the ring would hold 1 vector of 32 bytes a row): blocks of a cache line, 2 vectors of 8
    // channels. Stride 1 and 5 width taps: its rows read the input directly (no padded row); 20 outputs x 2
    // vectors of maxima = 1280 bytes a row, 51 rows in 64 KiB: every output row (20) in one pass.
    const jit::KernelPlan sppf = plan_of("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2);
    EXPECT_EQ(sppf.separable, (jit::SeparableRows{.group_rows = 20, .window_rows = 5, .row_step = 1, .phases = 1,
                                                  .phase_lanes = 0, .lead_lanes = {0, 0}, .pad_lanes = 2,
                                                  .maxima_vectors = 40, .accumulators = 8,
                                                  .paired_width_windows = true, .paired_output_rows = true,
                                                  .direct_rows = true}));
    // bf16 over more than 3 taps (widened once in the copy, once a tap in direct rows) and windows of more than
    // 5 taps keep the padded row: bf16 SPPF's taps reach 19 + 4 + 1 = 24 pixels (2 of padding before the 20 of
    // input, 2 after). bf16 over 3 taps reads the input.
    const jit::KernelPlan sppf_bf16 = plan_of("maxpool dt=bf16 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2);
    EXPECT_FALSE(sppf_bf16.separable.direct_rows);
    EXPECT_EQ(sppf_bf16.separable.phase_lanes, 24);
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=nxc src=1x1024x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2).separable.direct_rows);
    EXPECT_TRUE(plan_of("maxpool dt=bf16 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", jit::Isa::avx2).separable.direct_rows);
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=nxc src=1x64x20x40 k=5x5 s=1x2 pb=2x2 pe=2x2", jit::Isa::avx2)
                     .separable.direct_rows);  // stride 2 along the width
    // 8 maxima in flight, 4 pixels a step: the block's 2 accumulators beside the fresh load, scratch, the empty
    // value, the NaN watch and 3 blend registers (9 of 16) leave 7; 6 more make whole blocks.
    EXPECT_EQ(sppf.vectors_per_block, 2);
    EXPECT_EQ(sppf.channel_block, 16);
    EXPECT_EQ(sppf.ring_rows, 0);
    EXPECT_FALSE(sppf.width_ranges);
    // SPP k9 f32: a line's 2 vectors a pixel, 48 x 64 bytes of padded row and 40 x 64 a row of maxima: 24 rows
    // of maxima in the rest of 64 KiB, 16 output rows a pass.
    const jit::KernelPlan spp = plan_of("maxpool dt=f32 layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4", jit::Isa::avx2);
    EXPECT_EQ(spp.vectors_per_block, 2);
    EXPECT_EQ(spp.separable.group_rows, 16);
    EXPECT_FALSE(spp.separable.direct_rows);
    // SPP k9 bf16: a line's 4 vectors would hold 3 output rows a pass, fewer than the window's 9 rows; 3 do not
    // divide 256 channels; 2 (f32's geometry) hold 16.
    const jit::KernelPlan spp_bf16 = plan_of("maxpool dt=bf16 layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4", jit::Isa::avx2);
    EXPECT_EQ(spp_bf16.vectors_per_block, 2);
    EXPECT_EQ(spp_bf16.separable.group_rows, 16);
    // Floats over any pixel (Inception's 192 f32 channels; bf16 in 4 vectors of 8 lanes, a line of its storage),
    // integers over pixels of a multiple of 1 KiB (u8 1024 channels, s32 256), a stride 2 along the width.
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", jit::Isa::avx2).separable.enabled());
    EXPECT_EQ(plan_of("maxpool dt=bf16 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", jit::Isa::avx2).vectors_per_block, 4);
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=nxc src=1x1024x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2).separable.enabled());
    EXPECT_TRUE(plan_of("maxpool dt=s32 layout=nxc src=1x256x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2).separable.enabled());
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x64x20x40 k=5x5 s=1x2 pb=2x2 pe=2x2", jit::Isa::avx2).separable.enabled());
    // Width windows in pairs at stride 1 (outputs a dilation apart under a width dilation), not at stride 2 along
    // the width.
    EXPECT_TRUE(spp.separable.paired_width_windows);
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=nxc src=1x64x20x40 k=5x5 s=1x2 pb=2x2 pe=2x2", jit::Isa::avx2)
                     .separable.paired_width_windows);
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=1x1 pe=1x1", jit::Isa::avx2)
                    .separable.paired_width_windows);
    // Output rows in pairs where they are one row of maxima apart (stride 1 along h; a dilation's rows, called a
    // tap stride apart, too) and the accumulators hold two blocks: not at stride 2 along h, not with indices.
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=1x1 pe=1x1", jit::Isa::avx2)
                    .separable.paired_output_rows);
    EXPECT_TRUE(spp.separable.paired_output_rows);
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=nxc src=1x64x40x20 k=5x5 s=2x1 pb=2x2 pe=2x2", jit::Isa::avx2)
                     .separable.paired_output_rows);
    // A block of 3 channels (a partial vector, masked) and whole blocks with a tail: on AVX2 (no opmasks) only.
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x3x40x40 k=9x9 pb=4x4 pe=4x4",
                             "maxpool dt=f32 layout=nxc src=1x60x28x28 k=3x3 pb=1x1 pe=1x1"}) {
        EXPECT_TRUE(plan_of(line, jit::Isa::avx2).separable.enabled()) << line;
        EXPECT_FALSE(plan_of(line, jit::Isa::avx512).separable.enabled()) << line;
    }
    // f16 too, converted as each pixel loads and as each output stores, with indices too.
    EXPECT_TRUE(plan_of("maxpool dt=f16 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2).separable.enabled());
    EXPECT_TRUE(plan_of("maxpool dt=f16 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2 idx=s32", jit::Isa::avx2).separable.enabled());
    // Not: integers over smaller pixels, rows bound by memory (k3 s2), 1-D, 3-D; AVX-512, whose 32 registers hold
    // 4 vectors of 64 bytes a row of the ring.
    for (const char* line : {"maxpool dt=u8 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=s32 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=f32 layout=nxc src=1x512x20 k=5 pb=2 pe=2",
                             "maxpool dt=f32 layout=nxc src=1x512x4x20x20 k=1x5x5 pb=0x2x2 pe=0x2x2"})
        EXPECT_FALSE(plan_of(line, jit::Isa::avx2).separable.enabled()) << line;
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2").separable.enabled());
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2").ring_rows, 5);
}

TEST(PlanFacts, Bf16SeparableBuffersTakeWidenedPairs) {
    // The dilated 3x3 and Inception (4 vectors of 8 lanes a pixel: two pairs), SPP k9 (2 vectors: one pair). The
    // row code beside them (channel tails, calls that saw a NaN) keeps its lanes in order.
    for (const char* line : {"maxpool dt=bf16 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2",
                             "maxpool dt=bf16 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=bf16 layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4"}) {
        const jit::KernelPlan plan = plan_of(line, jit::Isa::avx2);
        ASSERT_TRUE(plan.separable.enabled()) << line;
        EXPECT_EQ(plan.vectors_per_block % 2, 0) << line;
        EXPECT_TRUE(plan.separable.widened_pairs) << line;
        EXPECT_FALSE(plan.widened_pairs) << line;
    }
    // Not: f32 (loaded as stored), one vector a pixel (80 bf16 channels in blocks of 8), indices (their lanes
    // follow the values' order), AVX-512 (no widened pairs in its trait).
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2",
                             "maxpool dt=bf16 layout=nxc src=1x80x20x20 k=5x5 pb=2x2 pe=2x2",
                             "maxpool dt=bf16 layout=nxc src=1x64x56x56 k=3x3 pb=1x1 pe=1x1 idx=s32"})
        EXPECT_FALSE(plan_of(line, jit::Isa::avx2).separable.widened_pairs) << line;
    EXPECT_TRUE(plan_of("maxpool dt=bf16 layout=nxc src=1x80x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2).separable.enabled());
    EXPECT_FALSE(plan_of("maxpool dt=bf16 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", jit::Isa::avx512)
                     .separable.widened_pairs);
    // Planar separable rows at stride 2 along the width (MobileNet, the ResNet stem): a load's even and odd
    // elements are the two phases. Not at stride 1 (one phase), not for f32.
    const jit::KernelPlan mobilenet = plan_of("maxpool dt=bf16 layout=ncx src=1x32x150x150 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2);
    ASSERT_EQ(mobilenet.separable.phases, 2);
    EXPECT_TRUE(mobilenet.separable.widened_pairs);
    EXPECT_FALSE(mobilenet.widened_pairs);
    const jit::KernelPlan stride_one = plan_of("maxpool dt=bf16 layout=ncx src=1x3x40x40 k=9x9 pb=4x4 pe=4x4", jit::Isa::avx2);
    ASSERT_EQ(stride_one.separable.phases, 1);
    EXPECT_FALSE(stride_one.separable.widened_pairs);
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x32x150x150 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2)
                     .separable.widened_pairs);
}

// AVX-512 bf16 planar rows at stride 2 of fewer outputs than a vector keep the row code (even-word loads, paired
// taps); rows of a vector or more, f32 and the AVX2 form keep separable rows.
TEST(PlanFacts, Avx512Bf16RowsShorterThanAVectorKeepTheRowCode) {
    const auto separable = [](const std::string& line, jit::Isa isa) { return plan_of(line, isa).separable.enabled(); };
    for (const char* line : {"maxpool dt=bf16 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch",
                             "maxpool dt=bf16 layout=ncx src=1x256x20x20 k=3x3 s=2x2 pb=1x1 pe=1x1"}) {
        EXPECT_FALSE(separable(line, jit::Isa::avx512)) << line;
        EXPECT_TRUE(plan_of(line, jit::Isa::avx512).paired_tap_loads) << line;
        EXPECT_TRUE(separable(line, jit::Isa::avx2)) << line;
    }
    EXPECT_TRUE(separable("maxpool dt=bf16 layout=ncx src=1x128x32x32 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx512));
    EXPECT_TRUE(separable("maxpool dt=bf16 layout=ncx src=1x128x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx512));
    EXPECT_TRUE(separable("maxpool dt=f32 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch", jit::Isa::avx512));
    // Choices that only the buffers honour keep them: reuse=separable, their size, bf16 pairs.
    jit::PlanOptions forced, sized, pairs;
    forced.choice.reuse = pj::PlanChoice::Reuse::separable;
    sized.choice.separable_kib = 32;
    pairs.choice.pairs = pj::PlanChoice::Switch::on;
    for (const jit::PlanOptions& options : {forced, sized, pairs})
        EXPECT_TRUE(plan_of("maxpool dt=bf16 layout=ncx src=1x480x28x28 k=3x3 s=2x2 round=ceil_torch", jit::Isa::avx512, options)
                        .separable.enabled());
}

TEST(PlanFacts, NcxRowsOfFewOutputsTakeTheWindowsTapsAsLanes) {
    // Global 3x3 (a plane of less than one vector): one output per row, so one item whose 3 lanes are the
    // window's width taps (one load per row).
    const jit::KernelPlan global = plan_of("maxpool dt=f32 layout=ncx src=16x2048x3x3 k=3x3");
    jit::Segment whole{0, 1, 1, 3, 0, 1, 0};  // item_step: the stride (one item, never taken)
    whole.taps_as_lanes = true;
    ASSERT_EQ(global.fast_segments.size(), 1u);
    EXPECT_EQ(global.fast_segments[0], whole);
    EXPECT_EQ(global.segments.size(), 1u);  // the exact copy keeps lanes as outputs
    EXPECT_FALSE(global.segments[0].taps_as_lanes);
    // Adaptive 13 -> 3 along the width: windows [0,5) [4,9) [8,13), 4 apart (lanes as outputs would gather
    // every lane): three items of 5 taps each, one segment stepping by 4. (Planes small enough for registers
    // take whole planes instead: these have 40 rows.)
    const jit::KernelPlan bins = plan_of("adaptivemaxpool dt=u8 layout=ncx src=1x256x40x13 out=3x3 idx=s64");
    jit::Segment three{0, 3, 1, 5, 0, 4, 0};
    three.taps_as_lanes = true;
    ASSERT_EQ(bins.fast_segments.size(), 1u);
    EXPECT_EQ(bins.fast_segments[0], three);
    // Empty windows (pads beyond the kernel) stay plain items that store the empty value.
    const jit::KernelPlan empties = plan_of("maxpool dt=f32 layout=ncx src=1x1x90x3 k=2x2 s=3x3 pb=3x3 pe=3x3 round=ceil");
    ASSERT_FALSE(empties.fast_segments.empty());
    for (const jit::Segment& s : empties.fast_segments) EXPECT_EQ(s.taps_as_lanes, s.taps > 0);
    // Not where lanes as outputs load contiguous or paired lanes for several outputs (VGG pool5: 7 outputs,
    // stride 2), where a window is wider than a vector, with dilation, on AVX2, or for f16.
    const auto taps_as_lanes = [](const std::string& line, jit::Isa isa = jit::Isa::avx512) {
        for (const jit::Segment& s : plan_of(line, isa).fast_segments)
            if (s.taps_as_lanes) return true;
        return false;
    };
    EXPECT_FALSE(taps_as_lanes("maxpool dt=f32 layout=ncx src=1x512x28x14 k=2x2 s=2x2"));
    EXPECT_FALSE(taps_as_lanes("maxpool dt=f32 layout=ncx src=1x1x400 k=20 s=20"));
    EXPECT_TRUE(taps_as_lanes("maxpool dt=f32 layout=ncx src=1x1x400 k=16 s=20"));
    EXPECT_FALSE(taps_as_lanes("maxpool dt=f32 layout=ncx src=1x1x9x40 k=3x3 s=4x4 d=1x2"));
    EXPECT_TRUE(taps_as_lanes("maxpool dt=f32 layout=ncx src=1x1x9x40 k=3x3 s=4x4"));
    EXPECT_FALSE(taps_as_lanes("maxpool dt=f32 layout=ncx src=16x2048x3x3 k=3x3", jit::Isa::avx2));
    EXPECT_TRUE(taps_as_lanes("maxpool dt=f16 layout=ncx src=16x2048x3x3 k=3x3"));
    // Each lane's scan rank is kept under opmasks for indices only; values keep the maximum alone and search a
    // float zero's window (adaptive 13x13 to 2x2 ncx, Xeon 2, AVX-512: f32 15.3 -> 11.9 us, bf16 19.0 -> 13.0).
    const std::string two_bins = "adaptivemaxpool dt=f32 layout=ncx src=1x256x13x13 out=2x2";
    ASSERT_TRUE(taps_as_lanes(two_bins));
    EXPECT_FALSE(plan_of(two_bins, jit::Isa::avx512).taps_as_lanes_ranked);
    EXPECT_TRUE(plan_of(two_bins + " idx=s64", jit::Isa::avx512).taps_as_lanes_ranked);
    EXPECT_FALSE(plan_of(two_bins + " idx=s64", jit::Isa::avx2).taps_as_lanes_ranked);
}

}  // namespace

// Cores that split 512-bit operations (PlanOptions::core): windows spanning 5 rows or more take separable pixels
// over the column ring on both forms, integer pixels of any size too; windows of 3 rows keep the ring. Other
// cores take them in the AVX2 form for windows of 5 rows or more, integers included, keep the ring there for
// windows of 3 rows over integer pixels that are not a multiple of 1 KiB, and keep AVX-512's ring where its
// registers hold a wide block.
TEST(PlanWindowReuse, SplitCoresTakeSeparablePixelsForWindowsOfFiveRowsOrMore) {
    jit::PlanOptions split;
    split.core.splits_512_bit_ops = true;
    const std::string sppf = "maxpool dt=u8 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2";
    const std::string dilated = "maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2";
    const std::string inception = "maxpool dt=u8 layout=nxc src=1x192x28x28 k=3x3 pb=1x1 pe=1x1";
    for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512}) {
        SCOPED_TRACE(jit::to_string(isa));
        EXPECT_TRUE(plan_of(sppf, isa, split).separable.enabled());
        EXPECT_TRUE(plan_of(dilated, isa, split).separable.enabled());
        EXPECT_FALSE(plan_of(inception, isa, split).separable.enabled());
        EXPECT_FALSE(plan_of(inception, isa).separable.enabled());
        EXPECT_GT(plan_of(inception, isa).ring_rows, 0);
    }
    EXPECT_FALSE(plan_of(sppf, jit::Isa::avx512).separable.enabled());
    EXPECT_GT(plan_of(sppf, jit::Isa::avx512).ring_rows, 0);
    EXPECT_FALSE(plan_of(dilated, jit::Isa::avx512).separable.enabled());
    for (const char* integers : {"maxpool dt=u8 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2",
                                 "maxpool dt=s8 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=1x1 pe=1x1",
                                 "maxpool dt=s32 layout=nxc src=1x96x40x40 k=9x9 pb=4x4 pe=4x4",
                                 "maxpool dt=s64 layout=nxc src=1x64x20x20 k=5x5 pb=2x2 pe=2x2"}) {
        SCOPED_TRACE(integers);
        EXPECT_TRUE(plan_of(integers, jit::Isa::avx2).separable.enabled());
    }
}

// bf16 (taps widened as they load) without indices takes separable pixels for windows spanning 5 rows or more
// on every core, where f32 keeps the AVX-512 column ring (or, dilated along h, the rows) up to 5 or 6 rows (7 or
// more: separable pixels in every type); windows of 3 rows keep the ring, and so does bf16 with indices.
TEST(PlanWindowReuse, Bf16TakesSeparablePixelsForWindowsOfFiveRowsOrMoreOnEveryCore) {
    const auto bf16 = [](const std::string& dims) { return "maxpool dt=bf16 layout=nxc src=" + dims; };
    for (const std::string& dims : {std::string("1x512x20x20 k=5x5 pb=2x2 pe=2x2"),
                                    std::string("1x128x20x20 k=6x6 pb=2x2 pe=3x3"),
                                    std::string("1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2")}) {
        SCOPED_TRACE(dims);
        for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512}) EXPECT_TRUE(plan_of(bf16(dims), isa).separable.enabled());
        EXPECT_FALSE(plan_of("maxpool dt=f32 layout=nxc src=" + dims, jit::Isa::avx512).separable.enabled());
        EXPECT_FALSE(plan_of(bf16(dims + " idx=s32"), jit::Isa::avx512).separable.enabled());
    }
    EXPECT_GT(plan_of("maxpool dt=f32 layout=nxc src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx512).ring_rows, 0);
    // Windows of 7 rows or more, without indices: separable pixels in every type.
    for (const char* dt : {"f32", "u8", "s32", "f16"})
        EXPECT_TRUE(plan_of(std::string("maxpool dt=") + dt + " layout=nxc src=1x256x40x40 k=9x9 pb=4x4 pe=4x4", jit::Isa::avx512)
                        .separable.enabled())
            << dt;
    EXPECT_TRUE(plan_of("maxpool dt=f32 layout=nxc src=1x128x26x26 k=7x7 pb=3x3 pe=3x3", jit::Isa::avx512).separable.enabled());
    const jit::KernelPlan inception = plan_of(bf16("1x192x28x28 k=3x3 pb=1x1 pe=1x1"), jit::Isa::avx512);
    EXPECT_FALSE(inception.separable.enabled());
    EXPECT_GT(inception.ring_rows, 0);
}

// bf16 channels of whole vectors that the pair block of 16 leaves a tail of take blocks that divide them for
// separable pixels (jit/plan/plan_reuse.cpp): 3 vectors where 3 divides, else 1; channels that the block
// divides keep it, and f32 keeps its tail.
TEST(PlanWindowReuse, Bf16ChannelsWithATailTakeBlocksThatDivideThem) {
    const auto plan = [](int channels, const char* dt) {
        return plan_of("maxpool dt=" + std::string(dt) + " layout=nxc src=1x" + std::to_string(channels) +
                           "x28x28 k=3x3 pb=1x1 pe=1x1",
                       jit::Isa::avx2);
    };
    for (const int channels : {72, 120, 40}) {
        SCOPED_TRACE(channels);
        const jit::KernelPlan p = plan(channels, "bf16");
        EXPECT_TRUE(p.separable.enabled());
        EXPECT_EQ(p.channel_tail, 0);
        EXPECT_EQ(p.channel_block, channels == 40 ? 8 : 24);
        EXPECT_EQ(channels % p.channel_block, 0);
    }
    EXPECT_EQ(plan(48, "bf16").channel_block, 16);
    const jit::KernelPlan f32 = plan(40, "f32");
    EXPECT_NE(f32.channel_tail, 0);
}

// Byte pairs take windows past the input's end in 1-D and 2-D (AVX2 shifts and blends the empty value in; AVX-512's
// masked loads leave those lanes empty): the bottom border's rows run as calls of fewer rows, so a plane needs the
// executor's row table (up to 65536 output rows) where its last windows pass the last row, not where every
// window lies inside; 3-D windows must lie inside.
TEST(PlanWindowReuse, BytePairsPastTheEndInOneAndTwoDimensions) {
    const auto pairs = [](const char* line, jit::Isa isa) { return plan_of(line, isa, bands_off()).separable.byte_pairs; };
    const char* const one_d = "maxpool dt=s8 layout=ncx src=1x2x130 k=3 s=2 round=ceil";
    EXPECT_TRUE(pairs(one_d, jit::Isa::avx2));
    EXPECT_TRUE(pairs(one_d, jit::Isa::avx512));
    EXPECT_FALSE(plan_of(one_d, jit::Isa::avx512).separable.shifted_pair_loads);
    EXPECT_TRUE(pairs("maxpool dt=u8 layout=ncx src=1x1x131074x66 k=3x3 s=2x2", jit::Isa::avx2));  // 65536 rows, inside
    EXPECT_FALSE(pairs("maxpool dt=u8 layout=ncx src=1x1x131074x66 k=3x3 s=2x2 round=ceil", jit::Isa::avx2));  // 65537
    EXPECT_TRUE(pairs("maxpool dt=u8 layout=ncx src=1x1x131072x66 k=3x3 s=2x2 round=ceil", jit::Isa::avx2));  // 65536
    EXPECT_TRUE(pairs("maxpool dt=u8 layout=ncx src=1x2x4x9x68 k=2x2x3 s=2x2x2", jit::Isa::avx2));
    EXPECT_FALSE(pairs("maxpool dt=u8 layout=ncx src=1x2x4x9x67 k=2x2x3 s=2x2x2 round=ceil", jit::Isa::avx2));
}

// Byte pairs on AVX2 (no opmasks): the rows before a call's last read whole registers up to the row pitch and one
// row past their start, and store whole registers where the output rows abut; their planes stack (VGG pool5: one
// call of 512 planes' rows, not 512 calls). Rows whose windows do not step forward (a run of equal windows over a
// short input), rows that alias one another (a 0 row stride), calls of one output row a plane over channels
// that do not stack, and AVX-512 (opmasks) stay exact.
TEST(PlanWindowReuse, BytePairRowsBeforeACallsLastReachPastTheirBytesOnAvx2) {
    const jit::KernelPlan pool5 = plan_of("maxpool dt=u8 layout=ncx src=1x512x14x14 k=2x2 s=2x2", jit::Isa::avx2, bands_off());
    ASSERT_TRUE(pool5.separable.byte_pairs);
    EXPECT_TRUE(pool5.stacked_planes);
    EXPECT_EQ(pool5.separable.row_read_reach, 14 + 14);
    EXPECT_TRUE(pool5.separable.rows_store_whole);
    const jit::KernelPlan pitched =
        plan_of("maxpool dt=u8 layout=ncx src=1x3x14x14 k=2x2 s=2x2 src_strides=700x224x16x1 dst_strides=378x63x9x1", jit::Isa::avx2, bands_off());
    ASSERT_TRUE(pitched.separable.byte_pairs);
    EXPECT_EQ(pitched.separable.row_read_reach, 16 + 14);
    EXPECT_FALSE(pitched.separable.rows_store_whole);  // 2 bytes of gap after each output row
    const jit::KernelPlan aliased = plan_of("maxpool dt=u8 layout=ncx src=1x3x10x14 k=2x2 s=2x2 src_strides=42x14x0x1", jit::Isa::avx2);
    ASSERT_TRUE(aliased.separable.byte_pairs);
    EXPECT_EQ(aliased.separable.row_read_reach, 0);
    const jit::KernelPlan unmoving = plan_of("maxpool dt=u8 layout=ncx src=1x2x2x66 k=4x2 s=1x2 pb=2x0 pe=1x0", jit::Isa::avx2);
    ASSERT_TRUE(unmoving.separable.byte_pairs);
    ASSERT_EQ(unmoving.row_runs_h.size(), 1U);
    EXPECT_EQ(unmoving.row_runs_h.front().position_step, 0);
    EXPECT_EQ(unmoving.separable.row_read_reach, 0);
    // One output row a plane: dense planes stack (the next row is the next plane's), planes padded in dst do not,
    // and their calls step over channels, any stride apart.
    const jit::KernelPlan one_row = plan_of("maxpool dt=u8 layout=ncx src=1x3x2x60 k=2x2 s=2x2", jit::Isa::avx2);
    ASSERT_TRUE(one_row.separable.byte_pairs);
    EXPECT_TRUE(one_row.stacked_planes);
    EXPECT_GT(one_row.separable.row_read_reach, 0);
    const jit::KernelPlan padded_planes =
        plan_of("maxpool dt=u8 layout=ncx src=1x3x2x60 k=2x2 s=2x2 dst_strides=192x64x30x1", jit::Isa::avx2);
    ASSERT_TRUE(padded_planes.separable.byte_pairs);
    EXPECT_FALSE(padded_planes.stacked_planes);
    EXPECT_EQ(padded_planes.separable.row_read_reach, 0);
    EXPECT_FALSE(padded_planes.separable.rows_store_whole);
    const jit::KernelPlan wide = plan_of("maxpool dt=u8 layout=ncx src=1x3x20x128 k=2x2 s=2x2", jit::Isa::avx512);
    ASSERT_TRUE(wide.separable.byte_pairs);
    EXPECT_EQ(wide.separable.row_read_reach, 0);
    EXPECT_FALSE(wide.separable.rows_store_whole);
}

// Adaptive bins that are a max pool's windows (13 -> 6: k3 s2; 13 -> 7: k3 s2, a padded element at each end) are
// planned as that max pool where it takes byte pairs (u8/s8 planar rows on AVX2, without bands); other data, bins
// no max pool's (30 -> 11), indices (32-bit lanes) and AVX-512 (rows of 6 outputs too short) keep the adaptive plan.
TEST(PlanWindowReuse, EvenAdaptiveBinsTakeTheirMaxPoolsBytePairs) {
    const auto planned_as_max_pool = [](const jit::KernelPlan& plan) {
        return std::any_of(plan.choices.begin(), plan.choices.end(),
                           [](const std::string& c) { return c.starts_with("adaptive_bins"); });
    };
    const jit::KernelPlan six = plan_of("adaptivemaxpool dt=u8 layout=ncx src=1x256x13x13 out=6x6", jit::Isa::avx2, bands_off());
    EXPECT_TRUE(six.separable.byte_pairs);
    EXPECT_TRUE(planned_as_max_pool(six));
    EXPECT_EQ(six.kernel_w, 3);
    EXPECT_EQ(six.stride_w, 2);
    const jit::KernelPlan seven = plan_of("adaptivemaxpool dt=s8 layout=ncx src=1x64x14x14 out=7x7", jit::Isa::avx2, bands_off());
    EXPECT_TRUE(seven.separable.byte_pairs);
    EXPECT_TRUE(seven.stacked_planes);
    const jit::KernelPlan padded = plan_of("adaptivemaxpool dt=u8 layout=ncx src=1x512x13x13 out=7x7", jit::Isa::avx2, bands_off());
    EXPECT_TRUE(padded.separable.byte_pairs);
    EXPECT_EQ(padded.kernel_w, 3);
    EXPECT_EQ(padded.pad_w, 1);
    for (const char* kept : {"adaptivemaxpool dt=f32 layout=ncx src=1x256x13x13 out=6x6",
                             "adaptivemaxpool dt=u8 layout=ncx src=1x5x30x31 out=11x16",
                             "adaptivemaxpool dt=u8 layout=ncx src=1x256x13x13 out=6x6 idx=s64"}) {
        const jit::KernelPlan plan = plan_of(kept, jit::Isa::avx2);
        EXPECT_FALSE(plan.separable.byte_pairs) << kept;
        EXPECT_FALSE(planned_as_max_pool(plan)) << kept;
    }
    EXPECT_FALSE(planned_as_max_pool(plan_of("adaptivemaxpool dt=u8 layout=ncx src=1x256x13x13 out=6x6", jit::Isa::avx512)));
}

// Byte rows stepping 2 rows an output row hold 8 KiB of buffers, the others 16 (jit/plan/plan_reuse.cpp): the
// stem's 112-wide u8 rows at stride 2 hold fewer output rows a pass than SPPF's at stride 1 would in 16 KiB.
TEST(PlanWindowReuse, ByteRowsAtStrideTwoHoldEightKibOfBuffers) {
    const auto buffered_bytes = [](const jit::KernelPlan& plan) {
        const jit::SeparableRows& sep = plan.separable;
        return sep.buffered_rows() * (sep.row_lanes() * 1 + sep.maxima_vectors * plan.vector_bytes);
    };
    // (The padded stem and its ceil form, whose last windows pass the row's end and the last row, take byte pairs;
    // a 5x5 window at stride 2, wider than byte pairs take, the buffers.)
    const char* const padded_stem = "maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1";
    const char* const ceil_stem = "maxpool dt=u8 layout=ncx src=1x64x112x112 k=3x3 s=2x2 round=ceil";
    for (const char* stem_line : {padded_stem, ceil_stem})
        for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512})
            EXPECT_TRUE(plan_of(stem_line, isa, bands_off()).separable.byte_pairs) << stem_line << " on " << jit::to_string(isa);
    const char* const k5_stem = "maxpool dt=u8 layout=ncx src=1x64x112x112 k=5x5 s=2x2 pb=2x2 pe=2x2";
    const jit::KernelPlan stem = plan_of(k5_stem, jit::Isa::avx512);
    ASSERT_TRUE(stem.separable.enabled());
    ASSERT_FALSE(stem.separable.byte_pairs);
    ASSERT_EQ(stem.separable.row_step, 2);
    EXPECT_LE(buffered_bytes(stem), 8 * 1024);
    jit::PlanOptions sixteen;
    sixteen.choice.separable_kib = 16;
    const jit::KernelPlan stem16 = plan_of(k5_stem, jit::Isa::avx512, sixteen);
    EXPECT_GT(stem16.separable.group_rows, stem.separable.group_rows);
    // SPPF's byte rows (the choice planes=off: the rules give these planes to flat planes).
    jit::PlanOptions rows, rows16;
    rows.choice.planes = rows16.choice.planes = pj::PlanChoice::Switch::off;
    rows16.choice.separable_kib = 16;
    const jit::KernelPlan sppf = plan_of("maxpool dt=u8 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2, rows);
    ASSERT_TRUE(sppf.separable.enabled());
    EXPECT_EQ(sppf.separable.row_step, 1);
    EXPECT_EQ(sppf.separable.group_rows,
              plan_of("maxpool dt=u8 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2, rows16).separable.group_rows);
}
