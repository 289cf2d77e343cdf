#include "runtime/dispatch.hpp"

#include "jit/isa.hpp"
#include "jit/plan.hpp"

#include <chrono>
#include <exception>

namespace pooljit::detail {
namespace {

// The real taps of every output position along outer axis a.
std::vector<OuterTaps> outer_taps(const Problem& p, std::size_t a) {
    std::vector<OuterTaps> taps(static_cast<std::size_t>(p.out[a]));
    for (std::int64_t o = 0; o < p.out[a]; ++o) taps[static_cast<std::size_t>(o)] = outer_taps_of(p, a, o);
    return taps;
}

}  // namespace

void prepare_outer_taps(const Problem& p, Implementation& impl) {
    const int sr = p.spatial_rank;
    // Beyond this many rows the executor computes a row's taps itself (no table that grows with the output).
    constexpr std::int64_t max_table_rows = std::int64_t{1} << 16;
    if (sr >= 3 && p.out[0] <= max_table_rows) impl.taps_d = outer_taps(p, 0);
    const auto h = static_cast<std::size_t>(sr - 2);
    if (sr >= 2 && p.out[h] <= max_table_rows) impl.taps_h = outer_taps(p, h);
    impl.row_runs_h.clear();
    for (std::size_t o = 0; o < impl.taps_h.size(); ++o) {
        const OuterTaps& t = impl.taps_h[o];
        if (!impl.row_runs_h.empty()) {
            RowRun& run = impl.row_runs_h.back();
            const OuterTaps& first = impl.taps_h[static_cast<std::size_t>(run.begin)];
            const OuterTaps& last = impl.taps_h[o - 1];
            const std::int64_t step = t.first_position - last.first_position;
            if (t.count == first.count && (run.end - run.begin == 1 || step == run.position_step)) {
                run.position_step = step;
                ++run.end;
                continue;
            }
        }
        const auto row = static_cast<std::int64_t>(o);
        impl.row_runs_h.push_back({row, row + 1, 0});
    }
}

OuterTaps outer_taps_of(const Problem& p, std::size_t axis, std::int64_t o) {
    if (p.op == OpKind::adaptive_max_pool) {
        __extension__ typedef __int128 i128;
        const auto begin = static_cast<std::int64_t>(static_cast<i128>(o) * p.in[axis] / p.out[axis]);
        const auto end = static_cast<std::int64_t>((static_cast<i128>(o + 1) * p.in[axis] + p.out[axis] - 1) / p.out[axis]);
        return {end - begin, begin};
    }
    const jit::WindowTaps w = jit::window_taps(o, p.in[axis], p.kernel[axis], p.stride[axis], p.dilation[axis], p.pad_begin[axis]);
    if (w.begin == w.end) return {0, 0};
    // The first real tap's position fits; the products on the way may not (strides near 2^62).
    const std::int64_t first = jit::wrap_add(jit::wrap_add(jit::wrap_mul(o, p.stride[axis]), -p.pad_begin[axis]),
                                             jit::wrap_mul(w.begin, p.dilation[axis]));
    return {w.end - w.begin, first};
}

std::shared_ptr<const Implementation> choose_implementation(const Problem& p, jit::Isa cap) {
    const auto start = std::chrono::steady_clock::now();
    auto impl = std::make_shared<Implementation>();
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2}) {
        const std::string name = std::string("jit:") + jit::to_string(isa);
        auto decline = [&](const std::string& why) { impl->dispatch_log += name + " declined: " + why + "\n"; };
        if (!jit::cpu_runs(isa)) {
            decline(std::string("the CPU (or the OS, or POOLJIT_CPU_MASK) lacks ") + jit::cpu_feature_of(isa));
            continue;
        }
        if (isa > cap) {
            decline("capped by POOLJIT_MAX_ISA");
            continue;
        }
        try {
            jit::KernelPlan plan = jit::make_plan(p, isa);
            impl->kernel = jit::compile(plan);
            impl->plan = std::move(plan);
            impl->impl_name = name;
            break;
        } catch (const std::exception& e) {
            // A planner or emitter refusal (pooljit::Error), or Xbyak / allocation failing: decline, never leave
            // a half-made primitive; the next implementation serves the problem. The planner serves every valid
            // problem, so this is a bug that the tests and the fuzzer count (cache::Stats::demotions).
            decline(e.what());
            if (impl->demotion.empty()) impl->demotion = name + ": " + e.what();
        }
    }
    if (!impl->kernel) impl->impl_name = "ref";
    else prepare_outer_taps(p, *impl);
    impl->compile_microseconds =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    return impl;
}

}  // namespace pooljit::detail
