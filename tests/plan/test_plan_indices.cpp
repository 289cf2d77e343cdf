// The planner as data: the index facts of a plan (multipliers of each spatial axis, steps between taps and
// outputs, the channel stride) for the ONNX and OpenVINO index conventions. Every expected value is worked out by
// hand from the definitions in jit/plan/plan.hpp and DESIGN.md section 3.
#include "jit/plan/plan.hpp"
#include "support/plan_util.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::testing::plan_of;

struct IndexFacts {
    std::array<std::int64_t, 3> mult;
    std::int64_t tap_step_w, tap_step_h, tap_step_d, out_step_w, channel_index_stride;
};

void expect_index_facts(const jit::KernelPlan& plan, const IndexFacts& want) {
    ASSERT_TRUE(plan.has_indices);
    EXPECT_EQ(plan.index_mult[0], want.mult[0]);
    EXPECT_EQ(plan.index_mult[1], want.mult[1]);
    EXPECT_EQ(plan.index_mult[2], want.mult[2]);
    EXPECT_EQ(plan.index_tap_step_w, want.tap_step_w);
    EXPECT_EQ(plan.index_tap_step_h, want.tap_step_h);
    EXPECT_EQ(plan.index_tap_step_d, want.tap_step_d);
    EXPECT_EQ(plan.index_out_step_w, want.out_step_w);
    EXPECT_EQ(plan.channel_index_stride, want.channel_index_stride);
}

// 2-D: N=2, C=3, H=5, W=7; dilations 2 (H) and 3 (W), stride 2 along W.
const std::string problem_2d = "maxpool dt=f32 layout=nxc src=2x3x5x7 k=2x2 s=1x2 d=2x3";

TEST(PlanIndices, RowMajorAxis0TwoDimensional) {
    // flat = ((n*3 + c)*5 + h)*7 + w: spatial part h*7 + w; neighbouring channels 35 apart.
    const jit::KernelPlan plan = plan_of(problem_2d + " idx=s32");
    expect_index_facts(plan, {{7, 1, 0}, 3 * 1, 2 * 7, 0, 2 * 1, 35});
    EXPECT_EQ(plan.index_mult_w, 1);
    EXPECT_EQ(plan.index_dtype, pj::DType::s32);
    EXPECT_FALSE(plan.index_lanes_64);
    EXPECT_FALSE(plan.wide_index_math);
}

TEST(PlanIndices, OpenVinoAxes) {
    // axis 1: modulo C*H*W = 105, n drops out, c*35 stays.
    expect_index_facts(plan_of(problem_2d + " idx=s32 axis=1"), {{7, 1, 0}, 3, 14, 0, 2, 35});
    // axis 2: modulo H*W = 35, the channel term drops out; h*7 + w < 35 stays whole.
    expect_index_facts(plan_of(problem_2d + " idx=s32 axis=2"), {{7, 1, 0}, 3, 14, 0, 2, 0});
    // axis 3: modulo W = 7, h*7 is a multiple of the modulus: the leading spatial multiplier is 0.
    expect_index_facts(plan_of(problem_2d + " idx=s32 axis=3"), {{0, 1, 0}, 3, 0, 0, 2, 0});

    // axis -1 is axis 3 (rank 4).
    pj::MaxPoolDesc desc = pj::parse_max_pool(problem_2d);
    desc.indices = pj::IndexSpec{pj::DType::s32, -1, pj::StorageOrder::row_major};
    expect_index_facts(jit::make_plan(pj::resolve(desc), jit::Isa::avx512), {{0, 1, 0}, 3, 0, 0, 2, 0});
}

TEST(PlanIndices, ColumnMajorTwoDimensional) {
    // spatial part h + w*5 (ONNX storage_order=1).
    const jit::KernelPlan plan = plan_of(problem_2d + " idx=s64 order=col");
    expect_index_facts(plan, {{1, 5, 0}, 3 * 5, 2 * 1, 0, 2 * 5, 35});
    EXPECT_EQ(plan.index_mult_w, 5);
    EXPECT_TRUE(plan.wide_index_math);  // s64 output
    EXPECT_FALSE(plan.index_lanes_64);
}

TEST(PlanIndices, ThreeDimensional) {
    // D=4, H=5, W=6: S = 120. Unit dilations and strides, so the steps equal the multipliers.
    const std::string p3 = "maxpool dt=f32 layout=nxc src=1x2x4x5x6 k=2x2x2 idx=s64";
    expect_index_facts(plan_of(p3), {{30, 6, 1}, 1, 6, 30, 1, 120});
    expect_index_facts(plan_of(p3 + " axis=2"), {{30, 6, 1}, 1, 6, 30, 1, 0});
    expect_index_facts(plan_of(p3 + " axis=3"), {{0, 6, 1}, 1, 6, 0, 1, 0});
    expect_index_facts(plan_of(p3 + " axis=4"), {{0, 0, 1}, 1, 0, 0, 1, 0});
    // column-major: d + h*4 + w*20.
    expect_index_facts(plan_of(p3 + " order=col"), {{1, 4, 20}, 20, 4, 1, 20, 120});
}

TEST(PlanIndices, OneDimensional) {
    expect_index_facts(plan_of("maxpool dt=s8 layout=nxc src=2x3x9 k=3 s=2 idx=s32"), {{1, 0, 0}, 1, 0, 0, 2, 9});
}

TEST(PlanIndices, LaneWidth) {
    struct Row {
        std::string line;
        bool index_lanes_64, wide_index_math, relative = false;
    };
    const Row rows[] = {
        {"maxpool dt=f32 layout=nxc src=1x16x9x9 k=2x2 idx=s32", false, false},
        {"maxpool dt=f32 layout=nxc src=1x16x9x9 k=2x2 idx=s64", false, true},
        {"maxpool dt=f64 layout=nxc src=1x16x9x9 k=2x2 idx=s32", true, true},  // 64-bit compare lanes
        {"maxpool dt=s64 layout=nxc src=1x16x9x9 k=2x2 idx=s32", true, true},
        {"maxpool dt=bf16 layout=nxc src=1x16x9x9 k=2x2 idx=s32", false, false},
        // Spatial size 2^31: the largest spatial index 2^31 - 1 still fits 32-bit lanes (and, with N = C = 1,
        // s32 output); with 2^31 + 1 elements the lanes count from each window's first tap instead.
        {"maxpool dt=f32 layout=nxc src=1x1x2147483648 k=1 idx=s32", false, false},
        {"maxpool dt=f32 layout=nxc src=1x1x2147483649 k=3 idx=s64", false, true, true},
        {"maxpool dt=f64 layout=nxc src=1x1x2147483649 k=3 idx=s64", true, true, false},
    };
    for (const Row& r : rows) {
        SCOPED_TRACE(r.line);
        const jit::KernelPlan plan = plan_of(r.line);
        EXPECT_TRUE(plan.has_indices);
        EXPECT_EQ(plan.index_lanes_64, r.index_lanes_64);
        EXPECT_EQ(plan.wide_index_math, r.wide_index_math);
        EXPECT_EQ(plan.index_relative_to_window, r.relative);
    }
    // A window reaching 2^31 index units from its first tap cannot count in 32-bit lanes either way: half
    // vectors of 32-bit compare lanes beside 64-bit index lanes.
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2}) {
        const jit::KernelPlan wide = plan_of("maxpool dt=u8 layout=nxc src=1x1x3x1073741824 k=3x1 idx=s64", isa);
        EXPECT_EQ(wide.compare, jit::CompareType::s32);
        EXPECT_EQ(wide.lanes, isa == jit::Isa::avx512 ? 8 : 4);
        EXPECT_TRUE(wide.index_lanes_64);
        EXPECT_TRUE(wide.wide_index_math);
        EXPECT_FALSE(wide.index_relative_to_window);
    }
}

// Planar rows with indices in separable rows (emit_separable_indices.cpp): an index vector beside each buffered
// maximum, taken where windows have 16 taps or more or move by one tap along both axes, the others by choice.
TEST(PlanIndices, SeparableRowsCarryIndicesBesideTheirMaxima) {
    // SPP k9 over 40x40, f32 with s64 indices (32-bit index lanes), AVX2: the padded row as without indices (64
    // lanes, 4 of them lead), a row of maxima 5 value vectors and 5 index vectors: 256 + 320 = 576 bytes a
    // buffered row, 28 rows in 16 KiB: 20 output rows a pass. Maxima in flight: the block's 2 and 2 more, each
    // with an index register, in the 4 registers the row code takes only for a moment.
    const jit::KernelPlan spp = plan_of("maxpool dt=f32 layout=ncx src=1x256x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64", jit::Isa::avx2);
    EXPECT_EQ(spp.separable, (jit::SeparableRows{.group_rows = 20, .window_rows = 9, .row_step = 1, .phases = 1,
                                                 .phase_lanes = 64, .lead_lanes = {4, 0}, .pad_lanes = 4,
                                                 .maxima_vectors = 5, .accumulators = 4}));
    EXPECT_FALSE(spp.index_lanes_64);
    // AVX-512 too (32 registers: 8 maxima in flight), and SPPF's 5x5 at stride 2, a 4x4 window, 3x3 windows at
    // stride 1 in f32, bf16 (widened to f32 lanes) and u8 (widened to s32), and a width dilation of 2 whose
    // padding starts a window between real taps (a padded position takes its windows' first real tap).
    EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x256x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64").separable.accumulators, 8);
    for (const char* line : {"maxpool dt=f32 layout=ncx src=1x64x56x56 k=5x5 s=2x2 pb=2x2 pe=2x2 idx=s64",
                             "maxpool dt=f32 layout=ncx src=1x64x56x56 k=4x4 idx=s32",
                             "maxpool dt=f32 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1 idx=s64",
                             "maxpool dt=bf16 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1 idx=s32",
                             "maxpool dt=u8 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1 idx=s64",
                             "maxpool dt=f32 layout=ncx src=1x8x30x40 k=5x5 d=1x2 pb=2x3 pe=2x3 idx=s64"})
        EXPECT_TRUE(plan_of(line, jit::Isa::avx2).separable.enabled()) << line;
    // By the speed rule, not 3x3 windows at stride 2 or dilated (the row code spreads their stores), unless the
    // choice asks for the buffers.
    const std::string stem = "maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64";
    EXPECT_FALSE(plan_of(stem, jit::Isa::avx2).separable.enabled());
    EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2 idx=s64", jit::Isa::avx2)
                     .separable.enabled());
    jit::PlanOptions separable;
    separable.choice.reuse = pj::PlanChoice::Reuse::separable;
    EXPECT_EQ(plan_of(stem, jit::Isa::avx2, separable).separable.phases, 2);
    // f16 converts into the f32 lanes as it loads and back as it stores (a row holding a NaN runs the row code).
    for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512})
        EXPECT_TRUE(plan_of("maxpool dt=f16 layout=ncx src=1x64x40x40 k=9x9 pb=4x4 pe=4x4 idx=s32", isa).separable.enabled());
    // Never, and the choice cannot be honoured: windows empty along the width (pads past the kernel), 64-bit
    // compare lanes (f64).
    for (const char* line : {"maxpool dt=f32 layout=ncx src=1x2x10x70 k=5x5 pb=6x6 pe=6x6 idx=s64",
                             "maxpool dt=f64 layout=ncx src=1x64x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64"})
        for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512}) {
            EXPECT_FALSE(plan_of(line, isa).separable.enabled()) << line;
            EXPECT_THROW(plan_of(line, isa, separable), pj::Error) << line;
        }
}

}  // namespace
