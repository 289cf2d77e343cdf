// The ABI between the runtime and generated code. The runtime knows a kernel only as this function type and
// the plan's tiling facts; it never sees an instruction.
#pragma once

#include "jit/plan/plan.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pooljit::jit {

// One call computes `rows` output rows along the innermost axis for one block of channels (nxc) or one channel
// (ncx). Every row has the same real taps along the outer axes; each row's pointers and index bases are the
// previous row's plus the row steps (the next output row of a plane, or the same row of the next plane).
struct KernelArgs {
    const std::uint8_t* src;  // element (n, first real d tap, first real h tap, w = 0, first channel)
    std::uint8_t* dst;        // element (n, od, oh, w = 0, first channel)
    std::uint8_t* indices;    // the same element of the indices tensor (unused without indices)
    std::int64_t taps_h;      // real taps along h for this row (1 when there is no h axis); 0: empty windows
    std::int64_t taps_d;      // real taps along d (1 when there is no d axis); 0: empty windows
    std::int64_t index_base;  // spatial index part of the src element above (w = 0)
    std::int64_t channel_index_base;  // channel index part of the first channel
    std::int64_t rows;                // >= 1
    std::int64_t src_row_step, dst_row_step, indices_row_step;  // bytes
    std::int64_t index_base_row_step, channel_index_base_row_step;
    // Plans with width_ranges: each row computes only its outputs [out_begin, out_end) along the width (dst,
    // indices and index_base still describe output 0). Others compute the whole row and ignore these.
    std::int64_t out_begin, out_end;
    // Channels last, the full entry of a plan with channel_sweep > 1: the full channel blocks this call covers,
    // channel_sweep, or 1 to channel_sweep where the plan's sweep_splits allows. Other entries ignore it.
    std::int64_t sweep_blocks;
};

using KernelFn = void (*)(const KernelArgs*);

// Generated code for one plan: the entry for full channel blocks and, when the plan has a tail, the entry
// for the last partial block. Owns its executable memory (never writable and executable at once).
class CompiledKernel {
public:
    virtual ~CompiledKernel() = default;
    virtual KernelFn full_block() const = 0;
    virtual KernelFn tail_block() const = 0;  // null when plan.channel_tail == 0
    virtual std::size_t code_size() const = 0;

    // The executable bytes of each entry, for POOLJIT_JIT_DUMP and perf maps. Named "full" and "tail".
    struct CodeRegion {
        std::string name;
        const void* code = nullptr;
        std::size_t size = 0;
    };
    virtual std::vector<CodeRegion> code_regions() const = 0;
};

// Emits code for the plan. Throws pooljit::Error when the emitter does not serve the plan (the message is the
// dispatch reason).
std::unique_ptr<CompiledKernel> compile(const KernelPlan& plan);

}  // namespace pooljit::jit
