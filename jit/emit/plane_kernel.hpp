// The compilers of planar plans of whole planes that compile() hands to kernels of their own. Internal to jit/.
#pragma once

#include "jit/emit/kernel.hpp"

#include <memory>

namespace pooljit::jit {

// Throws pooljit::Error (the dispatch reason) when the plan is not an AVX-512 ncx_planes plan it can emit.
std::unique_ptr<CompiledKernel> compile_planes(const KernelPlan& plan);

// The compiler of plans with byte_planes (emit_byte_planes.cpp): throws pooljit::Error when it cannot emit them.
std::unique_ptr<CompiledKernel> compile_byte_planes(const KernelPlan& plan);
// The compiler of plans with flat_planes (emit_flat_planes.cpp): throws pooljit::Error when it cannot emit them.
std::unique_ptr<CompiledKernel> compile_flat_planes(const KernelPlan& plan);

}  // namespace pooljit::jit
