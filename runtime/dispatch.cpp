#include "runtime/dispatch.hpp"

#include "jit/isa/isa.hpp"
#include "jit/plan/plan.hpp"
#include "runtime/executor.hpp"
#include "runtime/window_ranges.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>

namespace pooljit::detail {

namespace {

// The cores' traits with the byte permutes the key read (jit::cpu_traits() reads POOLJIT_CPU_MASK again).
jit::CpuTraits traits_of_key(bool byte_permutes) {
    jit::CpuTraits traits = jit::cpu_traits();
    traits.byte_permutes = byte_permutes;
    return traits;
}

// The code a choice names: its ISA (or the best the CPU and the cap allow), planned and emitted under it.
std::shared_ptr<const Implementation> chosen_implementation(const Problem& p, jit::Isa cap, const PlanChoice& choice,
                                                            const jit::Folds& folds, const jit::CpuTraits& core) {
    const auto start = std::chrono::steady_clock::now();
    jit::Isa isa = choice.isa == PlanChoice::Isa::avx2 ? jit::Isa::avx2 : choice.isa == PlanChoice::Isa::avx512 ? jit::Isa::avx512 : cap;
    // A choice that leaves the ISA form to the rules gets the rules' form (a wisdom entry "threads=2" must not
    // switch the code's ISA, nor the tuner's thread candidates time other code than the rules').
    if (choice.isa == PlanChoice::Isa::rules && cap == jit::Isa::avx512 && jit::cpu_runs(jit::Isa::avx512) &&
        jit::cpu_runs(jit::Isa::avx2))
        isa = jit::rules_isa_form(p, core, folds.blocks).isa;
    const std::string part = std::string("isa=") + jit::to_string(isa);
    if (isa == jit::Isa::ref) throw jit::UnhonouredChoice("plan choice " + to_string(choice) + " cannot be honoured: no JIT ISA is allowed (POOLJIT_MAX_ISA=ref or the CPU)");
    if (!jit::cpu_runs(isa))
        throw jit::UnhonouredChoice("plan choice " + part + " cannot be honoured: the CPU (or POOLJIT_CPU_MASK) lacks " + jit::cpu_feature_of(isa));
    if (isa > cap) throw jit::UnhonouredChoice("plan choice " + part + " cannot be honoured: capped by POOLJIT_MAX_ISA");
    auto impl = std::make_shared<Implementation>();
    try {
        jit::PlanOptions options;
        options.choice = choice;
        options.core = core;
        jit::set_folds(options, folds);
        jit::KernelPlan plan = jit::make_plan(p, isa, options);
        impl->kernel = jit::compile(plan);
        impl->plan = std::move(plan);
        impl->tile_calls = tile_calls_of(p, *impl);
    } catch (const jit::UnhonouredChoice&) {
        throw;
    } catch (const std::exception& e) {
        // The rules' plan serves the problem; this combination the emitters do not take.
        throw jit::UnhonouredChoice("plan choice " + to_string(choice) + " cannot be honoured: " + e.what());
    }
    impl->impl_name = std::string("jit:") + jit::to_string(isa);
    impl->choice = choice;
    impl->dispatch_log = "chosen: " + to_string(choice) + "\n";
    impl->window_ranges = make_window_ranges(p, *impl, cap, core.byte_permutes);
    impl->compile_microseconds =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    return impl;
}

}  // namespace

std::shared_ptr<const Implementation> choose_implementation(const Problem& problem, jit::Isa cap, const PlanChoice& choice,
                                                            bool byte_permutes) {
    check_plan_choice(choice);
    // Blocked bytes at stride 1: planned (ISA form included) and run as planar rows of bytes; then windows one
    // plane deep: as the 2-D planes of C x D channels.
    // Byte bands may serve folded rows where the AVX-512 form runs with byte permutes (in the cache key).
    const bool bands = cap == jit::Isa::avx512 && jit::cpu_runs(jit::Isa::avx512) && byte_permutes;
    const jit::Folds folds = jit::folds_of(problem, bands);
    const bool fold_blocks = folds.blocks, fold = folds.depth;
    const Problem p = jit::folded_problem(problem, fold_blocks, fold);
    const jit::CpuTraits core = traits_of_key(byte_permutes);
    if (!choice.is_rules()) return chosen_implementation(p, cap, choice, folds, core);
    const auto start = std::chrono::steady_clock::now();
    auto impl = std::make_shared<Implementation>();
    // The ISA form the rules give the problem first, where the CPU and the cap allow both; then the other.
    std::array<jit::Isa, 2> order{jit::Isa::avx512, jit::Isa::avx2};
    std::optional<jit::KernelPlan> avx512_plan;  // the rules' AVX-512 plan, where they made it (not folded)
    if (cap == jit::Isa::avx512 && jit::cpu_runs(jit::Isa::avx512) && jit::cpu_runs(jit::Isa::avx2)) {
        const jit::CpuTraits& traits = core;
        jit::IsaForm form = jit::rules_isa_form(p, traits, fold_blocks);
        if (!fold && !fold_blocks) avx512_plan = std::move(form.avx512_plan);
        if (form.isa == jit::Isa::avx2) {
            order = {jit::Isa::avx2, jit::Isa::avx512};
            char measured[64] = "";
            if (traits.zmm_over_ymm > 0)
                std::snprintf(measured, sizeof measured, " (zmm adds took %.2fx the time of ymm adds)", traits.zmm_over_ymm);
            impl->dispatch_log += std::string("jit:avx2 first: ") + form.reason + measured + "\n";
        }
    }
    for (const jit::Isa isa : order) {
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
            jit::PlanOptions options;
            options.core = core;
            jit::set_folds(options, folds);
            jit::KernelPlan plan =
                isa == jit::Isa::avx512 && avx512_plan ? std::move(*avx512_plan) : jit::make_plan(p, isa, options);
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
    impl->window_ranges = make_window_ranges(p, *impl, cap, byte_permutes);
    impl->compile_microseconds =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    return impl;
}

}  // namespace pooljit::detail
