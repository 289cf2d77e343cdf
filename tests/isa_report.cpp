// Prints one line, "pooljit ISAs: executed avx2, ref; compiled only: avx512": the ISAs whose code the tests run
// on this host (the CPU's, after POOLJIT_CPU_MASK) and those they only plan and emit. It checks the line against
// the library: under each cap, create() asked for that ISA's code serves it where the CPU runs it and refuses it
// otherwise, and compile_only() emits every ISA.
// Exit status 1 when they disagree.
#include "jit/isa/isa.hpp"

#include <pooljit/pooljit.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace pj = pooljit;
namespace jit = pooljit::jit;

int main() {
    const pj::AnyPoolDesc desc = pj::parse_problem("maxpool dt=f32 layout=ncx src=1x4x12x12 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64");
    std::string executed, compiled_only, problems;
    try {
        for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2}) {
            const std::string name = jit::to_string(isa);
            (void)pj::compile_only(desc, name);  // throws if the ISA's code cannot be emitted
            ::setenv("POOLJIT_MAX_ISA", name.c_str(), 1);
            pj::PlanChoice choice;  // this ISA's code: the rules may pick the other form under a cap
            choice.isa = isa == jit::Isa::avx512 ? pj::PlanChoice::Isa::avx512 : pj::PlanChoice::Isa::avx2;
            std::string served = "ref";
            try {
                served = pj::create(desc, choice).impl_name();
            } catch (const pj::Error&) {
                served = pj::create(desc).impl_name();  // refused: the CPU lacks the ISA
            }
            ::unsetenv("POOLJIT_MAX_ISA");
            const bool runs = jit::cpu_runs(isa);
            std::string& list = runs ? executed : compiled_only;
            list += (list.empty() ? "" : ", ") + name;
            if (runs && served != "jit:" + name) problems += "cap " + name + " served " + served + "; ";
            if (!runs && served == "jit:" + name) problems += "create() handed out " + served + " code; ";
        }
    } catch (const std::exception& e) {
        problems += e.what();
    }
    executed += (executed.empty() ? "" : ", ") + std::string("ref");
    std::printf("pooljit ISAs: executed %s; compiled only: %s\n", executed.c_str(),
                compiled_only.empty() ? "none" : compiled_only.c_str());
    if (problems.empty()) return 0;
    std::fprintf(stderr, "isa_report: %s\n", problems.c_str());
    return 1;
}
