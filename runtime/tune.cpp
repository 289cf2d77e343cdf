// The tuner: the candidate choices the rules leave open for one problem, each checked against the reference
// and timed on this CPU, interleaved, within a budget (DESIGN.md section 5, "Measured choice").
#include "runtime/tune.hpp"

#include "jit/isa/isa.hpp"
#include "jit/plan/plan.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/dtype.hpp"
#include "runtime/executor.hpp"
#include "runtime/window_ranges.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace pooljit {
namespace {

using Clock = std::chrono::steady_clock;

// The most bytes of source, destination and indices extents the tuner allocates (twice the source for its check
// and timing data): a view far wider than its elements is tuned on its dense twin by the caller, or not at all.
constexpr std::size_t max_tune_bytes = std::size_t{4} << 30;
double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

// Test data the kernels must get right: ties of small values with +0 beside -0 and runs of the type's lowest
// value; with `nan`, NaN of two payloads among them (integers: the same ties). Deterministic.
std::vector<std::uint8_t> check_data(const TensorDesc& desc, bool nan, std::uint64_t seed) {
    std::vector<std::uint8_t> bytes(byte_extent(desc));
    std::mt19937_64 rng(seed);
    dispatch_dtype(desc.dtype, [&](auto d) {
        constexpr DType D = decltype(d)::value;
        using T = typename dtype_traits<D>::storage;
        const std::size_t count = bytes.size() / sizeof(T);
        bool lowest_run = false;
        for (std::size_t i = 0; i < count; ++i) {
            if (rng() % 16 == 0) lowest_run = !lowest_run;
            const int pick = lowest_run ? 0 : static_cast<int>(rng() % 6);
            T v{};
            if constexpr (D == DType::f16 || D == DType::bf16) {
                const float values[] = {-65504.0f, -1.0f, -0.0f, 0.0f, 1.0f, 2.0f};
                v = D == DType::f16 ? f32_to_f16(values[pick]) : f32_to_bf16(values[pick]);
                if (pick == 0) v = D == DType::f16 ? std::uint16_t{0xFC00} : std::uint16_t{0xFF80};  // -inf
                if (nan && rng() % 11 == 0) v = D == DType::f16 ? std::uint16_t(0x7E00 | (rng() & 1)) : std::uint16_t(0x7FC0 | (rng() & 1));
            } else if constexpr (std::is_floating_point_v<T>) {
                const T values[] = {-std::numeric_limits<T>::infinity(), T(-1), T(-0.0), T(0), T(1), T(2)};
                v = values[pick];
                if (nan && rng() % 11 == 0) v = (rng() & 1) ? std::numeric_limits<T>::quiet_NaN() : -std::numeric_limits<T>::quiet_NaN();
            } else {
                const T values[] = {std::numeric_limits<T>::lowest(), T(std::is_signed_v<T> ? -1 : 3), T(0), T(0), T(1), T(2)};
                v = values[pick];
            }
            std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
        }
    });
    return bytes;
}

// What a network hands over: finite, half zeros, small integers every type holds.
std::vector<std::uint8_t> timing_data(const TensorDesc& desc) {
    std::vector<std::uint8_t> bytes(byte_extent(desc));
    dispatch_dtype(desc.dtype, [&](auto d) {
        constexpr DType D = decltype(d)::value;
        using T = typename dtype_traits<D>::storage;
        const std::size_t count = bytes.size() / sizeof(T);
        std::uint32_t x = 12345;
        for (std::size_t i = 0; i < count; ++i) {
            x = x * 1664525u + 1013904223u;
            const int v = (x >> 20) % 2 == 0 ? 0 : static_cast<int>((x >> 8) % 200) - 72;
            T t{};
            if constexpr (D == DType::f16) t = f32_to_f16(static_cast<float>(v));
            else if constexpr (D == DType::bf16) t = f32_to_bf16(static_cast<float>(v));
            else if constexpr (std::is_same_v<T, std::uint8_t>) t = static_cast<T>(std::max(v, 0));
            else t = static_cast<T>(v);
            std::memcpy(bytes.data() + i * sizeof(T), &t, sizeof(T));
        }
    });
    return bytes;
}

// The candidates around the rules, one answer changed at a time (never their product): the executor's threads
// and grain on the rules' code first (the enumeration stops at half the budget, and a short problem on many
// threads loses most to its thread count), then each ISA form, and in each the alternatives of every choice and
// a few values of every measured constant.
std::vector<PlanChoice> candidate_choices(const Problem& p, int threads) {
    using C = PlanChoice;
    std::vector<PlanChoice> out{PlanChoice{}};
    for (int t = 1; t < threads; t *= 2) {
        PlanChoice c;
        c.threads = t;
        out.push_back(c);
    }
    if (threads > 1) {
        for (const std::int32_t g : {1, 16}) {
            PlanChoice c;
            c.grain = g;
            out.push_back(c);
        }
        for (const C::Switch s : {C::Switch::off, C::Switch::on}) {  // a global window split by channels or by ranges
            PlanChoice c;
            c.ranges = s;
            out.push_back(c);
        }
    }
    std::vector<C::Isa> isas;
    for (const auto& [isa, name] : {std::pair{jit::Isa::avx512, C::Isa::avx512}, std::pair{jit::Isa::avx2, C::Isa::avx2}})
        if (jit::cpu_runs(isa) && isa <= jit::max_isa()) isas.push_back(name);
    const bool is_float = p.dtype == DType::f32 || p.dtype == DType::f64 || p.dtype == DType::f16 || p.dtype == DType::bf16;
    for (const C::Isa isa : isas) {
        const auto with = [&](auto&& set) {
            PlanChoice c;
            c.isa = isa;
            set(c);
            out.push_back(c);
        };
        with([](C&) {});
        if (is_float)
            for (const C::Nan n : {C::Nan::scan, C::Nan::watch}) with([&](C& c) { c.nan = n; });
        for (const C::Reuse r : {C::Reuse::none, C::Reuse::ring, C::Reuse::separable}) with([&](C& c) { c.reuse = r; });
        for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.planes = s; });
        with([](C& c) { c.masked = C::Switch::off; });
        for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.tap_pairs = s; });
        for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.ranks = s; });
        for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.bands = s; });
        for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.vertical = s; });
        if (p.dtype == DType::bf16)
            for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.pairs = s; });
        for (const std::int32_t v : {1, 2048, 32768}) with([&](C& c) { c.sweep_bytes = v; });
        for (const std::int32_t v : {8, 12, 24}) with([&](C& c) { c.separable_kib = v; });
        for (const std::int32_t v : {-1, 6, 24}) with([&](C& c) { c.prefetch_kib = v; });
        for (const std::int32_t v : {12, 48}) with([&](C& c) { c.chunk_kib = v; });
    }
    return out;
}

// Two implementations make the same code and split when their plans differ only in how they were chosen.
bool same_code(const detail::Implementation& a, const detail::Implementation& b) {
    if (a.impl_name != b.impl_name || a.choice.threads != b.choice.threads || a.choice.grain != b.choice.grain) return false;
    jit::KernelPlan x = a.plan, y = b.plan;
    x.choice = y.choice = {};
    x.choices.clear();
    y.choices.clear();
    return x == y;
}

struct Candidate {
    std::shared_ptr<const detail::Implementation> impl;
    TuneCandidate report;
    int calls = 1;  // calls a timed batch makes
};

}  // namespace

TuneResult tune(const AnyPoolDesc& desc_in, const TuneOptions& options) {
    const auto start = Clock::now();
    if (options.batch < 0) throw Error("tune: batch = " + std::to_string(options.batch) + ", must be >= 0 (0: the descriptor's N)");
    if (options.threads < 0 || options.threads > 4096)
        throw Error("tune: threads = " + std::to_string(options.threads) + ", must be in [0, 4096] (0: execute's threads)");
    if (!(options.budget_ms > 0) || !std::isfinite(options.budget_ms))
        throw Error("tune: budget_ms = " + std::to_string(options.budget_ms) + ", must be a positive number of milliseconds");
    AnyPoolDesc desc = desc_in;
    std::visit([](const auto& d) { (void)resolve(d); }, desc);  // the descriptor as given: its own errors first
    if (options.batch > 0) std::visit([&](auto& d) { d.src.dims[0] = options.batch; }, desc);
    const Problem problem = std::visit([](const auto& d) { return resolve(d); }, desc);
    // The tuner runs the problem on buffers of its views' extents (check and timing data, outputs).
    const std::size_t extents = byte_extent(problem.src_desc()) + byte_extent(problem.dst_desc()) +
                                (problem.has_indices ? byte_extent(problem.indices_desc()) : 0);
    if (extents > max_tune_bytes)
        throw Error("tune: " + to_string(desc) + " spans " + std::to_string(extents) + " bytes of views, more than the " +
                    std::to_string(max_tune_bytes >> 20) + " MiB the tuner allocates to time it");
    TuneResult result;
    result.problem = to_string(desc);
    result.threads = options.threads > 0 ? options.threads : detail::effective_threads();

    // Candidates, compiled outside the cache; a choice the planner refuses, or one that makes code the rules'
    // or an earlier candidate's already makes, is dropped.
    std::vector<Candidate> candidates;
    Problem key_problem = problem;
    key_problem.batch = 0;
    for (const PlanChoice& choice : candidate_choices(problem, result.threads)) {
        if (!candidates.empty() && ms_since(start) > options.budget_ms / 2) break;  // half the budget for timing
        std::shared_ptr<const detail::Implementation> impl;
        try {
            impl = detail::choose_implementation(key_problem, jit::max_isa(), choice);
        } catch (const jit::UnhonouredChoice&) {
            continue;
        }
        if (!impl->kernel) continue;  // the reference: nothing to tune
        // A choice of the executor's ranges counts where it changes what execute does with the rules' code.
        const bool ranges_differ = choice.ranges != PlanChoice::Switch::rules && !candidates.empty() &&
                                   (detail::window_ranges_for(problem, *candidates.front().impl, result.threads) != nullptr) !=
                                       (detail::window_ranges_for(problem, *impl, result.threads) != nullptr);
        if (choice.ranges != PlanChoice::Switch::rules && !ranges_differ) continue;
        const bool duplicate = !ranges_differ && std::any_of(candidates.begin(), candidates.end(),
                                                             [&](const Candidate& c) { return same_code(*c.impl, *impl); });
        if (duplicate) continue;
        Candidate c;
        c.impl = impl;
        c.report.choice = choice;
        c.report.impl = impl->impl_name;
        candidates.push_back(std::move(c));
    }
    if (candidates.empty()) {
        result.spent_ms = ms_since(start);
        return result;  // the reference serves it (POOLJIT_MAX_ISA=ref): the rules
    }

    // The check: every candidate once on tie data and once on NaN data, against the reference, bit for bit, on
    // one image (the code does not depend on the batch) or the whole batch where it is small.
    const auto check_start = Clock::now();
    double checking_ms = 0;
    {
        Problem p = problem;
        if (byte_extent(p.src_desc()) > (std::size_t{32} << 20)) p.batch = std::min<std::int64_t>(p.batch, 1);
        const std::size_t dst_bytes = byte_extent(p.dst_desc());
        const std::size_t idx_bytes = p.has_indices ? byte_extent(p.indices_desc()) : 0;
        for (const bool nan : {false, true}) {
            const std::vector<std::uint8_t> src = check_data(p.src_desc(), nan, nan ? 2 : 1);
            std::vector<std::uint8_t> want(std::max<std::size_t>(dst_bytes, 1), 0x5A), want_idx(std::max<std::size_t>(idx_bytes, 1), 0x5A);
            reference::execute(p, src.data(), want.data(), p.has_indices ? want_idx.data() : nullptr);
            for (Candidate& c : candidates) {
                if (!c.report.failure.empty()) continue;
                std::vector<std::uint8_t> got(want.size(), 0x5A), got_idx(want_idx.size(), 0x5A);
                execute_problem_split(p, *c.impl, src.data(), got.data(), p.has_indices ? got_idx.data() : nullptr,
                                      result.threads, false);
                if (got != want || got_idx != want_idx)
                    c.report.failure = std::string(nan ? "NaN" : "tie") + " data: differs from the reference";
            }
        }
        checking_ms = ms_since(check_start);
    }
    result.check_ms = checking_ms;

    // Timing, interleaved: a round times every candidate once, each for a batch of calls of about 200 us, and
    // a candidate's time is the lowest of its rounds. Rounds go on while the budget lasts (at least one).
    const std::vector<std::uint8_t> src = timing_data(problem.src_desc());
    std::vector<std::uint8_t> dst(std::max<std::size_t>(byte_extent(problem.dst_desc()), 1));
    std::vector<std::uint8_t> idx(std::max<std::size_t>(problem.has_indices ? byte_extent(problem.indices_desc()) : 1, 1));
    const auto run = [&](const Candidate& c) {
        execute_problem_split(problem, *c.impl, src.data(), dst.data(), problem.has_indices ? idx.data() : nullptr,
                              result.threads, false);
    };
    for (Candidate& c : candidates) {
        if (!c.report.failure.empty()) continue;
        run(c);  // first touch
        const auto t0 = Clock::now();
        run(c);
        const double one_run_us = std::max(ms_since(t0) * 1e3, 0.05);
        c.calls = static_cast<int>(std::clamp(200.0 / one_run_us, 1.0, 10000.0));
        c.report.us = std::numeric_limits<double>::infinity();
    }
    const double timing_budget_ms = options.budget_ms - (ms_since(start) - checking_ms);
    const auto timing_start = Clock::now();
    for (int round = 0; round < 50; ++round) {
        if (round > 0 && ms_since(timing_start) > timing_budget_ms) break;
        for (Candidate& c : candidates) {
            if (!c.report.failure.empty()) continue;
            const auto t0 = Clock::now();
            for (int i = 0; i < c.calls; ++i) run(c);
            c.report.us = std::min(c.report.us, ms_since(t0) * 1e3 / c.calls);
            ++c.report.rounds;
        }
    }

    const Candidate* best = nullptr;
    for (const Candidate& c : candidates) {
        result.candidates.push_back(c.report);
        if (!c.report.failure.empty()) continue;
        if (best == nullptr || c.report.us < best->report.us) best = &c;
    }
    result.rules_us = candidates.front().report.failure.empty() ? candidates.front().report.us : 0;
    if (best != nullptr) {
        result.winner = best->report.choice;
        result.winner_us = best->report.us;
    }
    result.spent_ms = ms_since(start) - checking_ms;
    return result;
}

}  // namespace pooljit
