// Vertical rows (channels-last integer pixels that end inside a vector, jit/plan/plan_vertical.cpp and
// jit/emit/emit_vertical_rows.cpp): what the planner takes and declines, and the code against the reference on tie
// data and the lowest value, on each ISA the CPU runs (the AVX2 form by choice), with output views.
#include "jit/isa/isa.hpp"
#include "jit/plan/plan.hpp"
#include "support/cpu_isas.hpp"
#include "support/isa_cap.hpp"
#include "support/plan_util.hpp"
#include "support/run_compare.hpp"
#include "support/tie_data.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::testing::plan_of;

jit::PlanOptions vertical(pj::PlanChoice::Switch s) {
    jit::PlanOptions options;
    options.choice.vertical = s;
    return options;
}

// The rules take u8/s8/s32 pixels that end inside a 64-byte vector, in windows of 3 rows or more (before the column
// ring), or of 2 rows at a stride of 2 or more over pixels of more than a vector, and byte pixels of whole vectors
// in windows of 5 rows or more at stride 1: the row's bytes, and one tap along h for the row code.
TEST(PlanFacts, VerticalRowsTakePixelsEndingInsideAVector) {
    struct Case {
        const char* line;
        std::int64_t row_bytes;
        int taps;
    };
    for (const Case& c : {Case{"maxpool dt=u8 layout=nxc src=1x72x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1", 56 * 72, 3},
                          Case{"maxpool dt=s8 layout=nxc src=2x40x13x9 k=3x2 s=2x2 pb=1x0 pe=2x1", 9 * 40, 3},
                          Case{"maxpool dt=s32 layout=nxc src=1x20x11x7 k=4x3 s=2x1 pb=1x1 pe=1x0", 7 * 20 * 4, 4},
                          Case{"maxpool dt=u8 layout=nxc src=1x40x20x3 k=17x2 s=3x1 pb=8x0 pe=8x1", 3 * 40, 0},
                          // at stride 1 along h, before the column ring; 2 rows over pixels of more than a vector
                          Case{"maxpool dt=u8 layout=nxc src=1x56x28x28 k=3x3 pb=1x1 pe=1x1", 28 * 56, 3},
                          Case{"maxpool dt=s8 layout=nxc src=1x120x20x20 k=5x5 pb=2x2 pe=2x2", 20 * 120, 5},
                          Case{"maxpool dt=u8 layout=nxc src=1x72x56x56 k=2x2 s=2x2", 56 * 72, 2},
                          // byte pixels of whole vectors in windows of 5 rows at stride 1 (before the column ring)
                          Case{"maxpool dt=u8 layout=nxc src=1x128x20x20 k=5x5 pb=2x2 pe=2x2", 20 * 128, 5}}) {
        SCOPED_TRACE(c.line);
        const jit::KernelPlan plan = plan_of(c.line, jit::Isa::avx512);
        ASSERT_TRUE(plan.vertical_rows.enabled());
        EXPECT_EQ(plan.vertical_rows.row_bytes, c.row_bytes);
        EXPECT_EQ(plan.vertical_rows.taps, c.taps);  // 0: windows of more than 16 rows loop over them
        EXPECT_EQ(plan.unrolled_taps_h, 1);
        EXPECT_FALSE(plan.width_ranges);
        EXPECT_EQ(plan.channel_block, plan.vertical_rows.row_bytes / plan.in_width / static_cast<std::int64_t>(pj::size_of(plan.dtype)));
        EXPECT_EQ(plan.ring_rows, 0);
        // The AVX2 form by choice only.
        EXPECT_FALSE(plan_of(c.line, jit::Isa::avx2).vertical_rows.enabled());
    }
    EXPECT_TRUE(plan_of("maxpool dt=u8 layout=nxc src=1x40x12x11 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx2,
                        vertical(pj::PlanChoice::Switch::on))
                    .vertical_rows.enabled());
}

TEST(PlanFacts, VerticalRowsDeclineWhatTheyCannotMergeFirst) {
    for (const char* line : {
             "maxpool dt=u8 layout=nxc src=1x64x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1",   // whole vectors
             "maxpool dt=u8 layout=nxc src=1x64x28x28 k=3x3 pb=1x1 pe=1x1",         // whole vectors, 3 rows
             "maxpool dt=u8 layout=nxc src=1x64x20x20 k=5x5 s=2x2 pb=2x2 pe=2x2",   // whole vectors, stride 2
             "maxpool dt=s32 layout=nxc src=1x32x20x20 k=5x5 pb=2x2 pe=2x2",        // whole vectors of s32
             "maxpool dt=u8 layout=nxc src=1x40x56x56 k=2x2 s=2x2",                 // 2 rows over one vector
             "maxpool dt=u8 layout=nxc src=1x72x28x28 k=2x2 pb=1x1 pe=1x1",         // 2 rows at stride 1
             "maxpool dt=u8 layout=nxc src=1x72x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s32",  // indices
             "maxpool dt=u8 layout=nxc src=1x72x56x56 k=1x3 s=2x2",                 // one row
             "maxpool dt=u8 layout=nxc src=1x72x300 k=3 s=2",                       // 1-D
             "maxpool dt=u8 layout=ncx src=1x72x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1",   // planar
             // a channel slice: the row's pixels are 4 x 72 bytes apart
             "maxpool dt=u8 layout=nxc src=1x72x20x20 k=3x3 s=2x2 src_strides=115200x1x5760x288",
             // a row of more than 32 KiB
             "maxpool dt=u8 layout=nxc src=1x72x8x500 k=3x3 s=2x2",
         }) {
        SCOPED_TRACE(line);
        EXPECT_FALSE(plan_of(line, jit::Isa::avx512).vertical_rows.enabled());
    }
    // Floats: rows merged before columns could keep another of +0 and -0, or another NaN, than the scan order.
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x40x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=bf16 layout=nxc src=1x40x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=nxc src=1x72x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64"}) {
        SCOPED_TRACE(line);
        try {
            plan_of(line, jit::Isa::avx512, vertical(pj::PlanChoice::Switch::on));
            ADD_FAILURE() << "vertical=on honoured";
        } catch (const jit::UnhonouredChoice& e) {
            EXPECT_NE(std::string(e.what()).find("vertical=on"), std::string::npos) << e.what();
        }
    }
    EXPECT_FALSE(plan_of("maxpool dt=u8 layout=nxc src=1x72x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1", jit::Isa::avx512,
                         vertical(pj::PlanChoice::Switch::off))
                     .vertical_rows.enabled());
}

// Tie data and the lowest value (every window's maximum is the empty value), dense and into output views (a
// channel slice of a wider tensor, a row pitch: the gaps keep their poison), batches, 1 and 2 threads.
TEST(VerticalRows, MatchTheReferenceOnTiesAndTheLowestValue) {
    for (const jit::Isa isa : pj::test::jit_isas) {
        if (!jit::cpu_runs(isa)) continue;
        for (const int threads : {1, 2}) {
            pj::set_num_threads(threads);
            for (const char* line : {"maxpool dt=u8 layout=nxc src=2x72x21x19 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                     "maxpool dt=s8 layout=nxc src=1x56x17x23 k=3x3 s=2x2 round=ceil",
                                     "maxpool dt=u8 layout=nxc src=1x40x30x30 k=5x3 s=3x2 d=1x2 pb=2x1 pe=2x1",
                                     "maxpool dt=s32 layout=nxc src=2x20x15x13 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                     "maxpool dt=s8 layout=nxc src=1x24x9x9 k=3x3 s=2x2 pb=2x2 pe=2x2",
                                     "maxpool dt=u8 layout=nxc src=1x56x12x13 k=3x3 pb=1x1 pe=1x1",
                                     "maxpool dt=s8 layout=nxc src=2x40x9x10 k=5x5 pb=2x2 pe=2x2",
                                     "maxpool dt=u8 layout=nxc src=1x72x14x12 k=2x2 s=2x2",
                                     "maxpool dt=u8 layout=nxc src=2x128x12x11 k=5x5 pb=2x2 pe=2x2",
                                     "maxpool dt=u8 layout=nxc src=1x120x14x14 k=3x3 s=2x2 pb=1x1 pe=1x1 "
                                     "dst_strides=23520x1x1680x240",
                                     "maxpool dt=u8 layout=nxc src=2x72x12x12 k=3x3 s=2x2 dst_strides=3200x1x640x80"}) {
                SCOPED_TRACE(line + std::string(" on ") + jit::to_string(isa) + ", " + std::to_string(threads) + " threads");
                // The AVX2 form takes 72 and 120 u8 channels in blocks of fewer (no vertical rows).
                try {
                    plan_of(line, isa, vertical(pj::PlanChoice::Switch::on));
                } catch (const jit::UnhonouredChoice&) {
                    EXPECT_EQ(isa, jit::Isa::avx2);
                    continue;
                }
                pj::PlanChoice choice = pj::test::choice_for(isa);
                choice.vertical = pj::PlanChoice::Switch::on;
                const pj::test::IsaCap cap(jit::to_string(isa));
                const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
                EXPECT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa));
                const pj::TensorDesc& d = p.src_desc();
                std::mt19937_64 rng(7);
                const auto run = [&](const void* s, void* o, void* i) { p.execute(s, o, i); };
                pj::test::expect_run_matches_reference(p.problem(), pj::test::integer_ties(d, rng), run, jit::to_string(isa));
                std::vector<std::uint8_t> lowest(pj::casegen::byte_size(d), 0x00);
                if (d.dtype == pj::DType::s8)
                    for (std::uint8_t& b : lowest) b = 0x80;
                if (d.dtype == pj::DType::s32)
                    for (std::size_t i = 3; i < lowest.size(); i += 4) lowest[i] = 0x80;
                pj::test::expect_run_matches_reference(p.problem(), lowest, run, jit::to_string(isa));
            }
        }
    }
    pj::set_num_threads(0);
}

}  // namespace
