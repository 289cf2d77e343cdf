// The planner's work estimate (KernelPlan::vector_ops_per_image, jit/plan/plan_work.cpp), which the executor turns
// into expected time to choose its threads: every expected count is worked out here from the window's taps.
#include "jit/plan/plan.hpp"
#include "support/plan_util.hpp"

#include <gtest/gtest.h>

namespace jit = pooljit::jit;
using pooljit::testing::plan_of;

namespace {

// Channels last, no rows shared: every output vector merges each tap of its window once.
TEST(PlanWork, ChannelsLastCountsEveryTapOfEveryOutputVector) {
    // 64 channels of f32 in 8 lanes: 8 vectors a pixel, 4x4 output pixels, 4 taps each.
    const jit::KernelPlan plan = plan_of("maxpool dt=f32 layout=nxc src=1x64x8x8 k=2x2 s=2x2", jit::Isa::avx2);
    ASSERT_EQ(plan.lanes, 8);
    ASSERT_EQ(plan.ring_rows, 0);
    ASSERT_FALSE(plan.separable.enabled());
    const double scan = plan.scan_rows_for_nan ? 64.0 * 64 / 8 : 0;  // every input element once, 8 a vector
    EXPECT_DOUBLE_EQ(plan.vector_ops_per_image, 8.0 * 16 * 4 + scan);
}

// Rows that a ring or separable rows share count once: SPP's k9 s1 costs an output its 9 width taps and 9 row
// merges, not 81 taps.
TEST(PlanWork, SharedRowMaximaCountOnce) {
    const std::string spp = "maxpool dt=u8 layout=nxc src=1x64x40x40 k=9x9 pb=4x4 pe=4x4";
    const jit::KernelPlan shared = plan_of(spp, jit::Isa::avx2);
    ASSERT_TRUE(shared.ring_rows > 0 || shared.separable.enabled());
    jit::PlanOptions no_reuse;
    no_reuse.choice.reuse = pooljit::PlanChoice::Reuse::none;
    const jit::KernelPlan every_tap = plan_of(spp, jit::Isa::avx2, no_reuse);
    ASSERT_EQ(every_tap.ring_rows, 0);
    ASSERT_FALSE(every_tap.separable.enabled());
    // 64 u8 channels in 32 byte lanes: 2 vectors a pixel, 40x40 pixels.
    ASSERT_EQ(shared.lanes, 32);
    EXPECT_DOUBLE_EQ(shared.vector_ops_per_image, 2.0 * 1600 * (9 + 9));
    EXPECT_DOUBLE_EQ(every_tap.vector_ops_per_image, 2.0 * 1600 * 81);
}

// A whole plane is one straight loop of vectors.
TEST(PlanWork, WholePlaneCountsItsVectors) {
    const jit::KernelPlan plan = plan_of("adaptivemaxpool dt=f32 layout=ncx src=1x4x13x13 out=1x1 idx=none", jit::Isa::avx2);
    ASSERT_TRUE(jit::has_whole_plane(plan));
    EXPECT_DOUBLE_EQ(plan.vector_ops_per_image, 4.0 * 169 / 8);
}

// Planar rows weigh 1.7 channels-last operations a tap of each output vector: k2 s2 and k4 s4 read every element
// once (the same taps in all), and windows that overlap read more.
TEST(PlanWork, PlanarRowsWeighTheTapsOfTheirOutputVectors) {
    const jit::KernelPlan k2 = plan_of("maxpool dt=f32 layout=ncx src=1x16x32x32 k=2x2 s=2x2", jit::Isa::avx2);
    const jit::KernelPlan k4 = plan_of("maxpool dt=f32 layout=ncx src=1x16x32x32 k=4x4 s=4x4", jit::Isa::avx2);
    const jit::KernelPlan k4s2 = plan_of("maxpool dt=f32 layout=ncx src=1x16x34x34 k=4x4 s=2x2", jit::Isa::avx2);
    // k2 s2: 16 planes of 16 output rows, 2 vectors of 8 outputs a row, 4 taps; k4 s4: 8 rows of one vector, 16.
    const double k2_taps = 16.0 * 16 * 2 * 4 * 1.7, k4_taps = 16.0 * 8 * 1 * 16 * 1.7;
    const double scan = 16.0 * 1024 / 8;
    EXPECT_DOUBLE_EQ(k2.vector_ops_per_image, k2_taps + (k2.scan_rows_for_nan ? scan : 0));
    EXPECT_DOUBLE_EQ(k4.vector_ops_per_image, k4_taps + (k4.scan_rows_for_nan ? scan : 0));
    EXPECT_GT(k4s2.vector_ops_per_image, k2.vector_ops_per_image);  // 16x16 outputs of 4x4 overlapping taps
}

}  // namespace
