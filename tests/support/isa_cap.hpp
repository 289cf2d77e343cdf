// Sets POOLJIT_MAX_ISA for one scope; the library reads it at each create(). Single-threaded tests only:
// setenv races with getenv.
#pragma once

#include "jit/isa/isa.hpp"

#include <pooljit/pooljit.hpp>

#include <cstdlib>
#include <string_view>

namespace pooljit::test {

class IsaCap {
public:
    explicit IsaCap(const char* isa) { ::setenv("POOLJIT_MAX_ISA", isa, 1); }
    ~IsaCap() { ::unsetenv("POOLJIT_MAX_ISA"); }
    IsaCap(const IsaCap&) = delete;
    IsaCap& operator=(const IsaCap&) = delete;
};

// The plan choice that asks for an ISA's code: under a cap the rules may pick the other ISA form for a problem
// (jit::rules_isa_form); a test of one ISA's code names it.
inline PlanChoice choice_for(jit::Isa isa) {
    PlanChoice c;
    c.isa = isa == jit::Isa::avx512 ? PlanChoice::Isa::avx512 : PlanChoice::Isa::avx2;
    return c;
}

// Creates `desc` asking for the code of the cap's ISA where the CPU runs it (the rules may pick the other form
// under a cap), else as create() does (the cap "ref", or an ISA the CPU lacks: the best the CPU has).
template <class Desc>
Primitive create_for_cap(const Desc& desc, std::string_view cap) {
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2})
        if (cap == jit::to_string(isa) && jit::cpu_runs(isa)) return create(AnyPoolDesc(desc), choice_for(isa));
    return create(AnyPoolDesc(desc));
}

}  // namespace pooljit::test
