#include "runtime/dispatch.hpp"

#include "jit/isa/isa.hpp"
#include "jit/plan/plan.hpp"
#include "runtime/executor.hpp"

#include <chrono>
#include <exception>

namespace pooljit::detail {

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
            impl->tile_calls = tile_calls_of(p, *impl);
            impl->impl_name = name;
            break;
        } catch (const std::exception& e) {
            // A planner or emitter refusal (pooljit::Error), or Xbyak / allocation failing: decline, never leave
            // a half-made primitive; the next implementation serves the problem. The planner serves every valid
            // problem, so this is a bug that the tests and the fuzzer count (cache::Stats::demotions).
            decline(e.what());
            if (impl->demotion.empty()) impl->demotion = name + ": " + e.what();
            // Nothing of this implementation stays behind (its tile calls are made after its code).
            impl->kernel.reset();
            impl->tile_calls.clear();
        }
    }
    if (!impl->kernel) impl->impl_name = "ref";
    impl->compile_microseconds =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    return impl;
}

}  // namespace pooljit::detail
