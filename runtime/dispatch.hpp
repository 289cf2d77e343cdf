// Dispatch: the implementations in order jit:avx512, jit:avx2, ref. Each one that declines says why.
#pragma once

#include "jit/isa.hpp"
#include "runtime/primitive_state.hpp"

#include <memory>

namespace pooljit::detail {

// Plans and compiles code for the problem (its batch size is ignored) for ISAs up to isa_cap (the cache key's
// reading of POOLJIT_MAX_ISA). Never throws for a valid problem: the reference serves whatever the JIT declines.
// Fills impl.taps_d / taps_h, which the executor reads for a kernel (choose_implementation calls it); an axis
// of very many output rows gets no table.
void prepare_outer_taps(const Problem& problem, Implementation& impl);

// The real taps of output o along outer axis `axis` (what the tables hold).
OuterTaps outer_taps_of(const Problem& problem, std::size_t axis, std::int64_t o);

std::shared_ptr<const Implementation> choose_implementation(const Problem& problem, jit::Isa isa_cap);

}  // namespace pooljit::detail
