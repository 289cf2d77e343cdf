// The primitive cache: compiled Implementations keyed by everything that shapes their code. The batch size
// is a run-time argument of the executor, so primitives that differ only in N share one entry.
#pragma once

#include "jit/isa/isa.hpp"
#include "runtime/primitive_state.hpp"

#include <pooljit/types.hpp>

#include <cstdint>
#include <memory>

namespace pooljit::detail {

// What generated code depends on: the canonical problem without its batch size, the ISA cap in force
// (POOLJIT_MAX_ISA lowered to what the CPU has) and the CPU's ISA extensions that plans read. Equality compares every field, so a hash collision costs a
// comparison, never a wrong kernel.
struct CacheKey {
    Problem problem;  // batch is always 0
    jit::Isa isa = jit::Isa::ref;
    PlanChoice choice;  // rules unless a caller, wisdom or the tuner named another answer
    bool byte_permutes = false;  // the CPU's AVX512_VBMI after POOLJIT_CPU_MASK (jit::CpuTraits::byte_permutes)

    friend bool operator==(const CacheKey&, const CacheKey&) = default;
};

// Reads POOLJIT_MAX_ISA (throws Error for an unknown value).
CacheKey make_cache_key(const Problem& problem, const PlanChoice& choice = {});

// 64-bit xxHash of the key's fields; also names the key in JIT dumps and perf maps.
std::uint64_t hash_of(const CacheKey& key);

struct CacheLookup {
    std::shared_ptr<const Implementation> impl;  // never null
    bool hit = false;                            // false: this call compiled it
    std::uint64_t key_hash = 0;
};

// Returns the cached Implementation for the problem, or compiles it (once, however many threads ask at the
// same time: the others wait for the first one's result, or its exception). A compile that throws is not
// cached. The batch size of `problem` is ignored.
// A choice the planner or the emitters cannot take for the problem throws jit::UnhonouredChoice (not cached).
CacheLookup find_or_compile(const Problem& problem, const PlanChoice& choice = {});

// Creates since the process started whose compile was demoted (Implementation::demotion): never reset, so a
// test can tell whether its own creates were.
std::uint64_t demotions_since_start();

// Test hooks. The compiler replaces choose_implementation (null restores it), so that a test can make a
// compile slow or failing; the other makes the next use of the capacity read POOLJIT_CACHE_CAPACITY again.
using CompileFunction = std::shared_ptr<const Implementation> (*)(const Problem& problem);
void set_compiler_for_testing(CompileFunction compiler);
void reread_capacity_for_testing();

}  // namespace pooljit::detail
