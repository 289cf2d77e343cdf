// Which ISAs a test may execute here: those the CPU has (after POOLJIT_CPU_MASK). A test part that would run
// code of an ISA the CPU lacks skips by name, never fails or raises SIGILL; the code of that ISA is still planned
// and emitted by the plan-level and compile-only tests.
#pragma once

#include "jit/isa/isa.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace pooljit::test {

inline constexpr jit::Isa jit_isas[] = {jit::Isa::avx512, jit::Isa::avx2};

inline std::string missing_feature_message(jit::Isa isa) {
    return std::string("the CPU lacks ") + jit::cpu_feature_of(isa) + " (or POOLJIT_CPU_MASK hides it): " +
           jit::to_string(isa) + " code is compiled by the plan-level and compile-only tests but not run here";
}

}  // namespace pooljit::test

namespace pooljit::jit {
// GoogleTest prints a test's parameter by this (found by ADL) in test names and ctest lists.
inline void PrintTo(Isa isa, std::ostream* os) { *os << to_string(isa); }
}  // namespace pooljit::jit

// Ends the current test as skipped when the CPU cannot run code of `isa` (a jit::Isa).
#define POOLJIT_SKIP_UNLESS_CPU_RUNS(isa)                                                                        \
    do {                                                                                                         \
        if (!::pooljit::jit::cpu_runs(isa)) GTEST_SKIP() << ::pooljit::test::missing_feature_message(isa);      \
    } while (false)
