// Dispatch: the implementations in order jit:avx512, jit:avx2, ref. Each one that declines says why.
#pragma once

#include "jit/isa/isa.hpp"
#include "runtime/primitive_state.hpp"

#include <memory>

namespace pooljit::detail {

// Plans and compiles code for the problem (its batch size is ignored) for ISAs up to isa_cap (the cache key's
// reading of POOLJIT_MAX_ISA). Never throws for a valid problem: the reference serves whatever the JIT declines.
// With a choice other than the rules, only the ISA it names (or the best the cap allows) is tried, and a plan or
// code it cannot make throws jit::UnhonouredChoice instead of falling back: the caller asked for that code.
// byte_permutes: whether the plans may use AVX512_VBMI (the cache key's reading of it, so that key and code agree).
std::shared_ptr<const Implementation> choose_implementation(const Problem& problem, jit::Isa isa_cap,
                                                            const PlanChoice& choice = {},
                                                            bool byte_permutes = jit::cpu_features().avx512_vbmi);

// A PlanChoice built in code (not parsed): every enum one of its enumerators and every number 0 or in its range
// (those parse_plan_choice accepts), else pooljit::Error naming the part.
void check_plan_choice(const PlanChoice& choice);

}  // namespace pooljit::detail
