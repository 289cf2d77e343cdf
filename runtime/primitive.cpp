// Primitive: creation (validate, choose an implementation) and execution.
#include "runtime/primitive_state.hpp"

#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"

#include <memory>

namespace pooljit {
namespace {

std::shared_ptr<detail::PrimitiveState> make_state(const Problem& problem, std::string problem_string) {
    auto s = std::make_shared<detail::PrimitiveState>();
    s->problem = problem;
    s->src = problem.src_desc();
    s->dst = problem.dst_desc();
    s->indices = problem.indices_desc();
    s->problem_string = std::move(problem_string);
    s->impl = detail::choose_implementation(problem);
    return s;
}

}  // namespace

namespace cache_internal {
void record_creation();
}

Primitive Primitive::create(const MaxPoolDesc& desc) {
    const Problem p = resolve(desc);
    auto s = make_state(p, to_string(desc));
    cache_internal::record_creation();
    return Primitive(std::move(s));
}

Primitive Primitive::create(const AdaptiveMaxPoolDesc& desc) {
    const Problem p = resolve(desc);
    auto s = make_state(p, to_string(desc));
    cache_internal::record_creation();
    return Primitive(std::move(s));
}

Primitive create(const AnyPoolDesc& desc) {
    return std::visit([](const auto& d) { return Primitive::create(d); }, desc);
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
const std::string& Primitive::problem_string() const { return state().problem_string; }

void Primitive::execute(const void* src, void* dst, void* indices) const {
    const detail::PrimitiveState& s = state();
    const Problem& p = s.problem;
    if (p.batch == 0 || p.channels == 0) return;  // nothing to read or write
    if (src == nullptr) throw Error("execute: src = nullptr, must point to the source tensor");
    if (dst == nullptr) throw Error("execute: dst = nullptr, must point to the destination tensor");
    if (p.has_indices && indices == nullptr)
        throw Error("execute: indices = nullptr, the primitive was created with an indices output");
    execute_problem(p, *s.impl, src, dst, p.has_indices ? indices : nullptr);
}

}  // namespace pooljit
