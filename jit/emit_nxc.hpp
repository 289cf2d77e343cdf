#pragma once

#include "jit/kernel.hpp"

namespace pooljit::jit {
std::unique_ptr<CompiledKernel> compile_nxc(const KernelPlan& plan);
}
