// The compiler of Strategy::ncx_planes plans (emit_planes.cpp), which compile() hands them to. Internal to jit/.
#pragma once

#include "jit/emit/kernel.hpp"

#include <memory>

namespace pooljit::jit {

// Throws pooljit::Error (the dispatch reason) when the plan is not an AVX-512 ncx_planes plan it can emit.
std::unique_ptr<CompiledKernel> compile_planes(const KernelPlan& plan);

}  // namespace pooljit::jit
