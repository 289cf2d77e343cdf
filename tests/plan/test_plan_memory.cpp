// The planner's view of memory (jit::MemoryFacts, jit/plan/plan_memory.cpp): which facts of a dense tensor the
// strides of a problem's src, dst and indices keep, and some of the choices each view then gets (runs of
// channels, rows apart, planes apart). Plans only, on any host, for both ISAs. Every expected value is worked out from the definitions: the element address of DESIGN.md section 2
// (n*s0 + c*s1 + sum x_i*s_{2+i}; blocked: (c / B)*s1 + c % B), the comments on MemoryFacts in jit/plan/plan.hpp,
// and KernelPlan's byte strides ("bytes between ...").
#include "jit/plan/plan.hpp"
#include "support/cpu_isas.hpp"
#include "support/plan_util.hpp"
#include "support/tensor_util.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::test::jit_isas;
using pooljit::testing::plan_of;

jit::MemoryFacts facts(bool rows, bool planes, bool stack, std::int64_t channel_run) {
    jit::MemoryFacts m;
    m.rows_contiguous = rows;
    m.planes_contiguous = planes;
    m.planes_stack = stack;
    m.channel_run = channel_run;
    return m;
}

std::string text(const jit::MemoryFacts& m) {
    return std::string("rows=") + (m.rows_contiguous ? "1" : "0") + " planes=" + (m.planes_contiguous ? "1" : "0") +
           " stack=" + (m.planes_stack ? "1" : "0") + " channel_run=" + std::to_string(m.channel_run);
}

void expect_facts(const std::string& line, const jit::MemoryFacts& want) {
    for (const jit::Isa isa : jit_isas) {
        const jit::KernelPlan plan = plan_of(line, isa);
        EXPECT_EQ(plan.memory, want) << line << " on " << jit::to_string(isa) << ": " << text(plan.memory) << ", want "
                                     << text(want);
    }
}

bool has_whole_plane_item(const jit::KernelPlan& plan) {
    for (const jit::Segment& s : plan.fast_segments)
        if (s.whole_plane) return true;
    return false;
}

// ---- dense tensors ---------------------------------------------------------------------------------------------

// Dense ncx: the width stride is 1 (rows), each row starts where the previous one ends and each d-plane where the
// previous one ends (planes), and channel c + 1's plane starts where channel c's ends, s1 = the plane's elements
// (stack), in src, dst and indices alike. Its channels are a plane apart, so no run of consecutive channels is
// longer than 1.
TEST(MemoryFacts, DenseNcxHasRowsPlanesAndStacking) {
    for (const char* line : {"maxpool dt=f32 layout=ncx src=2x3x37 k=3 s=2",
                             "maxpool dt=f32 layout=ncx src=2x5x14x14 k=2x2 s=2x2 idx=s64",
                             "maxpool dt=bf16 layout=ncx src=1x3x5x8x70 k=2x2x3 s=2x1x2 pb=0x1x1 pe=1x0x1 idx=s32 axis=1",
                             "adaptivemaxpool dt=u8 layout=ncx src=2x3x13x13 out=6x6 idx=s64"})
        expect_facts(line, facts(true, true, true, 1));
}

// Dense nxc: a pixel's C channels are consecutive (channel stride 1: a run of all C), and neighbouring pixels of a
// row are C apart, so no row is contiguous (and without rows, neither planes nor stacking hold).
TEST(MemoryFacts, DenseNxcHasARunOfAllChannels) {
    expect_facts("maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", facts(false, false, false, 64));
    expect_facts("maxpool dt=s8 layout=nxc src=2x19x300 k=3 s=2 idx=s64", facts(false, false, false, 19));
    expect_facts("maxpool dt=f64 layout=nxc src=1x20x5x6x7 k=2x2x2 idx=s32", facts(false, false, false, 20));
    expect_facts("adaptivemaxpool dt=f32 layout=nxc src=1x24x13x13 out=6x6 idx=s64", facts(false, false, false, 24));
    // One channel: the width stride is C = 1 and each row follows the last, so nxc is ncx: every fact, a run of 1.
    expect_facts("maxpool dt=f32 layout=nxc src=2x1x9x9 k=3x3", facts(true, true, true, 1));
}

// Dense blocked layouts: neighbouring pixels are a block apart (no rows); the channels of a block are consecutive,
// and blocks are a whole block-plane apart: runs of exactly the block.
TEST(MemoryFacts, DenseBlockedHasRunsOfTheBlock) {
    expect_facts("maxpool dt=f32 layout=nCx8c src=2x20x9x9 k=3x3", facts(false, false, false, 8));
    expect_facts("maxpool dt=f32 layout=nCx16c src=2x20x9x9 k=3x3 idx=s64", facts(false, false, false, 16));
    expect_facts("maxpool dt=u8 layout=nCx16c src=1x48x30 k=3 s=2", facts(false, false, false, 16));
}

// ---- an nxc channel slice ----------------------------------------------------------------------------------------

// Channels [0, C) of an nxc tensor of T = 4C channels: the dense nxc strides of the wider tensor,
// {prod(spatial) * T, 1, ..., W * T, T}.
std::vector<std::int64_t> slice_strides(const std::vector<std::int64_t>& dims, std::int64_t total_channels) {
    std::vector<std::int64_t> s(dims.size());
    std::int64_t inner = total_channels;
    for (std::size_t a = dims.size(); a-- > 2;) {
        s[a] = inner;
        inner *= dims[a];
    }
    s[1] = 1;
    s[0] = inner;
    return s;
}

// A slice's channels are consecutive (channel stride 1 everywhere, channel_run = C, as dense), so its code has
// the dense problem's shape: the same lanes, blocks, tails, sweeps, separable pixels and rings, the same rows
// and tables. Only the distances between pixels change, each 4 times the dense one (a pixel is 4C elements
// apart instead of C): KernelPlan's byte strides src_step_w, src_tap_stride_w, src_out_stride_w,
// src_tap_stride_h, src_tap_stride_d, dst_out_stride_w and indices_out_stride_w.
TEST(ChannelSlicePlans, PlansTheDenseCodeShapeWithWiderPixelSteps) {
    for (const char* line : {
             "maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",   // 4 vectors, no tail
             "maxpool dt=f32 layout=nxc src=2x70x12x9 k=3x3 pb=1x1 pe=1x1",            // column ring, a tail
             "maxpool dt=f32 layout=nxc src=2x32x12x11 k=5x5 pb=2x2 pe=2x2",           // AVX2: separable pixels
             "maxpool dt=f32 layout=nxc src=2x200x7x9 k=2x2 s=2x2 pb=0x1 pe=1x0",      // channel sweep
             "maxpool dt=f32 layout=nxc src=1x600x4x13 k=3x5 s=2x4 pb=3x6 pe=3x6 round=ceil",  // tap passes
             "maxpool dt=u8 layout=nxc src=2x70x9x9 k=3x3 s=2x2 pb=1x1 pe=1x1",        // byte lanes
             "maxpool dt=bf16 layout=nxc src=2x25x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1",     // widened pairs
             "maxpool dt=f32 layout=nxc src=1x20x5x6x7 k=2x2x2 s=1x2x2 pb=1x0x1 pe=0x1x0 idx=s64",  // 3-D, indices
             "maxpool dt=bf16 layout=nxc src=1x20x300 k=3 s=2 pb=1 pe=1 idx=s32",      // width ranges
             "adaptivemaxpool dt=f32 layout=nxc src=1x24x13x13 out=6x6 idx=s64",
         })
        for (const jit::Isa isa : jit_isas) {
            const pj::Problem dense = pooljit::testing::problem_of(line);
            const pj::TensorDesc src = dense.src_desc(), dst = dense.dst_desc();
            const std::int64_t C = dense.channels;
            const std::string slice_line = std::string(line) + " src_strides=" + pooljit::test::dims_string(slice_strides(src.dims, 4 * C)) +
                                           " dst_strides=" + pooljit::test::dims_string(slice_strides(dst.dims, 4 * C));
            SCOPED_TRACE(slice_line + " on " + jit::to_string(isa));
            // A slice's row is not one span of bytes: its plan is the dense one without vertical rows (which
            // merge a row's window rows over its contiguous bytes).
            jit::KernelPlan want = jit::make_plan(dense, isa);
            if (want.vertical_rows.enabled()) {
                want = jit::make_plan(dense, isa, {.choice = {.vertical = pj::PlanChoice::Switch::off}});
                want.choice = {};
            }
            const jit::KernelPlan got = plan_of(slice_line, isa);
            EXPECT_FALSE(got.vertical_rows.enabled());
            EXPECT_EQ(got.memory, want.memory) << text(got.memory);
            EXPECT_EQ(got.strategy, want.strategy);
            EXPECT_EQ(got.compare, want.compare);
            EXPECT_EQ(got.lanes, want.lanes);
            EXPECT_EQ(got.vectors_per_block, want.vectors_per_block);
            EXPECT_EQ(got.channel_block, want.channel_block);
            EXPECT_EQ(got.channel_tail, want.channel_tail);
            EXPECT_EQ(got.channel_sweep, want.channel_sweep);
            EXPECT_TRUE(got.separable == want.separable);
            EXPECT_EQ(got.ring_rows, want.ring_rows);
            EXPECT_EQ(got.ring_row_interval, want.ring_row_interval);
            EXPECT_EQ(got.ring_call_rows, want.ring_call_rows);
            EXPECT_EQ(got.tap_pass_taps, want.tap_pass_taps);
            EXPECT_EQ(got.width_ranges, want.width_ranges);
            EXPECT_EQ(got.widened_pairs, want.widened_pairs);
            // The pixel steps: 4 times the dense ones.
            EXPECT_EQ(got.src_step_w, 4 * want.src_step_w);
            EXPECT_EQ(got.src_tap_stride_w, 4 * want.src_tap_stride_w);
            EXPECT_EQ(got.src_out_stride_w, 4 * want.src_out_stride_w);
            EXPECT_EQ(got.src_tap_stride_h, 4 * want.src_tap_stride_h);
            EXPECT_EQ(got.src_tap_stride_d, 4 * want.src_tap_stride_d);
            EXPECT_EQ(got.dst_out_stride_w, 4 * want.dst_out_stride_w);
            EXPECT_EQ(got.indices_out_stride_w, 4 * want.indices_out_stride_w);
            // And nothing else: the slice's plan with the dense steps is the dense plan.
            jit::KernelPlan same = got;
            same.src_step_w = want.src_step_w;
            same.src_tap_stride_w = want.src_tap_stride_w;
            same.src_out_stride_w = want.src_out_stride_w;
            same.src_tap_stride_h = want.src_tap_stride_h;
            same.src_tap_stride_d = want.src_tap_stride_d;
            same.dst_out_stride_w = want.dst_out_stride_w;
            same.indices_out_stride_w = want.indices_out_stride_w;
            // (The two plans give vertical rows different reasons: the slice's rows, the dense one's choice.)
            const auto vertical_reason = [](std::vector<std::string>& choices) {
                for (std::string& c : choices)
                    if (c.starts_with("vertical_rows")) c = "vertical_rows";
            };
            vertical_reason(same.choices);
            vertical_reason(want.choices);
            EXPECT_TRUE(same == want) << "slice:\n" << jit::to_string(got) << "\ndense:\n" << jit::to_string(want);
        }
}

// The stem's slice, by hand: src 1x64x112x112 in a buffer of 256 channels has strides {112*112*256, 1, 112*256,
// 256} = {3211264, 1, 28672, 256}; its 56x56 output {56*56*256, 1, 56*256, 256} = {802816, 1, 14336, 256}.
// A pixel is 256 f32 = 1024 bytes: src_step_w 1024, the width stride 2 gives 2048 between outputs' first taps,
// a tap along h is a row of 28672 elements = 114688 bytes, dst pixels 1024 bytes apart.
TEST(ChannelSlicePlans, StemSliceStridesByHand) {
    const std::string line = "maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1 "
                             "src_strides=3211264x1x28672x256 dst_strides=802816x1x14336x256";
    for (const jit::Isa isa : jit_isas) {
        const jit::KernelPlan plan = plan_of(line, isa);
        EXPECT_EQ(plan.strategy, jit::Strategy::nxc_channels);
        EXPECT_EQ(plan.memory, facts(false, false, false, 64)) << text(plan.memory);
        EXPECT_EQ(plan.src_step_w, 1024);
        EXPECT_EQ(plan.src_tap_stride_w, 1024);
        EXPECT_EQ(plan.src_out_stride_w, 2048);
        EXPECT_EQ(plan.src_tap_stride_h, 114688);
        EXPECT_EQ(plan.src_tap_stride_d, 0);
        EXPECT_EQ(plan.dst_out_stride_w, 1024);
    }
}

// ---- an ncx row pitch ------------------------------------------------------------------------------------------

// Rows of W + 3 elements, and each channel's plane 2 elements further on than its rows reach (H x (W + 3) + 2):
// the width stride is still 1 (rows: planar code), but a plane's rows no longer follow one another (no whole-plane
// items, which read a plane as one span), and channel c + 1's first row is not one row step after channel c's last
// (no stacked planes: their walk of equal row steps would land 2 elements short of the next plane). Planes in
// registers keep the view (AVX-512): each tensor's plane rows are the view's (PlaneRows), loaded and stored a row's
// piece at a time.
//  - 2x3x7x7 k7: src {3*72, 7*10 + 2, 10, 1} = {216, 72, 10, 1}; its 1x1 output in rows of 4, planes 6 apart:
//    {3*6, 6, 4, 1} = {18, 6, 4, 1}.
//  - 2x5x14x14 k2 s2: src {5*240, 14*17 + 2, 17, 1} = {1200, 240, 17, 1}; 7x7 output in rows of 10:
//    {5*72, 7*10 + 2, 10, 1} = {360, 72, 10, 1}.
//  - adaptive 1x3x13x13 to 1x1: src {3*210, 13*16 + 2, 16, 1} = {630, 210, 16, 1}; dst {18, 6, 4, 1}.
struct PitchCase {
    const char* dense;  // its dense plan takes whole-plane items, planes in registers or stacked planes
    const char* pitch;  // the same with rows of W + 3 elements, channel planes 2 elements past their last row
    std::int64_t row_bytes;  // src bytes between rows: W + 3 f32
    jit::PlaneRows src_rows, dst_rows;  // where planes in registers, if taken, find the view's rows
};

const PitchCase pitch_cases[] = {
    {"maxpool dt=f32 layout=ncx src=2x3x7x7 k=7x7 idx=s64",
     "maxpool dt=f32 layout=ncx src=2x3x7x7 k=7x7 idx=s64 src_strides=216x72x10x1 dst_strides=18x6x4x1", 40,
     {7, 7, 10, 70}, {1, 1, 4, 4}},
    {"maxpool dt=f32 layout=ncx src=2x5x14x14 k=2x2 s=2x2",
     "maxpool dt=f32 layout=ncx src=2x5x14x14 k=2x2 s=2x2 src_strides=1200x240x17x1 dst_strides=360x72x10x1", 68,
     {14, 14, 17, 238}, {7, 7, 10, 70}},
    {"adaptivemaxpool dt=f32 layout=ncx src=1x3x13x13 out=1x1",
     "adaptivemaxpool dt=f32 layout=ncx src=1x3x13x13 out=1x1 src_strides=630x210x16x1 dst_strides=18x6x4x1", 64,
     {13, 13, 16, 208}, {1, 1, 4, 4}},
};

TEST(RowPitchPlans, KeepPlanarRowsAndPlanesInRegistersAndDeclineWholePlanesAndStacking) {
    bool dense_whole_plane = false, dense_stacked = false, pitch_planes = false;
    for (const PitchCase& c : pitch_cases)
        for (const jit::Isa isa : jit_isas) {
            SCOPED_TRACE(std::string(c.pitch) + " on " + jit::to_string(isa));
            const jit::KernelPlan dense = plan_of(c.dense, isa);
            EXPECT_EQ(dense.memory, facts(true, true, true, 1)) << text(dense.memory);
            dense_whole_plane |= has_whole_plane_item(dense);
            dense_stacked |= dense.stacked_planes;
            const jit::KernelPlan plan = plan_of(c.pitch, isa);
            EXPECT_EQ(plan.memory, facts(true, false, false, 1)) << text(plan.memory);
            EXPECT_FALSE(has_whole_plane_item(plan));
            EXPECT_FALSE(plan.stacked_planes);
            // The dense problem's planes in registers stay in registers over the pitch.
            EXPECT_EQ(plan.strategy, dense.strategy);
            if (plan.strategy == jit::Strategy::ncx_planes) {
                pitch_planes = true;
                EXPECT_EQ(plan.plane.src_rows, c.src_rows);
                EXPECT_EQ(plan.plane.dst_rows, c.dst_rows);
                EXPECT_EQ(plan.plane.gathers, dense.plane.gathers);
                continue;
            }
            EXPECT_EQ(plan.strategy, jit::Strategy::ncx_width);
            // Planar steps are one element along the width; a tap along h is one row of the pitch.
            EXPECT_EQ(plan.src_step_w, 4);
            EXPECT_EQ(plan.dst_out_stride_w, 4);
            EXPECT_EQ(plan.src_tap_stride_h, c.row_bytes);
        }
    // The premise: the dense plans took each of the three on some ISA (whole planes on both, planes in registers
    // on AVX-512, stacked planes on AVX2).
    EXPECT_TRUE(dense_whole_plane);
    EXPECT_TRUE(pitch_planes);
    EXPECT_TRUE(dense_stacked);
}

// A plane's pieces (jit::plane_pieces): rows of 14 in a pitch of 17 (the case above), registers of 16 lanes.
// Register 0 holds row 0 (lanes 0-13, offset 0) and row 1's first two elements (lanes 14-15 at 17); register 1
// row 1's elements 2-13 (lanes 0-11 at 19) and row 2's first four (lanes 12-15 at 34). Dense rows (pitch 14)
// continue one another: one piece from lane 0. 3-D rows (2 planes of 2 rows of 3, rows 5 apart, planes 20 apart):
// elements 0-11 lie at 0-2, 5-7, 20-22, 25-27.
TEST(PlanePieces, FollowTheRowsOfAView) {
    // (first lane, lanes, offset) of each piece
    const auto pieces = [](const jit::PlaneRows& rows, std::int64_t first, std::int64_t count) {
        std::vector<std::tuple<int, int, std::int64_t>> out;
        for (const jit::PlanePiece& q : jit::plane_pieces(rows, first, count)) out.emplace_back(q.lane, q.lanes, q.offset);
        return out;
    };
    using T = std::vector<std::tuple<int, int, std::int64_t>>;
    const jit::PlaneRows pitch{14, 14, 17, 238};
    EXPECT_EQ(pieces(pitch, 0, 16), (T{{0, 14, 0}, {14, 2, 17}}));
    EXPECT_EQ(pieces(pitch, 16, 16), (T{{0, 12, 19}, {12, 4, 34}}));
    EXPECT_EQ(pieces(pitch, 192, 4), (T{{0, 4, 13 * 17 + 10}}));  // the last register: row 13's last four
    const jit::PlaneRows dense{14, 14, 14, 196};
    EXPECT_EQ(pieces(dense, 16, 16), (T{{0, 16, 16}}));
    const jit::PlaneRows deep{3, 2, 5, 20};
    EXPECT_EQ(pieces(deep, 0, 12), (T{{0, 3, 0}, {3, 3, 5}, {6, 3, 20}, {9, 3, 25}}));
}

// Stacked planes need only that channel c + 1's first row is one row step after channel c's last: a row pitch
// whose channel planes are exactly in_h rows of it. VGG pool5-like 1x8x14x14 k2 s2 with rows of 16 (src
// {8*14*16, 14*16, 16, 1} = {1792, 224, 16, 1}) and 7x7 outputs in rows of 9 (dst {8*7*9, 7*9, 9, 1} =
// {504, 63, 9, 1}): rows and stacking hold, contiguous planes do not (a row of 14 in a pitch of 16). Where the
// dense problem stacks its planes on an ISA, the view stacks them there too.
TEST(RowPitchPlans, PlanesOfWholeRowsOfAPitchStack) {
    const std::string dense = "maxpool dt=f32 layout=ncx src=1x8x14x14 k=2x2 s=2x2";
    const std::string pitch = dense + " src_strides=1792x224x16x1 dst_strides=504x63x9x1";
    bool stacked_somewhere = false;
    for (const jit::Isa isa : jit_isas) {
        SCOPED_TRACE(jit::to_string(isa));
        const jit::KernelPlan plan = plan_of(pitch, isa);
        EXPECT_EQ(plan.memory, facts(true, false, true, 1)) << text(plan.memory);
        // (AVX-512 keeps the dense problem's planes in registers, over the pitch too.)
        if (plan_of(dense, isa).stacked_planes) {
            EXPECT_TRUE(plan.stacked_planes);
        }
        stacked_somewhere |= plan.stacked_planes;
    }
    EXPECT_TRUE(stacked_somewhere);
}

// 1-D: a plane is one row, so planes of a pitch (channels 40 elements apart, rows of 37) are still one span each:
// rows and planes hold, stacking does not (channel c + 1 does not start where c ends), and the global pool keeps
// its whole-plane items. src {3*40, 40, 1} = {120, 40, 1}; dst 1 output a channel, 2 apart: {6, 2, 1}.
TEST(RowPitchPlans, OneDimensionalPlanesOfAPitchAreStillOneSpan) {
    const std::string line = "maxpool dt=f32 layout=ncx src=2x3x37 k=37 src_strides=120x40x1 dst_strides=6x2x1";
    for (const jit::Isa isa : jit_isas) {
        SCOPED_TRACE(jit::to_string(isa));
        const jit::KernelPlan plan = plan_of(line, isa);
        EXPECT_EQ(plan.memory, facts(true, true, false, 1)) << text(plan.memory);
        EXPECT_EQ(plan.strategy, jit::Strategy::ncx_width);
        EXPECT_TRUE(has_whole_plane_item(plan));
    }
}

// A source broadcast along C (channel stride 0) in ncx: its rows and planes are dense, but every channel reads
// the same plane, so channel planes do not stack; planar rows serve it.
TEST(RowPitchPlans, NcxSourceBroadcastAlongChannelsKeepsPlanesButDoesNotStack) {
    const std::string line = "maxpool dt=f32 layout=ncx src=2x5x14x14 k=2x2 s=2x2 src_strides=196x0x14x1";
    for (const jit::Isa isa : jit_isas) {
        SCOPED_TRACE(jit::to_string(isa));
        const jit::KernelPlan plan = plan_of(line, isa);
        EXPECT_EQ(plan.memory, facts(true, true, false, 1)) << text(plan.memory);
        EXPECT_NE(plan.strategy, jit::Strategy::nxc_channels);
        EXPECT_FALSE(plan.stacked_planes);
    }
}

// ---- channels_last strides under an ncx tag (PyTorch channels_last) ----------------------------------------------

// ncx dims with the dense nxc strides address every element where dense nxc does, so the facts (a run of all C,
// no rows) and the whole plan are the dense nxc problem's: the layout tag itself decides nothing.
//  - 1x64x112x112 k3 s2 p1: src {112*112*64, 1, 112*64, 64} = {802816, 1, 7168, 64}; 56x56 output
//    {56*56*64, 1, 56*64, 64} = {200704, 1, 3584, 64}.
//  - 2x70x12x9 k3 p1 (same-size output): {12*9*70, 1, 9*70, 70} = {7560, 1, 630, 70}.
//  - u8 2x70x9x9 k3 s2 p1: src {5670, 1, 630, 70}; 5x5 output {5*5*70, 1, 5*70, 70} = {1750, 1, 350, 70}.
//  - 3-D 1x20x5x6x7 k2 s1x2x2 pb1x0x1 pe0x1x0: src {5*6*7*20, 1, 6*7*20, 7*20, 20} = {4200, 1, 840, 140, 20};
//    output 5x3x4: {5*3*4*20, 1, 3*4*20, 4*20, 20} = {1200, 1, 240, 80, 20}; the indices take dst's.
//  - adaptive 1x24x13x13 to 6x6: src {13*13*24, 1, 13*24, 24} = {4056, 1, 312, 24}; dst {864, 1, 144, 24}.
TEST(ChannelsLastStridePlans, PlanExactlyLikeDenseNxc) {
    const std::pair<const char*, const char*> cases[] = {
        {"maxpool dt=f32 layout=nxc src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1",
         "maxpool dt=f32 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1 src_strides=802816x1x7168x64 "
         "dst_strides=200704x1x3584x64"},
        {"maxpool dt=f32 layout=nxc src=2x70x12x9 k=3x3 pb=1x1 pe=1x1",
         "maxpool dt=f32 layout=ncx src=2x70x12x9 k=3x3 pb=1x1 pe=1x1 src_strides=7560x1x630x70 dst_strides=7560x1x630x70"},
        {"maxpool dt=u8 layout=nxc src=2x70x9x9 k=3x3 s=2x2 pb=1x1 pe=1x1",
         "maxpool dt=u8 layout=ncx src=2x70x9x9 k=3x3 s=2x2 pb=1x1 pe=1x1 src_strides=5670x1x630x70 dst_strides=1750x1x350x70"},
        {"maxpool dt=f32 layout=nxc src=1x20x5x6x7 k=2x2x2 s=1x2x2 pb=1x0x1 pe=0x1x0 idx=s64",
         "maxpool dt=f32 layout=ncx src=1x20x5x6x7 k=2x2x2 s=1x2x2 pb=1x0x1 pe=0x1x0 idx=s64 "
         "src_strides=4200x1x840x140x20 dst_strides=1200x1x240x80x20"},
        {"adaptivemaxpool dt=f32 layout=nxc src=1x24x13x13 out=6x6 idx=s64",
         "adaptivemaxpool dt=f32 layout=ncx src=1x24x13x13 out=6x6 idx=s64 src_strides=4056x1x312x24 dst_strides=864x1x144x24"},
    };
    for (const auto& [nxc, tagged] : cases)
        for (const jit::Isa isa : jit_isas) {
            SCOPED_TRACE(std::string(tagged) + " on " + jit::to_string(isa));
            const jit::KernelPlan want = plan_of(nxc, isa), got = plan_of(tagged, isa);
            EXPECT_EQ(got.memory.channel_run, pooljit::testing::problem_of(nxc).channels);
            EXPECT_EQ(got.strategy, jit::Strategy::nxc_channels);
            EXPECT_EQ(got.vectors_per_block, want.vectors_per_block);
            EXPECT_EQ(got.channel_block, want.channel_block);
            EXPECT_EQ(got.channel_tail, want.channel_tail);
            EXPECT_EQ(got.channel_sweep, want.channel_sweep);
            EXPECT_TRUE(got == want) << "tagged ncx:\n" << jit::to_string(got) << "\ndense nxc:\n" << jit::to_string(want);
        }
}

// ---- blocked layouts ---------------------------------------------------------------------------------------------

// nCx8c / nCx16c: channels-last code whose calls stay inside one block (channel_run = the block): the block of a
// call divides the layout's block (a call never steps from the last channel of a block into the next block's
// memory, a whole block-plane away); fewer channels than a block (1x5x300) are one call of all C, inside the
// first block. The tail is what C leaves of whole call blocks. Neighbouring pixels are a block apart:
// src_step_w = B elements. Calls sweep several blocks, a block's stride apart, only where a call's block is the
// layout's, the rows are bound by memory, the blocks' planes small (7x7, 7x9: not 64x64) and no NaN scan reads
// the call's channels as one run; the others one block a call (channel_sweep 1).
TEST(BlockedPlans, ChannelsLastCallsInsideOneBlock) {
    for (const char* layout : {"nCx8c", "nCx16c"})
        for (const char* dt : {"f32", "f64", "bf16", "u8", "s64"})
            for (const char* shape : {"src=2x20x9x9 k=3x3 pb=1x1 pe=1x1", "src=1x48x7x7 k=7x7 idx=s32",
                                      "src=2x200x7x9 k=2x2 s=2x2", "src=1x5x300 k=3 s=2", "src=1x32x64x64 k=2x2 s=2x2"})
                for (const jit::Isa isa : jit_isas) {
                    const std::string line = std::string("maxpool dt=") + dt + " layout=" + layout + " " + shape;
                    SCOPED_TRACE(line + " on " + jit::to_string(isa));
                    const pj::Problem p = pooljit::testing::problem_of(line);
                    const jit::KernelPlan plan = jit::make_plan(p, isa);
                    EXPECT_EQ(plan.memory, facts(false, false, false, p.block)) << text(plan.memory);
                    EXPECT_EQ(plan.strategy, jit::Strategy::nxc_channels);
                    EXPECT_GE(plan.channel_block, 1);
                    if (p.channels >= p.block)
                        EXPECT_EQ(p.block % plan.channel_block, 0) << "channel_block " << plan.channel_block;
                    else
                        EXPECT_EQ(plan.channel_block, p.channels);
                    const std::string_view dims(shape);
                    const bool memory_bound_small_planes =  // 64x64 planes of a block span 32-512 KiB
                        dims.find("x7x9 ") != std::string_view::npos || dims.find("x7x7 ") != std::string_view::npos;
                    if (memory_bound_small_planes && plan.channel_block == p.block && !(plan.is_float && plan.scan_rows_for_nan)) {
                        EXPECT_GT(plan.channel_sweep, 1);
                        const std::int64_t elem = static_cast<std::int64_t>(pj::size_of(p.dtype));
                        EXPECT_EQ(plan.sweep_src_step, p.src_strides.c * elem);
                        EXPECT_EQ(plan.sweep_dst_step, p.dst_strides.c * elem);
                        if (p.has_indices) {
                            EXPECT_EQ(plan.sweep_indices_step,
                                      p.indices_strides.c * static_cast<std::int64_t>(pj::size_of(p.index_dtype)));
                        }
                    } else {
                        EXPECT_EQ(plan.channel_sweep, 1);
                    }
                    EXPECT_EQ(plan.channel_tail, p.channels % plan.channel_block);
                    EXPECT_EQ(plan.src_step_w, p.block * static_cast<std::int64_t>(pj::size_of(p.dtype)));
                }
}

// ---- neither channels nor width consecutive -----------------------------------------------------------------

// Every stride doubled (every element 2 apart), in either tag, and an nxc source broadcast along C (channel
// stride 0): no row is contiguous (width stride 2, 2C or C > 1) and no two channels are consecutive in every
// tensor (channel_run 1), so channels-last code takes one channel a call.
//  - nxc 2x19x9x11 k3 s2 p1 (5x6 output): src 2 x {9*11*19, 1, 11*19, 19} = {3762, 2, 418, 38};
//    dst 2 x {5*6*19, 1, 6*19, 19} = {1140, 2, 228, 38}.
//  - ncx 2x5x7x40 k3 p1 (same size): 2 x {5*7*40, 7*40, 40, 1} = {2800, 560, 80, 2} for both.
//  - nxc 2x70x12x9 k3 p1, src {12*9*70, 0, 9*70, 70} = {7560, 0, 630, 70}, dst dense.
TEST(ApartChannelPlans, OneChannelACall) {
    for (const char* line :
         {"maxpool dt=f32 layout=nxc src=2x19x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 src_strides=3762x2x418x38 "
          "dst_strides=1140x2x228x38",
          "maxpool dt=f32 layout=ncx src=2x5x7x40 k=3x3 pb=1x1 pe=1x1 idx=s64 src_strides=2800x560x80x2 "
          "dst_strides=2800x560x80x2",
          "maxpool dt=u8 layout=nxc src=2x70x12x9 k=3x3 pb=1x1 pe=1x1 src_strides=7560x0x630x70"})
        for (const jit::Isa isa : jit_isas) {
            SCOPED_TRACE(std::string(line) + " on " + jit::to_string(isa));
            const jit::KernelPlan plan = plan_of(line, isa);
            EXPECT_EQ(plan.memory, facts(false, false, false, 1)) << text(plan.memory);
            EXPECT_EQ(plan.strategy, jit::Strategy::nxc_channels);
            EXPECT_EQ(plan.channel_block, 1);
            EXPECT_EQ(plan.channel_tail, 0);
            EXPECT_EQ(plan.channel_sweep, 1);
        }
}

}  // namespace
