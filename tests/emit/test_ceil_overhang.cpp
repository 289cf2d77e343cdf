// Windows that reach past the padded input: under ceil and ceil_torch, with explicit or valid pads, a
// dilated kernel may span up to s - 1 elements more than the padded input; that axis then has one output whose
// window holds the whole axis, its taps past the padded end skipped like padding. The reference is checked against
// the ONNX example (here and in tests/data/spec_examples.txt); the JIT is checked against the reference only,
// on each ISA the CPU has (the others are skipped by name): 1-D, 2-D and 3-D, both layouts, with dilation, every
// data type, s32 and s64 indices (row- and column-major, axis 0 and 1), NaN under both policies, and generated cases.
#include "casegen/casegen.hpp"
#include "jit/plan/plan.hpp"
#include "jit/plan/strategies.hpp"
#include "support/cpu_isas.hpp"
#include "support/run_compare.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

// A problem string without dt=, layout=, idx= and nan=: the test runs it in every combination of them.
struct OverhangCase {
    const char* name;
    const char* shape;
    int threads = 1;
};

// P = in + pb + pe (valid: in), ek = (k-1)*d + 1; each case has P < ek < P + s on the axes named.
const OverhangCase cases[] = {
    // 1-D
    {"onnx_example_more_channels", "src=2x19x3 k=4 s=2 round=ceil_torch"},             // ek 4, P 3, s 2
    {"dilation_begin_pad", "src=1x5x7 k=4 s=3 d=3 pb=1 pe=0 round=ceil"},               // ek 10, P 8, s 3
    {"valid_two_past", "src=1x4x5 k=7 s=3 pad=valid round=ceil_torch"},                 // ek 7, P 5, s 3
    {"single_element", "src=1x6x1 k=3 s=3 pb=1 pe=0 round=ceil"},                       // ek 3, P 2, s 3
    {"long_window", "src=1x3x200 k=210 s=16 round=ceil"},                               // ek 210, P 200, s 16
    // 2-D
    {"width_pads_both_sides", "src=2x3x9x5 k=3x7 s=2x3 pb=1x1 pe=1x0 round=ceil"},     // W: ek 7, P 6, s 3
    {"height", "src=1x20x5x9 k=7x3 s=3x2 pb=1x1 pe=0x1 round=ceil_torch"},              // H: ek 7, P 6, s 3
    {"both_axes", "src=1x3x4x3 k=5x4 s=2x2 round=ceil"},                                // H: 5 > 4, W: 4 > 3
    {"valid_dilated_both_axes", "src=1x17x6x4 k=3x3 s=2x2 d=3x2 pad=valid round=ceil"}, // H: 7 > 6, W: 5 > 4
    {"width_under_column_ring", "src=1x40x11x3 k=5x4 s=1x2 pb=2x0 pe=2x0 round=ceil"},  // W: ek 4, P 3, s 2
    {"width_under_planes", "src=2x3x20x5 k=5x6 s=1x2 pb=2x0 pe=2x0 round=ceil"},       // W: ek 6, P 5, s 2
    {"height_paired_width", "src=1x3x3x40 k=4x3 s=2x2 pb=0x1 pe=0x1 round=ceil_torch"}, // H: ek 4, P 3, s 2
    {"height_gathered_width", "src=1x2x3x50 k=5x4 s=3x3 d=1x2 pb=1x3 pe=0x3 round=ceil"},  // H: ek 5, P 4, s 3
    {"height_computed_width", "src=1x5x3x7 k=5x300 s=3x2 d=1x3 pb=1x1000 pe=0x950 round=ceil"},  // H: 5 > 4
    {"height_width_ranges", "src=1x20x2x300 k=3x3 s=2x2 pb=0x1 pe=0x1 round=ceil", 3},  // H: ek 3, P 2, s 2
    {"long_width", "src=1x3x20x40 k=5x42 s=1x3 pb=2x1 pe=2x0 round=ceil"},             // W: ek 42, P 41, s 3
    // 3-D
    {"depth_and_width", "src=1x2x3x5x4 k=4x3x6 s=2x2x3 pb=0x1x1 pe=0x1x0 round=ceil"},  // D: 4 > 3, W: 6 > 5
    {"valid_height_width", "src=1x18x4x3x6 k=2x5x3 s=1x3x2 d=1x1x3 pad=valid round=ceil_torch"},  // H: 5 > 3, W: 7 > 6
    {"long_width_3d", "src=1x2x8x9x40 k=2x3x44 s=1x2x5 pb=0x1x1 pe=1x1x0 round=ceil"},  // W: ek 44, P 41, s 5
    {"every_axis", "src=2x3x3x4x5 k=5x6x7 s=3x3x3 round=ceil"},                         // 5 > 3, 6 > 4, 7 > 5
};

const char* const dtypes[] = {"f32", "f64", "f16", "bf16", "s8", "u8", "s32", "s64"};
const char* const index_options[] = {"", " idx=s32", " idx=s64", " idx=s64 axis=1", " idx=s32 order=col"};

std::string line_of(const char* dt, const char* layout, const std::string& shape, const char* index_option,
                    const char* nan) {
    return std::string("maxpool dt=") + dt + " layout=" + layout + " " + shape + index_option + " nan=" + nan;
}

// The axes whose window reaches past the padded input.
std::vector<int> overhanging_axes(const pj::Problem& p) {
    std::vector<int> axes;
    for (int a = 0; a < p.spatial_rank; ++a) {
        const auto u = static_cast<std::size_t>(a);
        const std::int64_t extent = (p.kernel[u] - 1) * p.dilation[u] + 1;
        if (extent > p.in[u] + p.pad_begin[u] + p.pad_end[u]) axes.push_back(a);
    }
    return axes;
}

// ---- The reference against the ONNX example, and taps past the padded end ----------------------------------

struct ReferenceRun {
    std::vector<float> values;
    std::vector<std::int64_t> indices;
};

ReferenceRun run_reference(const std::string& line, const std::vector<float>& src) {
    const pj::Problem p = pj::test::resolve_line(line);
    const auto outputs = static_cast<std::size_t>(pj::casegen::byte_size(p.dst_desc()) / sizeof(float));
    ReferenceRun run{std::vector<float>(outputs), std::vector<std::int64_t>(outputs)};
    pj::reference::execute(p, src.data(), run.values.data(), run.indices.data());
    return run;
}

TEST(CeilOverhangReference, OnnxExample) {
    // ONNX MaxPool, input [1, 3, 2], kernel_shape=[4], strides=[2], ceil_mode=1: Y = [3], Indices = [1].
    const ReferenceRun onnx = run_reference("maxpool dt=f32 layout=ncx src=1x1x3 k=4 s=2 round=ceil_torch idx=s64", {1, 3, 2});
    EXPECT_EQ(onnx.values, (std::vector<float>{3}));
    EXPECT_EQ(onnx.indices, (std::vector<std::int64_t>{1}));
    // OpenVINO's ceil and valid pads give the same.
    const ReferenceRun openvino =
        run_reference("maxpool dt=f32 layout=ncx src=1x1x3 k=4 s=2 pad=valid round=ceil idx=s64", {1, 3, 2});
    EXPECT_EQ(openvino.values, (std::vector<float>{3}));
    EXPECT_EQ(openvino.indices, (std::vector<std::int64_t>{1}));
}

TEST(CeilOverhangReference, TapsPastThePaddedEndAreSkipped) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    // The last real element is the maximum: a tap read past the end would be a value the window does not hold.
    const ReferenceRun last = run_reference("maxpool dt=f32 layout=ncx src=1x1x3 k=6 s=3 pb=1 pe=1 round=ceil idx=s64",
                                            {-4, -5, -1});
    EXPECT_EQ(last.values, (std::vector<float>{-1}));
    EXPECT_EQ(last.indices, (std::vector<std::int64_t>{2}));
    // Dilation: k 3, d 2 over 4 elements reads positions 0, 2 and (past the end) 4.
    const ReferenceRun dilated = run_reference("maxpool dt=f32 layout=ncx src=1x1x4 k=3 s=2 d=2 pad=valid round=ceil idx=s64",
                                               {-inf, 9, -inf, 7});
    EXPECT_EQ(dilated.values, (std::vector<float>{-inf}));
    EXPECT_EQ(dilated.indices, (std::vector<std::int64_t>{0}));  // the first real element, -inf, not an empty window
    // 2-D, both axes past the input: the maximum of the whole plane, index in row-major order.
    const ReferenceRun plane = run_reference("maxpool dt=f32 layout=ncx src=1x1x2x3 k=3x4 s=2x2 round=ceil_torch idx=s64",
                                             {1, 2, 3, 4, 8, 6});
    EXPECT_EQ(plane.values, (std::vector<float>{8}));
    EXPECT_EQ(plane.indices, (std::vector<std::int64_t>{4}));
}

// ---- Plan level, on any host ----------------------------------------------------------------------------------

TEST(CeilOverhangPlans, EveryCaseOverhangsAndTheCasesReachTheMainStrategies) {
    std::set<jit::StrategyId> reached[2];
    for (const OverhangCase& c : cases)
        for (const char* layout : {"ncx", "nxc"}) {
            const std::string line = line_of("f32", layout, c.shape, "", "propagate");
            SCOPED_TRACE(line);
            const pj::Problem p = pj::test::resolve_line(line);
            EXPECT_FALSE(overhanging_axes(p).empty()) << "the case does not reach past the padded input";
            for (std::size_t i = 0; i < 2; ++i)
                for (const jit::StrategyId id : jit::strategies_of(jit::make_plan(p, pj::test::jit_isas[i])))
                    reached[i].insert(id);
        }
    using enum jit::StrategyId;
    for (const jit::StrategyId id : {nxc_segments, ncx_segments, computed_windows, whole_plane, looped_width_taps,
                                     paired_lanes, gathered_lanes, width_ranges}) {
        EXPECT_TRUE(reached[0].count(id)) << "no case plans " << jit::name_of(id) << " on avx512";
        EXPECT_TRUE(reached[1].count(id)) << "no case plans " << jit::name_of(id) << " on avx2";
    }
    for (const jit::StrategyId id : {planes_in_registers, column_ring, taps_as_lanes, masked_items})
        EXPECT_TRUE(reached[0].count(id)) << "no case plans " << jit::name_of(id) << " on avx512";
}

// ---- Run level: the JIT against the reference -----------------------------------------------------------------

class CeilOverhang : public ::testing::TestWithParam<std::tuple<std::size_t, jit::Isa>> {};

// Every case in both layouts, every data type, every index option and both NaN policies, on adversarial data
// (NaN, infinities, ties, signed zeros: the exact code) and tie data (the fast code).
TEST_P(CeilOverhang, MatchesTheReferenceInEveryVariant) {
    const auto [index, isa] = GetParam();
    POOLJIT_SKIP_UNLESS_CPU_RUNS(isa);
    const OverhangCase& c = cases[index];
    for (const char* layout : {"ncx", "nxc"})
        for (const char* dt : dtypes)
            for (const char* index_option : index_options)
                for (const char* nan : {"propagate", "ignore"}) {
                    pj::test::check_created(line_of(dt, layout, c.shape, index_option, nan), isa, c.threads);
                    if (HasFailure()) return;
                }
}

std::vector<std::tuple<std::size_t, jit::Isa>> run_cases() {
    std::vector<std::tuple<std::size_t, jit::Isa>> out;
    for (std::size_t i = 0; i < std::size(cases); ++i)
        for (const jit::Isa isa : pj::test::jit_isas) out.emplace_back(i, isa);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Cases, CeilOverhang, ::testing::ValuesIn(run_cases()), [](const auto& run) {
    return std::string(cases[std::get<0>(run.param)].name) + "_" + jit::to_string(std::get<1>(run.param));
});

// Generated cases whose windows reach past the padded input (casegen draws them now and then), per ISA.
class GeneratedCeilOverhang : public ::testing::TestWithParam<jit::Isa> {};

TEST_P(GeneratedCeilOverhang, MatchTheReference) {
    const jit::Isa isa = GetParam();
    POOLJIT_SKIP_UNLESS_CPU_RUNS(isa);
    pj::casegen::Generator gen(0x0FE4A26);
    int checked = 0;
    for (int draws = 0; checked < 300 && draws < 100000; ++draws) {
        const pj::MaxPoolDesc desc = gen.max_pool();
        if (overhanging_axes(pj::resolve(desc)).empty()) continue;
        pj::test::check_created(pj::to_string(desc), isa, 1);
        if (HasFailure()) return;
        ++checked;
    }
    EXPECT_EQ(checked, 300) << "casegen draws too few windows past the padded input";
}

INSTANTIATE_TEST_SUITE_P(Isas, GeneratedCeilOverhang, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const auto& run) { return std::string(jit::to_string(run.param)); });

}  // namespace
