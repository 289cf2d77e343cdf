// The NaN watch of planar rows (Planner::choose_planar_nan_watch): the fast copy adds every vector it loads into
// running sums and leaves for the exact copy where a sum is NaN. On AVX-512 the fast rows are masked items, whose
// border loads keep only the lanes whose tap lies inside the input; on AVX2 they are plain items. Either way every
// element a window reads must reach a sum: one NaN at each input position of a plane in turn, on tie data, is
// compared with the reference, values and indices, on each ISA the CPU has. Then the channels-last row code of
// dilated windows (Planner::choose_row_code_nan_watch), which watches f32 and f64 where its windows overlap.
#include "support/cpu_isas.hpp"
#include "support/isa_cap.hpp"
#include "support/plan_util.hpp"
#include "support/run_compare.hpp"
#include "support/tie_data.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pooljit::testing::plan_of;

// Windows whose border outputs AVX-512 takes as masked items: the stem's k3 s2 p1, a 1-D row of several vectors
// at stride 2 (the audio row's shape, padded), ceil rounding (a window past the row's end), a width dilation with
// pads as deep as the kernel (masks that skip taps), 3-D with padding, indices and nan=ignore.
const char* const watched_shapes[] = {
    "src=1x2x9x37 k=3x3 s=2x2 pb=1x1 pe=1x1",
    "src=1x2x300 k=3 s=2 pb=1 pe=1 idx=s64",
    "src=1x2x7x42 k=3x3 s=2x2 round=ceil nan=ignore",
    "src=1x2x6x45 k=2x3 s=2x2 d=1x2 pb=0x4 pe=1x4 idx=s32",
    "src=1x2x4x6x40 k=2x3x3 s=2x2x2 pb=0x1x1 pe=1x1x1",
};

std::string line_of(const char* dtype, const char* shape) {
    return std::string("maxpool dt=") + dtype + " layout=ncx " + shape;
}

// Items, not the buffers of separable rows or planes in registers, which small planes like these take and which
// watch their own way.
pj::PlanChoice items_choice(jit::Isa isa) {
    pj::PlanChoice choice = pj::test::choice_for(isa);
    choice.planes = pj::PlanChoice::Switch::off;
    choice.reuse = pj::PlanChoice::Reuse::none;
    return choice;
}

// The rules watch these rows on AVX-512, where their fast rows are masked border items. (AVX2 takes plain items,
// watched where the registers hold the sums: without indices here.)
TEST(PlanFacts, PlanarRowsOfMaskedItemsWatchForNan) {
    jit::PlanOptions options;
    options.choice = items_choice(jit::Isa::avx512);
    for (const char* dtype : {"f32", "f64", "bf16", "f16"})
        for (const char* shape : watched_shapes) {
            const std::string line = line_of(dtype, shape);
            const jit::KernelPlan plan = plan_of(line, jit::Isa::avx512, options);
            EXPECT_TRUE(plan.watch_rows_for_nan) << line;
            EXPECT_FALSE(plan.scan_rows_for_nan) << line;
            EXPECT_TRUE(std::any_of(plan.fast_segments.begin(), plan.fast_segments.end(), [](const jit::Segment& s) { return s.masked; }))
                << line;
            if (std::string(shape).find("idx=") == std::string::npos) {
                EXPECT_TRUE(plan_of(line, jit::Isa::avx2, options).watch_rows_for_nan) << line << " on avx2";
            }
        }
    // Windows that overlap 4 times or more keep the scan (Inception's k3 s1).
    EXPECT_TRUE(plan_of("maxpool layout=ncx src=1x2x28x28 k=3x3 pb=1x1 pe=1x1", jit::Isa::avx512, options).scan_rows_for_nan);
}

class JitIsa : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    jit::Isa isa() const { return GetParam(); }
};

TEST_P(JitIsa, PlanarWatchSeesANanAtEveryInputPosition) {
    pj::set_num_threads(1);
    for (const char* dtype : {"f32", "f64", "bf16", "f16"})
        for (const char* shape : watched_shapes) {
            const std::string line = line_of(dtype, shape);
            SCOPED_TRACE(line);
            const pj::PlanChoice choice = items_choice(isa());
            const pj::test::IsaCap cap(jit::to_string(isa()));
            const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
            ASSERT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa()));
            const pj::TensorDesc& d = p.src_desc();
            const std::size_t elem = pj::test::element_bytes(d);
            const std::size_t plane = pj::casegen::byte_size(d) / elem / static_cast<std::size_t>(d.dims[1]);
            std::mt19937_64 rng(plane);
            const std::vector<std::uint8_t> ties = pj::test::tie_input(d, rng);
            const std::uint64_t nan = pj::test::special_bits(d.dtype, 5);
            for (std::size_t position = 0; position < plane; ++position) {
                std::vector<std::uint8_t> src = ties;
                std::memcpy(src.data() + (plane + position) * elem, &nan, elem);  // the second plane
                SCOPED_TRACE("NaN at position " + std::to_string(position));
                pj::test::expect_run_matches_reference(p.problem(), src, [&](const void* s, void* dst, void* i) { p.execute(s, dst, i); },
                                                       jit::to_string(isa()));
                if (HasFailure()) return;
            }
        }
    pj::set_num_threads(0);
}

// Dilated 3x3 windows at stride 1, channels last, f32 and f64: AVX-512's row code watches (9 windows read each
// element: the rules scan other such rows); bf16 and windows without a dilation keep the scan.
TEST(PlanFacts, DilatedChannelsLastRowCodeWatchesItsF32Taps) {
    const auto watched = [](const std::string& line) {
        const jit::KernelPlan plan = plan_of(line, jit::Isa::avx512);
        EXPECT_NE(plan.scan_rows_for_nan, plan.watch_rows_for_nan) << line;
        return plan.watch_rows_for_nan;
    };
    EXPECT_TRUE(watched("maxpool dt=f32 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2"));
    EXPECT_TRUE(watched("maxpool dt=f64 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=1x1 pe=1x1"));
    EXPECT_TRUE(watched("maxpool dt=f32 layout=nCx16c src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2"));
    EXPECT_FALSE(watched("maxpool dt=bf16 layout=nxc src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2"));
    EXPECT_FALSE(watched("maxpool dt=f32 layout=nxc src=1x16x20x20 k=2x6 s=2x1"));
}

// One NaN at every third input element of such rows in turn (with 20, 12 and 24 channels, every position and
// every channel offset in turn, the padded lanes of the blocked tensor included), on tie data.
TEST_P(JitIsa, DilatedRowCodeWatchSeesANanAtEveryInputPosition) {
    pj::set_num_threads(1);
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x20x9x10 k=3x3 d=2x2 pb=2x2 pe=2x2",
                             "maxpool dt=f64 layout=nCx8c src=1x12x8x9 k=3x3 d=2x2 pb=1x1 pe=1x1 idx=s64",
                             "maxpool dt=f32 layout=nxc src=1x24x7x11 k=3x2 d=2x3 pb=1x2 pe=2x1 round=ceil nan=ignore"}) {
        SCOPED_TRACE(line);
        const pj::test::IsaCap cap(jit::to_string(isa()));
        const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
        ASSERT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa()));
        const pj::TensorDesc& d = p.src_desc();
        const std::size_t elem = pj::test::element_bytes(d), elements = pj::casegen::byte_size(d) / elem;
        std::mt19937_64 rng(elements);
        const std::vector<std::uint8_t> ties = pj::test::tie_input(d, rng);
        const std::uint64_t nan = pj::test::special_bits(d.dtype, 5);
        for (std::size_t e = 0; e < elements; e += 3) {  // every third element: each position, channel and block
            std::vector<std::uint8_t> src = ties;
            std::memcpy(src.data() + e * elem, &nan, elem);
            SCOPED_TRACE("NaN at element " + std::to_string(e));
            pj::test::expect_run_matches_reference(p.problem(), src, [&](const void* s, void* dst, void* i) { p.execute(s, dst, i); },
                                                   jit::to_string(isa()));
            if (HasFailure()) return;
        }
    }
    pj::set_num_threads(0);
}

INSTANTIATE_TEST_SUITE_P(Isas, JitIsa, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const ::testing::TestParamInfo<jit::Isa>& isa_info) { return std::string(jit::to_string(isa_info.param)); });

}  // namespace
