// Primitive: creation (validate, find or compile the implementation in the cache) and execution.
#include "runtime/primitive_state.hpp"

#include "runtime/cache.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"
#include "runtime/log.hpp"
#include "runtime/tune.hpp"

#include "jit/plan/plan.hpp"

#include <chrono>
#include <memory>
#include <optional>

namespace pooljit {
namespace {

template <class Desc>
std::shared_ptr<const detail::PrimitiveState> make_state(const Desc& desc, const Problem& problem,
                                                         const detail::CacheLookup& found) {
    auto s = std::make_shared<detail::PrimitiveState>();
    s->problem = problem;
    s->src = problem.src_desc();
    s->dst = problem.dst_desc();
    s->indices = problem.indices_desc();
    s->desc = desc;
    s->impl = found.impl;
    detail::log_create(*s, found.hit, found.hit ? 0 : found.impl->compile_microseconds);
    return s;
}

// The choice create() takes without one given: a wisdom entry for this CPU and problem, else a tune when tuning
// is on, else the rules. A choice from wisdom that the planner cannot honour is logged once and left for the rules
// (later creates do not ask the planner again).
// resolve() validates first, so an invalid descriptor throws before the cache is touched.
template <class Desc>
std::shared_ptr<const detail::PrimitiveState> create_state(const Desc& desc) {
    detail::check_observability_settings();
    const Problem problem = resolve(desc);
    const std::optional<PlanChoice> measured = detail::measured_choice(AnyPoolDesc(desc), problem);
    if (measured && !measured->is_rules()) {
        try {
            return make_state(desc, problem, detail::find_or_compile(problem, *measured));
        } catch (const jit::UnhonouredChoice& e) {
            detail::wisdom_refused(problem, to_string(desc), e.what());
        }
    }
    return make_state(desc, problem, detail::find_or_compile(problem));
}

template <class Desc>
std::shared_ptr<const detail::PrimitiveState> create_state(const Desc& desc, const PlanChoice& choice) {
    detail::check_observability_settings();
    const Problem problem = resolve(desc);
    detail::check_plan_choice(choice);
    try {
        return make_state(desc, problem, detail::find_or_compile(problem, choice));
    } catch (const jit::UnhonouredChoice& e) {
        throw Error(std::string(e.what()) + " (problem: " + to_string(desc) + ")");
    }
}

}  // namespace

Primitive Primitive::create(const MaxPoolDesc& desc) { return Primitive(create_state(desc)); }

Primitive Primitive::create(const AdaptiveMaxPoolDesc& desc) { return Primitive(create_state(desc)); }

Primitive Primitive::create(const MaxPoolDesc& desc, const PlanChoice& choice) {
    return Primitive(create_state(desc, choice));
}

Primitive Primitive::create(const AdaptiveMaxPoolDesc& desc, const PlanChoice& choice) {
    return Primitive(create_state(desc, choice));
}

Primitive create(const AnyPoolDesc& desc) {
    return std::visit([](const auto& d) { return Primitive::create(d); }, desc);
}

Primitive create(const AnyPoolDesc& desc, const PlanChoice& choice) {
    return std::visit([&](const auto& d) { return Primitive::create(d, choice); }, desc);
}

const detail::PrimitiveState& Primitive::state() const {
    if (!state_) throw Error("Primitive: the primitive is empty (default-constructed), create it first");
    return *state_;
}

const Problem& Primitive::problem() const { return state().problem; }
const TensorDesc& Primitive::src_desc() const { return state().src; }
const TensorDesc& Primitive::dst_desc() const { return state().dst; }
const TensorDesc& Primitive::indices_desc() const { return state().indices; }
bool Primitive::has_indices() const { return state().problem.has_indices; }
const std::string& Primitive::impl_name() const { return state().impl->impl_name; }
const PlanChoice& Primitive::choice() const { return state().impl->choice; }
const std::string& Primitive::problem_string() const { return state().problem_string(); }

void Primitive::execute(const void* src, void* dst, void* indices) const {
    const detail::PrimitiveState& s = state();
    const Problem& p = s.problem;
    if (p.batch == 0 || p.channels == 0) return;  // nothing to read or write
    if (src == nullptr) throw Error("execute: src = nullptr, must point to the source tensor");
    if (dst == nullptr) throw Error("execute: dst = nullptr, must point to the destination tensor");
    if (p.has_indices && indices == nullptr)
        throw Error("execute: indices = nullptr, the primitive was created with an indices output");
    // Silent by default: one relaxed load, no clock read, no formatting.
    const bool timed = detail::verbosity() != 0;
    std::chrono::steady_clock::time_point start;
    if (timed) start = std::chrono::steady_clock::now();
    const int threads = execute_problem(p, *s.impl, src, dst, p.has_indices ? indices : nullptr);
    if (timed) {
        const std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
        detail::log_execute(s, elapsed.count(), threads);
    }
}

}  // namespace pooljit
