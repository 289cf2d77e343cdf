// compile_only: the planner and the emitters for a named ISA, whatever the CPU has; nothing is run or cached.
#include "jit/emit/kernel.hpp"
#include "jit/plan/plan.hpp"
#include "jit/plan/strategies.hpp"

#include <pooljit/pooljit.hpp>

#include <string>

namespace pooljit {

CompileReport compile_only(const AnyPoolDesc& desc, std::string_view isa_name) {
    const Problem resolved = std::visit([](const auto& d) { return resolve(d); }, desc);
    const std::optional<jit::Isa> isa = jit::isa_from_string(isa_name);
    if (!isa || *isa == jit::Isa::ref)
        throw Error("compile_only: isa = " + std::string(isa_name) + ", must be avx512 or avx2");
    // Planned as create() plans it: blocked rows of bytes and windows one plane deep folded first (bands: the
    // AVX-512 code below is a core's with byte permutes).
    const jit::Folds folds = jit::folds_of(resolved, *isa == jit::Isa::avx512);
    const Problem problem = jit::folded_problem(resolved, folds.blocks, folds.depth);
    const std::string impl_name = std::string("jit:") + jit::to_string(*isa);
    try {
        // The code of an AVX-512 core with AVX512_VBMI (Ice Lake and later, Zen 4 and later): byte permutes.
        jit::PlanOptions options;
        options.core.byte_permutes = *isa == jit::Isa::avx512;
        jit::set_folds(options, folds);
        const jit::KernelPlan plan = jit::make_plan(problem, *isa, options);
        const std::unique_ptr<jit::CompiledKernel> kernel = jit::compile(plan);
        return {impl_name, jit::strategy_names(plan), kernel->code_size(), jit::to_string(plan)};
    } catch (const std::exception& e) {
        throw Error(impl_name + " failed to plan or emit " + to_string(desc) + ": " + e.what());
    }
}

}  // namespace pooljit
