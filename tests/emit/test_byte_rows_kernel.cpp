// The byte rows' kernel through its ABI (jit/emit/kernel.hpp), with calls the executor never makes for these
// plans: rows of one output row of consecutive planes (a step other than the buffers') and windows that lie
// wholly in the padding along h; and adaptive pools run under their max pool's byte pairs. Against the
// reference, on each ISA the CPU has (skipped by name otherwise).
#include "jit/emit/kernel.hpp"
#include "jit/isa/lanes.hpp"
#include "support/cpu_isas.hpp"
#include "support/run_compare.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

class JitIsa : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    jit::Isa isa() const { return GetParam(); }
};

// Byte rows serve every call of their plan (no row code runs byte lanes): calls whose rows are one output row of
// consecutive planes (a step other than the buffers') run row by row, and a call of windows that lie wholly in
// the padding along h stores the lowest value (u8 0, s8 -128) over its rows and nothing past them. The kernel
// is called directly, as the executor never makes such calls for these plans.
TEST_P(JitIsa, ByteRowsServeCallsOfAnyStepAndEmptyRows) {
    // (The 3x3 windows at stride 2 take byte pairs, which have no buffers: the 3x5 ones take the buffers.)
    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x3x9x70 k=3x3 s=1x1 pb=1x1 pe=1x0",
                             "maxpool dt=s8 layout=ncx src=1x3x9x75 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=s8 layout=ncx src=1x3x9x75 k=3x5 s=2x2 pb=1x2 pe=1x2"}) {
        SCOPED_TRACE(line);
        const pj::Problem p = pj::test::resolve_line(line);
        // (bands=off: the AVX2 form's byte bands would take these planes.)
        const jit::KernelPlan plan = jit::make_plan(p, isa(), jit::PlanOptions{.choice = {.bands = pj::PlanChoice::Switch::off}});
        if (plan.separable.byte_pairs && std::string_view(line).find("k=3x3 s=2x2") != std::string_view::npos)
            continue;
        ASSERT_TRUE(plan.separable.enabled() && !plan.separable.byte_pairs && jit::lane_bytes(plan.compare) == 1)
            << "not byte rows through buffers";
        const std::unique_ptr<jit::CompiledKernel> kernel = jit::compile(plan);
        const std::int64_t C = p.channels, H = p.in[0], W = p.in[1], OH = p.out[0], OW = p.out[1];
        std::mt19937_64 rng(7);
        std::vector<std::uint8_t> src(static_cast<std::size_t>(C * H * W));
        for (std::uint8_t& b : src) b = static_cast<std::uint8_t>(rng());
        std::vector<std::uint8_t> want(static_cast<std::size_t>(C * OH * OW)), got(want.size(), 0xA5);
        pj::reference::execute(p, src.data(), want.data(), nullptr);
        for (std::int64_t oh = 0; oh < OH; ++oh) {
            const jit::OuterTaps th = jit::outer_taps_of(p, 0, oh);
            jit::KernelArgs a{};
            a.src = src.data() + th.first_position * W;
            a.dst = got.data() + oh * OW;
            a.taps_h = th.count;
            a.taps_d = 1;
            a.rows = C;
            a.src_row_step = H * W;
            a.dst_row_step = OH * OW;
            a.out_end = OW;
            a.sweep_blocks = 1;
            kernel->full_block()(&a);
        }
        EXPECT_EQ(got, want);
        std::vector<std::uint8_t> empty(static_cast<std::size_t>(2 * OW + 5), 0xA5);
        jit::KernelArgs e{};
        e.src = src.data();
        e.dst = empty.data();
        e.taps_h = 0;
        e.taps_d = 1;
        e.rows = 2;
        e.src_row_step = W;
        e.dst_row_step = OW;
        e.out_end = OW;
        e.sweep_blocks = 1;
        kernel->full_block()(&e);
        const std::uint8_t lowest = p.dtype == pj::DType::s8 ? 0x80 : 0x00;
        for (std::size_t i = 0; i < empty.size(); ++i)
            EXPECT_EQ(empty[i], i < static_cast<std::size_t>(2 * OW) ? lowest : 0xA5) << "byte " << i;
    }
}

// Byte pairs take windows past the input's first and last rows only where each keeps a real row: over one input
// row with pads of 2 before and 1 after, k2 dilated by 2 reads rows -2 and 0 for output row 0 and rows -1 and 1
// for output row 1, which has none (its outputs are the lowest value). The plan declines byte pairs there (their
// code has no empty rows: it ran into an illegal instruction), and the code the rules give (byte bands off)
// matches the reference; a dilation of 2 with every window keeping a row still takes byte pairs.
TEST_P(JitIsa, BytePairsLeaveDilatedRowsThatStepOverTheInput) {
    const char* const empty_row = "maxpool dt=u8 layout=ncx src=1x2x1x200 k=2x3 s=1x2 d=2x1 pb=2x2 pe=2x1";
    EXPECT_FALSE(jit::make_plan(pj::test::resolve_line(empty_row), isa()).separable.byte_pairs);
    EXPECT_TRUE(jit::make_plan(pj::test::resolve_line("maxpool dt=u8 layout=ncx src=1x2x9x200 k=2x3 s=1x2 d=2x1 pb=1x1 pe=1x1"),
                               isa())
                    .separable.byte_pairs);
    for (const char* line : {empty_row, "maxpool dt=s8 layout=ncx src=2x3x2x90 k=3x2 s=2x2 d=2x1 pb=3x0 pe=3x0"}) {
        SCOPED_TRACE(line);
        pj::PlanChoice choice = pj::test::choice_for(isa());
        choice.bands = pj::PlanChoice::Switch::off;
        const pj::Primitive q = pj::create(pj::parse_problem(line), choice);
        EXPECT_EQ(q.impl_name(), std::string("jit:") + jit::to_string(isa()));
        pj::test::expect_matches_reference_on_both_data_kinds(q.problem(), line,
                                                             [&](const void* s, void* d, void* i) { q.execute(s, d, i); });
    }
}

// Adaptive bins that are a max pool's windows run that max pool's plan (jit/plan/plan.cpp, byte pairs on AVX2):
// every input width from 4 to 33 and every output width up to one more than the input whose bins are such windows
// (with padding at either end), over 12 rows to 6 (k2 s2), u8 and s8, against the reference; at least a dozen
// sizes take the max pool's plan on AVX2.
TEST_P(JitIsa, AdaptiveBinsThatAreAMaxPoolsWindowsMatchTheReference) {
    int planned_as_max_pool = 0;
    for (std::int64_t in = 4; in <= 33; ++in)
        for (std::int64_t out = 1; out <= in + 1; ++out) {
            const std::string line = "adaptivemaxpool dt=" + std::string(out % 2 == 0 ? "u8" : "s8") +
                                     " layout=ncx src=2x3x12x" + std::to_string(in) + " out=6x" + std::to_string(out);
            const jit::KernelPlan plan = jit::make_plan(pj::test::resolve_line(line), isa());
            if (std::none_of(plan.choices.begin(), plan.choices.end(),
                             [](const std::string& c) { return c.starts_with("adaptive_bins"); }))
                continue;
            ++planned_as_max_pool;
            pj::test::check_created(line, isa(), 1);
            if (HasFailure()) return;
        }
    if (isa() == jit::Isa::avx2) {
        EXPECT_GE(planned_as_max_pool, 12);
    }
}

INSTANTIATE_TEST_SUITE_P(Isas, JitIsa, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const ::testing::TestParamInfo<jit::Isa>& isa_info) { return std::string(jit::to_string(isa_info.param)); });

}  // namespace
