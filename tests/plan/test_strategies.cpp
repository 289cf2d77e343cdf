// The strategy registry (jit/plan/strategies.hpp) drives these tests. At the plan level, on any host: every strategy
// has a row, and each row's examples plan to its strategy on each ISA that claims it and on no other. At the run
// level: each example, in every data type and index option it leaves open, matches the reference on each ISA
// the CPU has (an ISA it lacks is skipped by name). The compile-only entry emits every example and generated
// case for both ISAs on any host, and create() never hands out code for an ISA the CPU lacks.
#include "casegen/casegen.hpp"
#include "jit/plan/strategies.hpp"
#include "support/cpu_isas.hpp"
#include "support/example_variants.hpp"
#include "support/run_compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;
using pooljit::test::jit_isas;

namespace {

bool claims(const jit::StrategyRow& row, jit::Isa isa) {
    return std::find(row.isas.begin(), row.isas.end(), isa) != row.isas.end();
}

bool claims(const jit::StrategyRow& row, const jit::StrategyExample& example, jit::Isa isa) {
    if (example.isas.empty()) return claims(row, isa);
    return std::find(example.isas.begin(), example.isas.end(), isa) != example.isas.end();
}

bool has(const std::vector<jit::StrategyId>& ids, jit::StrategyId id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(StrategyRegistry, EveryStrategyHasOneRowWithExamplesAndIsas) {
    const std::vector<jit::StrategyRow>& rows = jit::strategy_registry();
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(jit::StrategyId::count));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        SCOPED_TRACE(jit::name_of(rows[i].id));
        EXPECT_EQ(rows[i].id, static_cast<jit::StrategyId>(i)) << "rows are in StrategyId order, one each";
        EXPECT_FALSE(rows[i].isas.empty());
        EXPECT_FALSE(rows[i].examples.empty());
    }
}

// The plan create() makes under these options: blocked rows of bytes and windows one plane deep folded first.
jit::KernelPlan plan_as_created(const pj::Problem& problem, jit::Isa isa, jit::PlanOptions options) {
    const jit::Folds folds = jit::folds_of(problem, isa == jit::Isa::avx512 && options.core.byte_permutes);
    jit::set_folds(options, folds);
    return jit::make_plan(jit::folded_problem(problem, folds.blocks, folds.depth), isa, options);
}

// Plans only: runs on any host, for both ISAs.
TEST(StrategyRegistry, ExamplesLandOnTheirStrategyOnTheClaimedIsasAndNoOther) {
    for (const jit::StrategyRow& row : jit::strategy_registry())
        for (const jit::StrategyExample& example : row.examples)
            for (const jit::Isa isa : jit_isas) {
                const std::string line(example.problem);
                SCOPED_TRACE(std::string(jit::name_of(row.id)) + " on " + jit::to_string(isa) + ": " + line);
                const jit::KernelPlan plan = plan_as_created(pj::test::resolve_line(line), isa, example.options);
                EXPECT_EQ(has(jit::strategies_of(plan), row.id), claims(row, example, isa))
                    << "the plan's strategies: " << jit::strategy_names(plan);
            }
}

// Examples too large to allocate are planned and compiled, not run; their forced small twins run.
bool small_enough_to_run(const pj::Problem& p) {
    constexpr std::size_t max_bytes = std::size_t{64} << 20;
    return pj::casegen::byte_size(p.src_desc()) <= max_bytes;
}

struct RunCase {
    std::size_t row;
    jit::Isa isa;
};

void PrintTo(const RunCase& c, std::ostream* os) {
    *os << jit::name_of(jit::strategy_registry()[c.row].id) << " on " << jit::to_string(c.isa);
}

class RegistryRun : public ::testing::TestWithParam<RunCase> {};

// Every example runs on every ISA the CPU has, claimed or not: an ISA that does not claim a strategy serves the
// same problem with another, and must match the reference too.
TEST_P(RegistryRun, EveryExampleMatchesTheReference) {
    const jit::StrategyRow& row = jit::strategy_registry()[GetParam().row];
    const jit::Isa isa = GetParam().isa;
    POOLJIT_SKIP_UNLESS_CPU_RUNS(isa);
    for (const jit::StrategyExample& example : row.examples) {
        // Code for a core with byte permutes (AVX512_VBMI) is planned and compiled above, run only on one.
        if (example.options.core.byte_permutes && isa == jit::Isa::avx512 && !jit::cpu_features().avx512_vbmi) {
            std::printf("[ SKIPPED  ] %s: the CPU (or POOLJIT_CPU_MASK) lacks avx512_vbmi\n", std::string(example.problem).c_str());
            continue;
        }
        for (const std::string& line : pj::test::variants_of(std::string(example.problem))) {
            const pj::Problem p = pj::test::resolve_line(line);
            if (!small_enough_to_run(p)) continue;
            if (example.options == jit::PlanOptions{}) pj::test::check_created(line, isa, 1);
            else pj::test::check_forced_plan(p, plan_as_created(p, isa, example.options), line);
            if (HasFailure()) return;
        }
    }
}

std::vector<RunCase> run_cases() {
    std::vector<RunCase> cases;
    for (std::size_t r = 0; r < jit::strategy_registry().size(); ++r)
        for (const jit::Isa isa : jit_isas) cases.push_back({r, isa});
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Registry, RegistryRun, ::testing::ValuesIn(run_cases()), [](const auto& run) {
    return std::string(jit::name_of(jit::strategy_registry()[run.param.row].id)) + "_" + jit::to_string(run.param.isa);
});

// The compile-only entry plans and emits for both ISAs whatever the CPU has: every registry example in every
// variant, and generated cases. pooljit-warmup --compile-only runs the same entry (ctest compile_only.*).
TEST(CompileOnly, EveryExampleAndGeneratedCaseOnBothIsas) {
    std::vector<std::string> lines;
    for (const jit::StrategyRow& row : jit::strategy_registry())
        for (const jit::StrategyExample& example : row.examples)
            for (const std::string& line : pj::test::variants_of(std::string(example.problem))) lines.push_back(line);
    pj::casegen::Generator gen(0xC0517E);
    for (int i = 0; i < 1000; ++i) lines.push_back(pj::to_string(gen.any()));
    for (const jit::Isa isa : jit_isas)
        for (const std::string& line : lines) {
            SCOPED_TRACE(line);
            const pj::CompileReport report = pj::compile_only(pj::parse_problem(line), jit::to_string(isa));
            EXPECT_EQ(report.impl_name, std::string("jit:") + jit::to_string(isa));
            EXPECT_GT(report.code_bytes, 0u);
            EXPECT_FALSE(report.strategies.empty());
            if (HasFailure()) return;
        }
}

TEST(CompileOnly, NamesTheIsaAndRefusesOthers) {
    const pj::AnyPoolDesc desc = pj::parse_problem("maxpool dt=f32 layout=nxc src=1x64x9x9 k=3x3 s=1x1 pb=1x1 pe=1x1");
    EXPECT_THROW(pj::compile_only(desc, "ref"), pj::Error);
    EXPECT_THROW(pj::compile_only(desc, "avx1024"), pj::Error);
    EXPECT_THROW(pj::compile_only(pj::parse_problem("maxpool dt=f32 layout=nxc src=1x64x9x9 k=30x3"), "avx2"), pj::Error);
    const pj::CompileReport wide = pj::compile_only(desc, "avx512");
    const pj::CompileReport narrow = pj::compile_only(desc, "avx2");
    EXPECT_NE(wide.plan.find("isa=avx512"), std::string::npos) << wide.plan;
    EXPECT_NE(narrow.plan.find("isa=avx2"), std::string::npos) << narrow.plan;
}

// Whatever the cap, create() serves an ISA the CPU has; compiling for the others leaves nothing in the cache.
TEST(CompileOnly, CreateNeverHandsOutCodeTheCpuCannotRun) {
    const pj::AnyPoolDesc desc = pj::parse_problem("maxpool dt=bf16 layout=ncx src=1x8x20x20 k=5x5 pb=2x2 pe=2x2");
    pj::cache::clear();
    const std::uint64_t entries = pj::cache::stats().entries;
    for (const jit::Isa isa : jit_isas) (void)pj::compile_only(desc, jit::to_string(isa));
    EXPECT_EQ(pj::cache::stats().entries, entries);
    for (const char* cap : {"avx512", "avx2", "ref"}) {
        const pj::test::IsaCap capped(cap);
        const pj::Primitive p = pj::create(desc);
        const std::string impl = p.impl_name();
        const jit::Isa served = impl == "ref" ? jit::Isa::ref : *jit::isa_from_string(impl.substr(4));
        EXPECT_TRUE(jit::cpu_runs(served)) << impl << " under cap " << cap;
        // The cap lowered to what the CPU has bounds it; the rules may pick the AVX2 form under an AVX-512 cap.
        EXPECT_LE(served, jit::max_isa()) << impl << " under cap " << cap;
        if (jit::max_isa() != jit::Isa::ref) {
            EXPECT_NE(served, jit::Isa::ref) << impl << " under cap " << cap;
        }
    }
}

}  // namespace
