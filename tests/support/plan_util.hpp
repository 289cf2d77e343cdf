// Plans of problem strings, for the planner's tests (test_plan.cpp, test_plan_window_reuse.cpp).
#pragma once

#include "jit/plan/plan.hpp"

#include <pooljit/pooljit.hpp>

#include <string>
#include <variant>

namespace pooljit::testing {

inline Problem problem_of(const std::string& line) {
    return std::visit([](const auto& desc) { return resolve(desc); }, parse_problem(line));
}

inline jit::KernelPlan plan_of(const std::string& line, jit::Isa isa = jit::Isa::avx512, const jit::PlanOptions& options = {}) {
    return jit::make_plan(problem_of(line), isa, options);
}

// The choice bands=off: planar bytes keep the row code in the AVX2 form (whose rules give most of them byte bands).
inline jit::PlanOptions bands_off() {
    jit::PlanOptions options;
    options.choice.bands = PlanChoice::Switch::off;
    return options;
}

}  // namespace pooljit::testing
