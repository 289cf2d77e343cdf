// The compilers of planar plans of whole planes that compile() hands to kernels of their own. Internal to jit/.
#pragma once

#include "jit/emit/kernel.hpp"
#include "jit/isa/code_pages.hpp"

#include <memory>
#include <vector>

namespace pooljit::jit {

// A kernel of one entry (no channel tail), the code of Emitter(plan): an Xbyak generator whose code() is done.
template <class Emitter>
class OneEntryKernel final : public CompiledKernel {
public:
    explicit OneEntryKernel(const KernelPlan& plan) : code_{Emitter(plan).code()} {}
    KernelFn full_block() const override { return code_.function<KernelFn>(0); }
    KernelFn tail_block() const override { return nullptr; }
    std::size_t code_size() const override { return code_.code_size(); }
    std::vector<CodeRegion> code_regions() const override { return {{"full", code_.entry(0), code_.entry_size(0)}}; }

private:
    ExecutableCode code_;
};

// Throws pooljit::Error (the dispatch reason) when the plan is not an AVX-512 ncx_planes plan it can emit.
std::unique_ptr<CompiledKernel> compile_planes(const KernelPlan& plan);

// The compiler of plans with byte_planes (emit_byte_planes.cpp): throws pooljit::Error when it cannot emit them.
std::unique_ptr<CompiledKernel> compile_byte_planes(const KernelPlan& plan);
// The compiler of plans with flat_planes (emit_flat_planes.cpp): throws pooljit::Error when it cannot emit them.
std::unique_ptr<CompiledKernel> compile_flat_planes(const KernelPlan& plan);
// The compiler of plans with byte_bands (emit_byte_bands.cpp): throws pooljit::Error when it cannot emit them.
std::unique_ptr<CompiledKernel> compile_byte_bands(const KernelPlan& plan);
// The compiler of AVX2 plans with byte_bands (emit_byte_shuffle_bands.cpp): throws pooljit::Error when it cannot emit them.
std::unique_ptr<CompiledKernel> compile_byte_shuffle_bands(const KernelPlan& plan);
// The compiler of plans with blocked_pixels (emit_blocked_pixels.cpp): throws pooljit::Error when it cannot emit them.
std::unique_ptr<CompiledKernel> compile_blocked_pixels(const KernelPlan& plan);

}  // namespace pooljit::jit
