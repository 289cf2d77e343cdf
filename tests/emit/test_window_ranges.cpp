// Global channels-last windows run as ranges of their pixels on the threads, merged in scan order
// (runtime/window_ranges.hpp): results bit for bit against the reference on each ISA the CPU runs, when the
// executor takes the ranges, and one buffer shared by concurrent executes.
#include "jit/isa/isa.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"
#include "runtime/tune.hpp"
#include "runtime/window_ranges.hpp"
#include "support/cpu_isas.hpp"
#include "support/isa_cap.hpp"
#include "support/run_compare.hpp"
#include "support/tie_data.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pj::test::check_split;
using pj::test::plan_on;
using pj::test::with_dtype;

const auto& dtypes = pj::test::all_dtypes;

// The ISA a test instance runs; the instance is skipped when the CPU lacks it.
class WindowRanges : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    jit::Isa isa() const { return GetParam(); }
};

// Global channels-last windows of one image run as ranges of their pixels, merged in scan order
// (KernelPlan::window_ranges), where the channel blocks cannot feed the threads or the input is beyond an L2: 1-D,
// 2-D, 3-D, adaptive to 1, a channel slice (pixels apart), ranges that do not divide the pixels (the last one
// overlapping), both NaN policies; every data type, split for 2, 3, 7 and 16 threads, on adversarial and tie data.
// Two images split their channels; indices, planar layouts and windows short of the input plan no ranges.
TEST_P(WindowRanges, GlobalWindowsRunAsRangesMatchTheReference) {
    const std::vector<std::string> shapes = {
        "maxpool layout=nxc src=1x5x1000 k=1000",
        "maxpool layout=nxc src=1x3x333 k=333 nan=ignore",
        "maxpool layout=nxc src=1x7x37x9 k=37x9",
        "maxpool layout=nxc src=2x7x37x9 k=37x9",
        "maxpool layout=nxc src=1x8x4x5x9 k=4x5x9 nan=ignore",
        "adaptivemaxpool layout=nxc src=1x6x19x23 out=1x1",
        "maxpool layout=nxc src=1x2x50x3 k=50x3 src_strides=1200x1x24x8 dst_strides=8x4x8x8",
        "maxpool layout=nxc src=1x130x3100 k=3100",
    };
    int shapes_ranged = 0;
    for (const std::string& shape : shapes)
        for (const char* dt : dtypes) {
            const std::string line = with_dtype(shape, dt);
            const pj::Problem p = pj::test::resolve_line(line);
            const auto impl = pj::detail::choose_implementation(p, isa(), pj::test::choice_for(isa()));
            EXPECT_TRUE(impl->plan.window_ranges) << line;
            // The rules take ranges where the channel blocks cannot feed the threads, or the input is beyond about
            // an L2 while a thread's share fits in one; the implementation holds them where the rules would take
            // them on the threads at its creation (a host of one core never splits).
            const std::int64_t blocks = p.channels / impl->plan.channel_block + (impl->plan.channel_tail > 0 ? 1 : 0);
            const double bytes = static_cast<double>(p.spatial_in_size() * p.channels * static_cast<std::int64_t>(pj::size_of(p.dtype)));
            const auto l2 = static_cast<double>(jit::l2_cache_bytes());
            const auto rules_take = [&](int threads) { return blocks < threads || (bytes >= 0.75 * l2 && bytes <= l2 * threads); };
            const int created_for = pj::detail::effective_threads();
            const bool held = created_for >= 2 && rules_take(created_for);
            EXPECT_EQ(impl->window_ranges != nullptr, held) << line;
            int ranged = 0;
            for (const int threads : {2, 3, 7, 16}) {
                const bool ranges = pj::detail::window_ranges_for(p, *impl, threads) != nullptr;
                EXPECT_EQ(ranges, held && p.batch == 1 && rules_take(threads)) << line << " on " << threads;
                ranged += ranges ? 1 : 0;
                check_split(line, isa(), threads);
            }
            if (held && p.batch == 1) {
                EXPECT_GT(ranged, 0) << line;
            }
            shapes_ranged += ranged > 0 ? 1 : 0;
        }
    if (pj::detail::effective_threads() >= 2) {
        EXPECT_GT(shapes_ranged, 40);
    }
    for (const char* line : {"maxpool dt=f32 layout=nxc src=1x40x1000 k=1000 idx=s64", "maxpool dt=f32 layout=ncx src=1x40x1000 k=1000",
                             "maxpool dt=u8 layout=nxc src=1x40x1000 k=999", "maxpool dt=u8 layout=nCx16c src=1x40x1000 k=1000"})
        EXPECT_FALSE(plan_on(isa(), pj::test::resolve_line(line)).window_ranges) << line;
}

// Data that tells every range apart: in each channel one element above all others (or the first NaN, or a +0 that
// comes before a -0 among values of -1) sits at its own pixel, the channels' pixels spread over every range, the
// overlap of the last two and the input's last pixel. A merge that lost, reordered or misplaced a range selects
// another element; its bits or its sign differ from the reference's.
TEST_P(WindowRanges, EveryRangeHoldsTheMaximumOfSomeChannel) {
    if (pj::detail::effective_threads() < 2) GTEST_SKIP() << "ranges are made for two threads or more";
    for (const char* dt : {"f32", "bf16", "u8", "s64"})
        for (const char* shape : {"maxpool layout=nxc src=1x23x1003 k=1003", "maxpool layout=nxc src=1x9x17x31 k=17x31 nan=ignore"}) {
            const std::string line = with_dtype(shape, dt);
            const pj::Problem p = pj::test::resolve_line(line);
            pj::PlanChoice on = pj::test::choice_for(isa());
            on.ranges = pj::PlanChoice::Switch::on;
            const auto impl = pj::detail::choose_implementation(p, isa(), on);
            ASSERT_NE(impl->window_ranges, nullptr) << line;
            const std::int64_t pixels = p.spatial_in_size(), channels = p.channels;
            const std::size_t elem = pj::size_of(p.dtype);
            const bool is_float = p.dtype != pj::DType::u8 && p.dtype != pj::DType::s64;
            for (int kind = 0; kind < (is_float ? 3 : 1); ++kind) {
                // Every element -1 (integers: 1), then per channel c at pixel `at`: kind 0 the maximum (2), kind 1 a
                // NaN (a second one later), kind 2 +0 with -0 later.
                std::vector<std::uint8_t> src(static_cast<std::size_t>(pixels * channels) * elem);
                const auto put = [&](std::int64_t pixel, std::int64_t c, std::uint64_t bits) {
                    std::memcpy(src.data() + static_cast<std::size_t>(pixel * channels + c) * elem, &bits, elem);
                };
                const std::uint64_t low = is_float ? pj::test::special_bits(p.dtype, 1) : 1, high = is_float ? pj::test::special_bits(p.dtype, 4) : 2;
                for (std::int64_t i = 0; i < pixels; ++i)
                    for (std::int64_t c = 0; c < channels; ++c) put(i, c, low);
                for (std::int64_t c = 0; c < channels; ++c) {
                    const std::int64_t at = c == channels - 1 ? pixels - 1 : c * (pixels - 1) / (channels - 1);
                    const std::int64_t later = std::min(pixels - 1, at + 1 + c % 3);
                    if (kind == 0) put(at, c, high);
                    if (kind == 1) put(at, c, pj::test::special_bits(p.dtype, 5) | 1), put(later, c, pj::test::special_bits(p.dtype, 5));
                    if (kind == 2) put(at, c, pj::test::special_bits(p.dtype, 3)), put(later, c, pj::test::special_bits(p.dtype, 2));
                }
                for (const int threads : {2, 5}) {
                    ASSERT_NE(pj::detail::window_ranges_for(p, *impl, threads), nullptr) << line;
                    pj::test::expect_run_matches_reference(p, src, [&](const void* s, void* d, void* i) {
                        pj::execute_problem_split(p, *impl, s, d, i, threads, true);
                    }, line + " kind " + std::to_string(kind) + " on " + std::to_string(threads) + " threads");
                }
            }
        }
}

// An implementation's buffer of range maxima serves one execute at a time: executes on other threads meanwhile
// split the channels. Four threads run one global window 20 times each; every result is the reference's.
TEST_P(WindowRanges, ConcurrentExecutesOfAGlobalWindowMatchTheReference) {
    const std::string line = "maxpool dt=f32 layout=nxc src=1x5x4000 k=4000 nan=ignore";
    const pj::Problem p = pj::test::resolve_line(line);
    const auto impl = pj::detail::choose_implementation(p, isa(), pj::test::choice_for(isa()));
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&] {
            for (int i = 0; i < 20; ++i)
                pj::test::expect_matches_reference_on_both_data_kinds(p, line, [&](const void* s, void* d, void* idx) {
                    pj::execute_problem_split(p, *impl, s, d, idx, 2, true);
                });
        });
    for (std::thread& c : callers) c.join();
}

INSTANTIATE_TEST_SUITE_P(Isas, WindowRanges, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const auto& isa_info) { return std::string(jit::to_string(isa_info.param)); });

}  // namespace
