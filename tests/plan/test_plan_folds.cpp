// Problems planned as others that address the same elements (jit/plan/plan_depth.cpp): windows one plane deep
// as the 2-D planes of their channels, blocked bytes at stride 1 as planar rows of bytes. Plans only, on any host;
// every expected value is worked out by hand from the definitions in jit/plan/plan.hpp and the address formula of
// DESIGN.md section 2.
#include "jit/plan/plan.hpp"
#include "support/plan_util.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <tuple>
#include <utility>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::testing::plan_of;
using pooljit::testing::problem_of;

// Windows one plane deep are planned as the 2-D planes of C x D channels (jit::folds_depth, jit::depth_folded)
// only where the channels are D planes apart, there are no indices, and the rows are bound by compares or hold
// data of 1 byte, or of 2 over channel volumes under 64 KiB; the folded problem's planes are the 3-D problem's.
TEST(PlanFacts, WindowsOnePlaneDeepFoldIntoChannelsWhereTheChannelsAreDPlanesApart) {
    const pj::Problem i3d = problem_of("maxpool dt=u8 layout=ncx src=2x5x3x20x22 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1");
    ASSERT_TRUE(jit::folds_depth(i3d));
    const pj::Problem folded = jit::depth_folded(i3d);
    EXPECT_EQ(folded.spatial_rank, 2);
    EXPECT_EQ(folded.channels, 15);
    EXPECT_EQ(folded.batch, 2);
    EXPECT_EQ(folded.in, (pj::Problem::Spatial{20, 22, 1}));
    EXPECT_EQ(folded.out, (pj::Problem::Spatial{10, 11, 1}));
    EXPECT_EQ(folded.kernel, (pj::Problem::Spatial{3, 3, 1}));
    EXPECT_EQ(folded.pad_begin, (pj::Problem::Spatial{1, 1, 0}));
    EXPECT_EQ(folded.src_strides.c, 20 * 22);
    EXPECT_EQ(folded.src_strides.n, 5 * 3 * 20 * 22);
    EXPECT_EQ(folded.dst_strides.c, 10 * 11);
    jit::PlanOptions options;
    options.depth_folded = true;
    const jit::KernelPlan plan = jit::make_plan(folded, jit::Isa::avx2, options);
    EXPECT_TRUE(plan.depth_folded);
    EXPECT_EQ(jit::lane_bytes(plan.compare), 1);  // the 2-D code: byte rows
    EXPECT_FALSE(plan_of("maxpool dt=u8 layout=ncx src=2x5x20x22 k=3x3", jit::Isa::avx2).depth_folded);
    for (const char* text : {"adaptivemaxpool dt=bf16 layout=ncx src=1x3x4x9x13 out=4x3x5",
                             "maxpool dt=f32 layout=ncx src=1x5x3x20x22 k=1x3x3 pb=0x1x1 pe=0x1x1",
                             "maxpool dt=bf16 layout=ncx src=1x5x3x20x22 k=1x3x3 s=1x2x2",
                             "maxpool dt=f32 layout=ncx src=1x5x3x20x22 k=1x3x3 src_strides=7000x1320x440x22x1"}) {
        SCOPED_TRACE(text);
        EXPECT_TRUE(jit::folds_depth(problem_of(text)));
    }
    // Not folded: 4-byte data in rows bound by memory (their 3-D rows watch for NaN), 2-byte data there over
    // channel volumes of 64 KiB or more (16 x 64 x 64 x 2 bytes: 128 KiB), a window two planes deep,
    // a stride along d, padding along d, fewer output planes, indices, channels-last, channels apart from their
    // planes (a gap after each channel), a channel broadcast.
    for (const char* text : {"maxpool dt=f32 layout=ncx src=1x5x3x20x22 k=1x3x3 s=1x2x2",
                             "maxpool dt=bf16 layout=ncx src=1x4x16x64x64 k=1x3x3 s=1x2x2",
                             "maxpool dt=f16 layout=ncx src=1x4x16x64x64 k=1x2x2 s=1x2x2",
                             "maxpool dt=u8 layout=ncx src=1x5x3x20x22 k=2x3x3",
                             "maxpool dt=u8 layout=ncx src=1x5x4x20x22 k=1x3x3 s=2x1x1",
                             "maxpool dt=u8 layout=ncx src=1x5x3x20x22 k=1x3x3 pb=1x0x0 pe=1x0x0",
                             "adaptivemaxpool dt=f32 layout=ncx src=1x3x4x9x13 out=2x3x5",
                             "maxpool dt=f32 layout=ncx src=1x5x3x20x22 k=1x3x3 idx=s64",
                             "maxpool dt=f32 layout=nxc src=1x5x3x20x22 k=1x3x3",
                             "maxpool dt=f32 layout=ncx src=1x5x3x20x22 k=1x3x3 src_strides=6605x1321x440x22x1",
                             "maxpool dt=f32 layout=ncx src=1x5x3x20x22 k=1x3x3 src_strides=1320x0x440x22x1"}) {
        SCOPED_TRACE(text);
        EXPECT_FALSE(jit::folds_depth(problem_of(text)));
    }
}

// Blocked bytes at stride 1 along the width are planned as planar rows of bytes (jit::folds_blocks,
// jit::blocks_folded): element (n, c, h, w) of nCx16c lies at n*s0 + (c / 16)*s1 + h*s2 + w*s3 + c % 16, so with
// s3 = 16 a block's row is W x 16 consecutive bytes, and output pixel x's lane c, the maximum over input pixels
// x + t*d - p, is planar output x*16 + c of that row over taps t*16*d - p*16 bytes from it. Inception's shape in
// nCx16c, 2 images of 192 channels (12 blocks): dense strides s3 = 16, s2 = 28*16 = 448, s1 = 28*448 = 12544,
// s0 = 12*12544 = 150528.
TEST(PlanFacts, BlockedBytesAtStrideOneFoldIntoPlanarRowsOfBytes) {
    // Width taps up to 5 pixels from their output: further than the lane-axis fold reaches (4 pixels of 16 bytes).
    const pj::Problem inception = problem_of("maxpool dt=u8 layout=nCx16c src=2x192x28x28 k=3x11 pb=1x5 pe=1x5");
    ASSERT_TRUE(jit::folds_blocks(inception, false));
    const pj::Problem folded = jit::blocks_folded(inception);
    EXPECT_EQ(folded.layout, pj::Layout::ncx);
    EXPECT_EQ(folded.block, 1);
    EXPECT_EQ(folded.batch, 2);
    EXPECT_EQ(folded.channels, 12);
    EXPECT_EQ(folded.in, (pj::Problem::Spatial{28, 28 * 16, 1}));
    EXPECT_EQ(folded.out, (pj::Problem::Spatial{28, 28 * 16, 1}));
    EXPECT_EQ(folded.kernel, (pj::Problem::Spatial{3, 11, 1}));
    EXPECT_EQ(folded.stride, (pj::Problem::Spatial{1, 1, 1}));
    EXPECT_EQ(folded.dilation, (pj::Problem::Spatial{1, 16, 1}));
    EXPECT_EQ(folded.pad_begin, (pj::Problem::Spatial{1, 80, 0}));
    EXPECT_EQ(folded.pad_end, (pj::Problem::Spatial{1, 80, 0}));
    EXPECT_EQ(folded.src_strides, (pj::Problem::Strides{150528, 12544, {448, 1, 0}}));
    EXPECT_EQ(folded.dst_strides, (pj::Problem::Strides{150528, 12544, {448, 1, 0}}));
    // create() plans it so (the ISA form too), and says so in the plan.
    const jit::Folds folds = jit::folds_of(inception, false);
    EXPECT_TRUE(folds.blocks);
    EXPECT_FALSE(folds.depth);
    jit::PlanOptions options;
    options.blocks_folded = true;
    const jit::KernelPlan plan = jit::make_plan(folded, jit::Isa::avx2, options);
    EXPECT_TRUE(plan.blocks_folded);
    EXPECT_EQ(jit::lane_bytes(plan.compare), 1);  // planar bytes in byte lanes
    // A 3-D one-plane-deep window folds both ways: the blocks first, then the planes of the result.
    EXPECT_TRUE(jit::folds_of(problem_of("maxpool dt=u8 layout=nCx16c src=1x16x3x8x11 k=1x3x11 pb=0x1x5 pe=0x1x5"), false).depth);
    // Windows whose taps lie within 4 pixels of 16 bytes (8 of 8) of their output fold into the lane axis instead.
    for (const char* text : {"maxpool dt=u8 layout=nCx16c src=2x192x28x28 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=nCx16c src=1x256x40x40 k=9x9 pb=4x4 pe=4x4",
                             "maxpool dt=s8 layout=nCx8c src=2x16x7x7 k=7x7"}) {
        SCOPED_TRACE(text);
        ASSERT_TRUE(jit::folds_blocks(problem_of(text), false));
        EXPECT_TRUE(jit::blocks_as_lanes(jit::blocks_folded(problem_of(text))));
    }
    // So does a window of the whole row (a global pool), its taps however far.
    EXPECT_TRUE(jit::blocks_as_lanes(jit::blocks_folded(problem_of("maxpool dt=u8 layout=nCx16c src=2x16x7x7 k=7x7"))));
    EXPECT_TRUE(jit::folds_blocks(problem_of("maxpool dt=u8 layout=nCx16c src=1x16x1000 k=1000"), false));
    // Its rows are one span of pixels where they follow each other in memory (not over a row pitch).
    for (const auto& [text, span] :
         {std::pair{"maxpool dt=u8 layout=nCx16c src=2x16x7x7 k=7x7", true},
          std::pair{"maxpool dt=u8 layout=nCx16c src=2x16x7x7 k=7x7 src_strides=2048x1024x128x16", false}}) {
        SCOPED_TRACE(text);
        const jit::BlockedPixels bp = jit::blocked_pixels_of(jit::blocks_folded(problem_of(text)), 64);
        EXPECT_TRUE(bp.whole_row);
        EXPECT_FALSE(bp.shifted);
        EXPECT_EQ(bp.whole_rows_one_span(), span);
    }
    for (const char* text : {"maxpool dt=s8 layout=nCx8c src=1x16x12x20 k=5x19 pb=2x9 pe=2x9",
                             "maxpool dt=u8 layout=nCx16c src=2x32x6x11 k=3x11 pb=1x5 pe=1x5 src_strides=2304x1152x192x16"}) {
        SCOPED_TRACE(text);
        EXPECT_TRUE(jit::folds_blocks(problem_of(text), false));
    }
    // Not folded: a stride of 3 along the width, indices, a partial last block (20 channels in blocks of 16) of a
    // window past the lanes' reach, data of more than a byte, 1-D rows past the lanes' reach, adaptive windows,
    // pixels further apart than a block (w stride 32), nxc, 3-D windows more than one plane deep.
    for (const char* text : {"maxpool dt=u8 layout=nCx16c src=1x16x12x12 k=3x3 s=3x3",
                             "maxpool dt=u8 layout=nCx16c src=1x16x3x6x7 k=2x3x3 s=2x1x1",
                             "maxpool dt=u8 layout=nCx16c src=1x16x12x12 k=3x3 idx=s32",
                             "maxpool dt=u8 layout=nCx16c src=1x20x12x12 k=3x11 pb=1x5 pe=1x5",
                             "maxpool dt=f32 layout=nCx16c src=1x16x12x12 k=3x3",
                             "maxpool dt=u8 layout=nCx16c src=1x16x100 k=11",
                             "adaptivemaxpool dt=u8 layout=nCx16c src=1x16x13x13 out=6x6",
                             "maxpool dt=u8 layout=nCx16c src=1x16x12x12 k=3x3 src_strides=4608x4608x384x32",
                             "maxpool dt=u8 layout=nxc src=1x16x12x12 k=3x3"}) {
        SCOPED_TRACE(text);
        EXPECT_FALSE(jit::folds_blocks(problem_of(text), true));
    }
}

// Blocked bytes at stride 2 along the width, 1-D and 2-D, fold into the lane-axis problem: one more spatial axis,
// the block's lanes, which no window crosses (jit::blocks_folded), planned as blocked_byte_pixels.
TEST(PlanFacts, BlockedBytesAtStrideTwoFoldIntoALaneAxis) {
    // Outputs: (9 + 2 - 3) / 2 + 1 = 5 rows, (11 + 2 - 3) / 2 + 1 = 6 columns.
    const pj::Problem stem = problem_of("maxpool dt=u8 layout=nCx16c src=2x32x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1");
    ASSERT_TRUE(jit::folds_blocks(stem, false));
    const pj::Problem folded = jit::blocks_folded(stem);
    EXPECT_TRUE(jit::blocks_as_lanes(folded));
    EXPECT_EQ(folded.layout, pj::Layout::ncx);
    EXPECT_EQ(folded.block, 1);
    EXPECT_EQ(folded.spatial_rank, 3);
    EXPECT_EQ(folded.channels, 2);
    EXPECT_EQ(folded.in, (pj::Problem::Spatial{9, 11, 16}));
    EXPECT_EQ(folded.out, (pj::Problem::Spatial{5, 6, 16}));
    EXPECT_EQ(folded.kernel, (pj::Problem::Spatial{3, 3, 1}));
    EXPECT_EQ(folded.stride, (pj::Problem::Spatial{2, 2, 1}));
    EXPECT_EQ(folded.dilation, (pj::Problem::Spatial{1, 1, 1}));
    EXPECT_EQ(folded.pad_begin, (pj::Problem::Spatial{1, 1, 0}));
    EXPECT_EQ(folded.pad_end, (pj::Problem::Spatial{1, 1, 0}));
    // nCx16c: a block's plane 9 x 11 x 16 = 1584 bytes, an image 2 of them; the output's 5 x 6 x 16 = 480.
    EXPECT_EQ(folded.src_strides, (pj::Problem::Strides{3168, 1584, {176, 16, 1}}));
    EXPECT_EQ(folded.dst_strides, (pj::Problem::Strides{960, 480, {96, 16, 1}}));
    EXPECT_FALSE(jit::folds_of(stem, false).depth);
    jit::PlanOptions options;
    options.blocks_folded = true;
    for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512}) {
        SCOPED_TRACE(jit::to_string(isa));
        const jit::KernelPlan plan = jit::make_plan(folded, isa, options);
        EXPECT_TRUE(plan.blocks_folded);
        EXPECT_EQ(plan.strategy, jit::Strategy::ncx_planes);
        const jit::BlockedPixels& bp = plan.blocked_pixels;
        ASSERT_TRUE(bp.enabled());
        const std::int64_t g = isa == jit::Isa::avx512 ? 4 : 2;  // pixels of 16 bytes a zmm, a ymm
        EXPECT_EQ(bp.pixels(), g);
        EXPECT_EQ(bp.block, 16);
        EXPECT_EQ(bp.src_row_bytes, 176);
        EXPECT_EQ(bp.dst_row_bytes, 96);
        // Window rows -1..1 for output row 0 (real 1 and 2), 7..9 for row 4 (real 7 and 8), all three between.
        EXPECT_EQ(bp.runs, (std::vector<jit::BlockedPixelRun>{{0, 1, 1, 3}, {1, 3, 0, 3}, {4, 1, 0, 2}}));
        // Width taps at -1, 0 and 1 from 2x: the pair at -1 (its odd pixels tap 0), the pair at 1.
        EXPECT_EQ(bp.pairs, (std::vector<jit::BlockedPixelPair>{{-1, true}, {1, false}}));
        // Chunk c loads pixels [2cG - 1, 2cG + 2G + 1): inside the 11 pixels for c >= 1 and 2cG + 2G + 1 <= 11.
        EXPECT_EQ(bp.chunks(), isa == jit::Isa::avx512 ? 2 : 3);
        EXPECT_EQ(bp.interior_begin(), 1);
        EXPECT_EQ(bp.interior_end(), isa == jit::Isa::avx512 ? 1 : 2);
        // Shifted taps: tap -1 the odd pixels one output back (the chunk before), 0 the even, 1 the odd pixels.
        ASSERT_TRUE(bp.shifted);
        const std::vector<jit::BlockedPixels::ShiftedTap> taps = bp.shifted_taps();
        ASSERT_EQ(taps.size(), 3u);
        EXPECT_EQ(std::pair(taps[0].phase, taps[0].m), std::pair(1, std::int64_t{-1}));
        EXPECT_EQ(std::pair(taps[1].phase, taps[1].m), std::pair(0, std::int64_t{0}));
        EXPECT_EQ(std::pair(taps[2].phase, taps[2].m), std::pair(1, std::int64_t{0}));
        EXPECT_EQ(bp.chunks_back(), 1);
        EXPECT_EQ(bp.chunks_ahead(), 0);
        // The loop: chunks whose 2G pixels end inside the 11 and whose G outputs are whole (2cG + 2G <= 11).
        EXPECT_EQ(bp.shifted_loop_chunks(), isa == jit::Isa::avx512 ? 1 : 2);
        EXPECT_FALSE(bp.whole_row);
    }
    // 1-D rows fold too (one more axis: rows of pixels of 8 bytes), and windows dilated or in uneven pads.
    const pj::Problem row = problem_of("maxpool dt=s8 layout=nCx8c src=1x16x100 k=3 s=2 pb=1 pe=1");
    ASSERT_TRUE(jit::folds_blocks(row, false));
    EXPECT_EQ(jit::blocks_folded(row).spatial_rank, 2);
    EXPECT_EQ(jit::blocks_folded(row).in, (pj::Problem::Spatial{100, 8, 1}));
    const jit::KernelPlan row_plan = jit::make_plan(jit::blocks_folded(row), jit::Isa::avx512, options);
    EXPECT_EQ(row_plan.blocked_pixels.runs, (std::vector<jit::BlockedPixelRun>{{0, 1, 0, 1}}));
    EXPECT_EQ(row_plan.blocked_pixels.pixels(), 8);
    const pj::Problem dilated = problem_of("maxpool dt=u8 layout=nCx8c src=1x8x9x15 k=2x3 s=1x2 d=1x2 pb=0x3 pe=1x0");
    ASSERT_TRUE(jit::folds_blocks(dilated, false));
    // Taps at -3, -1 and 1: no neighbours, a pair each.
    EXPECT_EQ(jit::make_plan(jit::blocks_folded(dilated), jit::Isa::avx2, options).blocked_pixels.pairs,
              (std::vector<jit::BlockedPixelPair>{{-3, false}, {-1, false}, {1, false}}));
    // 3-D windows one plane deep: each block's D planes D channels of the lane-axis problem (a plane apart).
    const pj::Problem i3d = problem_of("maxpool dt=u8 layout=nCx16c src=1x32x3x9x11 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1");
    ASSERT_TRUE(jit::folds_blocks(i3d, false));
    const pj::Problem planes = jit::blocks_folded(i3d);
    EXPECT_TRUE(jit::blocks_as_lanes(planes));
    EXPECT_EQ(planes.channels, 6);
    EXPECT_EQ(planes.in, (pj::Problem::Spatial{9, 11, 16}));
    EXPECT_EQ(planes.out, (pj::Problem::Spatial{5, 6, 16}));
    EXPECT_EQ(planes.kernel, (pj::Problem::Spatial{3, 3, 1}));
    EXPECT_EQ(planes.pad_begin, (pj::Problem::Spatial{1, 1, 0}));
    EXPECT_EQ(planes.src_strides, (pj::Problem::Strides{9504, 1584, {176, 16, 1}}));
    EXPECT_EQ(planes.dst_strides, (pj::Problem::Strides{2880, 480, {96, 16, 1}}));
    // A partial last block folds as a whole one (its padded lanes computed from the source's), and its planes, the
    // folded problem's last (a block's D planes in 3-D), go to the kernel's tail entry, which stores them as 0.
    for (const auto& [text, channels, tail, tail_planes] :
         {std::tuple{"maxpool dt=u8 layout=nCx16c src=1x20x12x12 k=3x3 s=2x2", 2, 4, 1},
          std::tuple{"maxpool dt=s8 layout=nCx8c src=2x12x3x9x11 k=1x3x3 s=1x2x2", 6, 4, 3}}) {
        SCOPED_TRACE(text);
        const pj::Problem partial = problem_of(text);
        const jit::Folds folds = jit::folds_of(partial, false);
        ASSERT_TRUE(folds.blocks);
        EXPECT_EQ(jit::blocks_folded(partial).channels, channels);
        EXPECT_EQ(folds.block_tail, tail);
        EXPECT_EQ(folds.block_planes, tail_planes);
        jit::PlanOptions partial_options;
        jit::set_folds(partial_options, folds);
        const jit::KernelPlan plan = jit::make_plan(jit::blocks_folded(partial), jit::Isa::avx2, partial_options);
        EXPECT_EQ(plan.blocked_pixels.tail_lanes, tail);
        EXPECT_EQ(plan.blocked_pixels.tail_planes, tail_planes);
        // The row code would store the padded lanes it computed: a choice that declines the plane code is refused.
        partial_options.choice.planes = pj::PlanChoice::Switch::off;
        EXPECT_THROW(jit::make_plan(jit::blocks_folded(partial), jit::Isa::avx2, partial_options), jit::UnhonouredChoice);
    }
    // Not folded at stride 2: 3-D windows more than one plane deep (no axis left for the lanes), indices, pixels
    // further apart than a block.
    for (const char* text : {"maxpool dt=u8 layout=nCx16c src=1x16x4x12x12 k=2x3x3 s=1x2x2",
                             "maxpool dt=s8 layout=nCx8c src=1x16x12x12 k=3x3 s=2x2 idx=s64",
                             "maxpool dt=u8 layout=nCx16c src=1x16x12x12 k=3x3 s=2x2 src_strides=4608x4608x384x32"}) {
        SCOPED_TRACE(text);
        EXPECT_FALSE(jit::folds_blocks(problem_of(text), true));
    }
}

}  // namespace
