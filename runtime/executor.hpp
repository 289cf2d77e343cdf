// Runs a compiled kernel over a whole tensor: the loops over batch, channel blocks and output rows, and the
// real taps of each row along the outer axes. Knows the kernel only as a function pointer and the plan's facts.
#pragma once

#include "jit/kernel.hpp"

#include <pooljit/types.hpp>

namespace pooljit {

void execute_nxc_rows(const Problem& problem, const jit::KernelPlan& plan, const jit::CompiledKernel& kernel,
                      const void* src, void* dst, void* indices);

}  // namespace pooljit
