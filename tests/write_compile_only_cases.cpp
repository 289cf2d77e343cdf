// Writes the problems the compile_only.* ctest tests hand to pooljit-warmup --compile-only: every example of the
// strategy registry in every data type and index option it leaves open, then COUNT generated cases (casegen, a
// fixed seed). Usage: write_compile_only_cases FILE COUNT
#include "casegen/casegen.hpp"
#include "jit/plan/strategies.hpp"
#include "support/example_variants.hpp"

#include <pooljit/pooljit.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace pj = pooljit;

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: write_compile_only_cases FILE COUNT\n");
        return 2;
    }
    std::ofstream out(argv[1]);
    out << "# the strategy registry's examples (jit/plan/strategies.cpp) in every data type and index option\n";
    std::size_t lines = 0;
    for (const pooljit::jit::StrategyRow& row : pooljit::jit::strategy_registry())
        for (const pooljit::jit::StrategyExample& example : row.examples) {
            for (const std::string& line : pj::test::variants_of(std::string(example.problem))) {
                out << line << '\n';
                ++lines;
            }
        }
    const long count = std::strtol(argv[2], nullptr, 10);
    out << "# " << count << " generated cases (casegen)\n";
    pj::casegen::Generator gen(0xC0517E0A);
    for (long i = 0; i < count; ++i) out << pj::to_string(gen.any()) << '\n';
    out.close();
    if (!out) {
        std::fprintf(stderr, "write_compile_only_cases: %s: cannot write the file\n", argv[1]);
        return 1;
    }
    std::printf("wrote %zu registry variants and %ld generated cases to %s\n", lines, count, argv[1]);
    return 0;
}
