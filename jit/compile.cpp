#include "jit/emit_nxc.hpp"
#include "jit/kernel.hpp"

#include <pooljit/types.hpp>

namespace pooljit::jit {

std::unique_ptr<CompiledKernel> compile(const KernelPlan& plan) {
    switch (plan.strategy) {
        case Strategy::nxc_channels: return compile_nxc(plan);
        case Strategy::ncx_width: break;
    }
    throw Error("jit: no emitter for this strategy yet");
}

}  // namespace pooljit::jit
