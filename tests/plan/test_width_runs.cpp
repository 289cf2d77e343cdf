// The planner's border analysis: width runs against a per-output brute force over an exhaustive small grid,
// on huge axes (few runs, little time) and at the run cap.
#include "jit/plan/plan.hpp"
#include "support/width_runs_string.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

// ---- width runs ----------------------------------------------------------------------------------------------

struct Taps {
    std::int64_t begin = 0, end = 0;
    friend bool operator==(const Taps&, const Taps&) = default;
};

// The definition, one output at a time: taps t in [0, k) with 0 <= first + t*d < in are real; none: (0, 0).
Taps brute_force_taps(std::int64_t o, std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t pb) {
    const std::int64_t first = o * s - pb;
    std::optional<std::int64_t> begin;
    std::int64_t end = 0;
    for (std::int64_t t = 0; t < k; ++t) {
        const std::int64_t position = first + t * d;
        if (position < 0 || position >= in) continue;
        if (!begin) begin = t;
        end = t + 1;
    }
    return begin ? Taps{*begin, end} : Taps{0, 0};
}

struct Axis {
    std::int64_t out, in, kernel, stride, dilation, pad_begin;

    std::string text() const {
        return "out=" + std::to_string(out) + " in=" + std::to_string(in) + " k=" + std::to_string(kernel) +
               " s=" + std::to_string(stride) + " d=" + std::to_string(dilation) + " pb=" + std::to_string(pad_begin);
    }
};

using pooljit::testing::runs_string;

// Runs cover [0, out) in order without gaps, none is empty, neighbours differ (maximal), and each output's taps
// match the brute force: every output when `every_output`, else the first and last of each run.
std::optional<std::string> check_runs(const Axis& a, const std::vector<jit::WidthRun>& runs, bool every_output) {
    const auto fail = [&](const std::string& why) { return a.text() + ": " + why + "; runs " + runs_string(runs); };
    std::int64_t next = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const jit::WidthRun& r = runs[i];
        if (r.out_begin != next) return fail("run " + std::to_string(i) + " starts at " + std::to_string(r.out_begin));
        if (r.out_end <= r.out_begin) return fail("run " + std::to_string(i) + " is empty");
        if (i > 0 && runs[i - 1].tap_begin == r.tap_begin && runs[i - 1].tap_end == r.tap_end)
            return fail("runs " + std::to_string(i - 1) + " and " + std::to_string(i) + " have the same taps");
        const Taps got{r.tap_begin, r.tap_end};
        const auto check_output = [&](std::int64_t o) -> std::optional<std::string> {
            const Taps want = brute_force_taps(o, a.in, a.kernel, a.stride, a.dilation, a.pad_begin);
            const jit::WindowTaps one = jit::window_taps(o, a.in, a.kernel, a.stride, a.dilation, a.pad_begin);
            const std::string want_text = "[" + std::to_string(want.begin) + "," + std::to_string(want.end) + ")";
            if (one.begin != want.begin || one.end != want.end)
                return fail("window_taps(" + std::to_string(o) + ") = [" + std::to_string(one.begin) + "," +
                            std::to_string(one.end) + "), want " + want_text);
            if (got == want) return std::nullopt;
            return fail("output " + std::to_string(o) + " has taps " + want_text);
        };
        if (every_output) {
            for (std::int64_t o = r.out_begin; o < r.out_end; ++o)
                if (auto e = check_output(o)) return e;
        } else {
            if (auto e = check_output(r.out_begin)) return e;
            if (auto e = check_output(r.out_end - 1)) return e;
        }
        next = r.out_end;
    }
    if (next != a.out) return fail("runs end at " + std::to_string(next));
    return std::nullopt;
}

// The output size along one 1-D axis, as shape inference gives it.
std::int64_t resolved_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t pb, std::int64_t pe,
                          pj::Rounding rounding) {
    pj::MaxPoolDesc desc;
    desc.src = {pj::DType::f32, pj::Layout::ncx, {1, 1, in}};
    desc.kernel = {k};
    desc.strides = {s};
    desc.dilations = {d};
    desc.pads_begin = {pb};
    desc.pads_end = {pe};
    desc.rounding = rounding;
    return pj::resolve(desc).out[0];
}

// No cap on the number of runs: these tests check the grouping itself (the cap has its own test).
constexpr std::size_t unlimited_runs = std::numeric_limits<std::size_t>::max();

std::vector<jit::WidthRun> runs_of(const Axis& a, std::size_t max_runs = unlimited_runs) {
    return jit::width_runs(a.out, a.in, a.kernel, a.stride, a.dilation, a.pad_begin, max_runs);
}

constexpr std::array<pj::Rounding, 3> roundings = {pj::Rounding::floor, pj::Rounding::ceil, pj::Rounding::ceil_torch};

TEST(PlanWidthRuns, MatchBruteForceOnExhaustiveSmallGrid) {
    int checked = 0, failures = 0;
    for (pj::Rounding rounding : roundings)
        for (std::int64_t in = 1; in <= 12; ++in)
            for (std::int64_t k = 1; k <= 5; ++k)
                for (std::int64_t s = 1; s <= 4; ++s)
                    for (std::int64_t d = 1; d <= 3; ++d)
                        for (std::int64_t pb = 0; pb <= 6; ++pb)
                            for (std::int64_t pe = 0; pe <= 6; ++pe) {
                                if ((k - 1) * d + 1 > in + pb + pe) continue;  // rejected by validation
                                const Axis a{resolved_out(in, k, s, d, pb, pe, rounding), in, k, s, d, pb};
                                const auto runs = runs_of(a);
                                ++checked;
                                if (auto e = check_runs(a, runs, true); e && ++failures <= 10) ADD_FAILURE() << *e;
                            }
    EXPECT_EQ(failures, 0);
    EXPECT_GT(checked, 50000);
}

TEST(PlanWidthRuns, HugeAxesTakeFewRunsAndLittleTime) {
    constexpr std::int64_t trillion = 1'000'000'000'000, billion = 1'000'000'000;
    // A planner that walked every output (or every output in the padding) would need seconds to hours per
    // case here; closed-form runs take microseconds. The first slow case stops the test, named.
    constexpr auto slow = std::chrono::milliseconds(500);
    int failures = 0;
    for (pj::Rounding rounding : roundings)
        for (std::int64_t in : {std::int64_t{1}, std::int64_t{5}, trillion})
            for (std::int64_t pb : {std::int64_t{0}, std::int64_t{1}, std::int64_t{5}, billion})
                for (std::int64_t pe : {std::int64_t{0}, std::int64_t{3}, billion})
                    for (std::int64_t k : {1, 2, 3, 4, 5, 200})
                        for (std::int64_t s = 4; s >= 1; --s)  // the largest stride first: a slow planner fails sooner
                            for (std::int64_t d = 1; d <= 3; ++d) {
                                if (in < trillion && pb < billion && pe < billion) continue;  // not huge
                                if ((k - 1) * d + 1 > in + pb + pe) continue;
                                const Axis a{resolved_out(in, k, s, d, pb, pe, rounding), in, k, s, d, pb};
                                const auto start = std::chrono::steady_clock::now();
                                const auto runs = runs_of(a);
                                const auto took = std::chrono::steady_clock::now() - start;
                                ASSERT_LT(took, slow) << a.text() << ": width_runs took "
                                                      << std::chrono::duration<double>(took).count() << " s";
                                const auto limit = static_cast<std::size_t>(2 * (k * d / s + 3));
                                std::optional<std::string> e = check_runs(a, runs, false);
                                if (!e && runs.size() > limit)
                                    e = a.text() + ": " + std::to_string(runs.size()) + " runs, more than " + std::to_string(limit);
                                if (e && ++failures <= 10) ADD_FAILURE() << *e;
                            }
    EXPECT_EQ(failures, 0);
}

TEST(PlanWidthRuns, CapReturnsNothingBeyondMaxRuns) {
    int failures = 0;
    for (std::int64_t in = 1; in <= 12; ++in)
        for (std::int64_t k = 1; k <= 5; ++k)
            for (std::int64_t d = 1; d <= 3; ++d)
                for (std::int64_t pad = 0; pad <= 6; ++pad) {
                    if ((k - 1) * d + 1 > in + 2 * pad) continue;
                    const Axis a{resolved_out(in, k, 1, d, pad, pad, pj::Rounding::floor), in, k, 1, d, pad};
                    const auto all = runs_of(a);
                    const bool exact_ok = runs_of(a, all.size()) == all;
                    const bool one_less_empty = runs_of(a, all.size() - 1).empty();
                    if ((!exact_ok || !one_less_empty) && ++failures <= 10)
                        ADD_FAILURE() << a.text() << ": " << all.size() << " runs; with max_runs = that many "
                                      << (exact_ok ? "same" : "different") << ", with one less "
                                      << (one_less_empty ? "empty" : "not empty");
                }
    EXPECT_EQ(failures, 0);
}

}  // namespace
