// Measured choice (DESIGN.md section 5): PlanChoice as text, create() under a choice (honoured or refused by
// name, never a wrong result), the cache keyed by it, pooljit::tune() and wisdom (round trip, another CPU's
// lines, corrupt lines, refused choices), and tuning on first use. Every run compares with the reference.
#include "runtime_test_util.hpp"
#include "runtime/log.hpp"
#include "support/cpu_isas.hpp"
#include "support/isa_cap.hpp"
#include "support/run_compare.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace pj = pooljit;

namespace {

using C = pj::PlanChoice;

std::string temp_file(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("pooljit_test_" + name + "_" + std::to_string(::getpid()))).string();
}

// Runs a primitive on adversarial and tie data against the reference (values and indices bit for bit).
void expect_matches_reference(const pj::Primitive& p, const std::string& what) {
    pj::test::expect_matches_reference_on_both_data_kinds(
        p.problem(), what, [&](const void* s, void* d, void* i) { p.execute(s, d, i); });
}

// ---- text ---------------------------------------------------------------------------------------------------

TEST(PlanChoiceText, RoundTripsEveryField) {
    EXPECT_EQ(pj::to_string(C{}), "rules");
    EXPECT_TRUE(pj::parse_plan_choice("rules").is_rules());
    C c;
    c.isa = C::Isa::avx2;
    c.nan = C::Nan::watch;
    c.reuse = C::Reuse::separable;
    c.planes = C::Switch::off;
    c.pairs = C::Switch::on;
    c.tap_pairs = C::Switch::off;
    c.ranks = C::Switch::on;
    c.bands = C::Switch::off;
    c.ranges = C::Switch::off;
    c.sweep_bytes = 2048;
    c.separable_kib = 12;
    c.prefetch_kib = -1;
    c.chunk_kib = 48;
    c.threads = 3;
    c.grain = 16;
    const std::string text = pj::to_string(c);
    EXPECT_EQ(text, "isa=avx2 nan=watch reuse=separable planes=off pairs=on tap_pairs=off ranks=on bands=off ranges=off sweep_bytes=2048 "
                    "separable_kib=12 prefetch_kib=-1 chunk_kib=48 threads=3 grain=16");
    EXPECT_EQ(pj::parse_plan_choice(text), c);
    // Only the fields that differ from the rules are printed.
    C one;
    one.reuse = C::Reuse::none;
    EXPECT_EQ(pj::to_string(one), "reuse=none");
}

TEST(PlanChoiceText, RefusesBadTokensByName) {
    for (const auto& [text, named] : std::vector<std::pair<std::string, std::string>>{
             {"isa=sse", "isa=sse"}, {"reuse=maybe", "reuse=maybe"}, {"threads=0", "threads=0"},
             {"sweep=4", "unknown key 'sweep'"}, {"nan=scan nan=watch", "given twice"}, {"", "empty"},
             {"rules isa=avx2", "'rules'"}, {"prefetch_kib=0", "prefetch_kib=0"}}) {
        try {
            (void)pj::parse_plan_choice(text);
            ADD_FAILURE() << "accepted '" << text << "'";
        } catch (const pj::Error& e) {
            EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
        }
    }
}

// A PlanChoice built in code is checked as a parsed one is: a number past its range or an enum that is none of
// its enumerators is an Error naming the part, from create() and never a plan made with it.
TEST(PlanChoiceInCode, PartsOutOfRangeAreRefusedByName) {
    const pj::AnyPoolDesc desc = pj::parse_problem("maxpool dt=f32 layout=ncx src=1x3x9x9 k=3x3 s=2x2");
    const auto refused = [&](const C& c, const std::string& part) {
        SCOPED_TRACE(part);
        try {
            (void)pj::create(desc, c);
            ADD_FAILURE() << "created under an out-of-range " << part;
        } catch (const pj::Error& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    C c;
    c.separable_kib = 1 << 20;  // would size a stack area of a GiB
    refused(c, "separable_kib");
    c = C{};
    c.threads = -3;
    refused(c, "threads");
    c = C{};
    c.prefetch_kib = -2;
    refused(c, "prefetch_kib");
    c = C{};
    c.isa = static_cast<C::Isa>(9);
    refused(c, "isa");
    c = C{};
    c.reuse = static_cast<C::Reuse>(200);
    refused(c, "reuse");
}

// A choice that names no ISA gets the rules' ISA form: a thread count alone does not change the code.
TEST(PlanChoiceInCode, AChoiceWithoutAnIsaKeepsTheRulesIsaForm) {
    if (pj::jit::max_isa() == pj::jit::Isa::ref) GTEST_SKIP() << "no JIT ISA on this CPU";
    for (const char* line : {"maxpool dt=u8 layout=nxc src=1x40x20x20 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=f32 layout=ncx src=1x16x28x28 k=2x2 s=2x2"}) {
        SCOPED_TRACE(line);
        const pj::AnyPoolDesc desc = pj::parse_problem(line);
        C threads;
        threads.threads = 2;
        const pj::Primitive rules = pj::create(desc);
        const pj::Primitive chosen = pj::create(desc, threads);
        EXPECT_EQ(chosen.impl_name(), rules.impl_name());
        expect_matches_reference(chosen, "threads=2");
    }
}

// ---- create under a choice ----------------------------------------------------------------------------------

// Problems whose plans take different answers to the choices below (planar and channels-last, rows that
// overlap or not, a float and an integer and bf16 type, indices).
const std::vector<std::string> problems = {
    "maxpool dt=f32 layout=ncx src=2x5x17x19 k=3x3 s=2x2 pb=1x1 pe=1x1",
    "maxpool dt=f32 layout=nxc src=1x40x13x11 k=5x5 s=1x1 pb=2x2 pe=2x2",
    "maxpool dt=bf16 layout=ncx src=1x4x20x24 k=3x3 s=1x1 pb=1x1 pe=1x1",
    "maxpool dt=u8 layout=nxc src=2x70x9x9 k=2x2 s=2x2",
    "maxpool dt=f32 layout=ncx src=1x8x7x7 k=2x2 s=2x2 idx=s64",
    "adaptivemaxpool dt=f32 layout=ncx src=1x6x13x13 out=3x3 idx=s32",
    "adaptivemaxpool dt=u8 layout=ncx src=1x6x13x13 out=2x2",
    "maxpool dt=s32 layout=ncx src=1x4x30x40 k=2x2 s=2x2",
};

std::vector<C> single_part_choices() {
    std::vector<C> out;
    const auto with = [&](auto&& set) {
        C c;
        set(c);
        out.push_back(c);
    };
    for (const C::Nan n : {C::Nan::scan, C::Nan::watch}) with([&](C& c) { c.nan = n; });
    for (const C::Reuse r : {C::Reuse::none, C::Reuse::ring, C::Reuse::separable}) with([&](C& c) { c.reuse = r; });
    for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.planes = s; });
    for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.pairs = s; });
    for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.tap_pairs = s; });
    for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.ranks = s; });
    for (const C::Switch s : {C::Switch::on, C::Switch::off}) with([&](C& c) { c.bands = s; });
    with([](C& c) { c.sweep_bytes = 1; });
    with([](C& c) { c.separable_kib = 8; });
    with([](C& c) { c.prefetch_kib = -1; });
    with([](C& c) { c.chunk_kib = 96; });
    with([](C& c) { c.threads = 2; });
    with([](C& c) { c.grain = 1; });
    return out;
}

class ChoiceOnIsa : public ::testing::TestWithParam<pj::jit::Isa> {};

// Every choice is either honoured (and then computes the reference's results, the plan saying which choice made
// it) or refused with an Error naming the part it cannot take. Each problem takes some choices.
TEST_P(ChoiceOnIsa, HonouredChoicesMatchTheReferenceAndRefusalsNameThePart) {
    const pj::jit::Isa isa = GetParam();
    POOLJIT_SKIP_UNLESS_CPU_RUNS(isa);
    const pj::test::IsaCap cap(pj::jit::to_string(isa));
    for (const std::string& line : problems) {
        int honoured = 0;
        for (C choice : single_part_choices()) {
            choice.isa = isa == pj::jit::Isa::avx512 ? C::Isa::avx512 : C::Isa::avx2;
            SCOPED_TRACE(line + " under " + pj::to_string(choice));
            try {
                const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
                ++honoured;
                EXPECT_EQ(p.choice(), choice);
                EXPECT_EQ(p.impl_name(), std::string("jit:") + pj::jit::to_string(isa));
                pj::set_num_threads(3);  // threads and grain parts act on the split
                expect_matches_reference(p, line);
                pj::set_num_threads(0);
            } catch (const pj::Error& e) {
                const std::string message = e.what();
                EXPECT_NE(message.find("cannot be honoured"), std::string::npos) << message;
                // The refusal names one of the choice's parts by its key ("plan choice reuse=ring cannot ...",
                // "plan choice pairs cannot ..."), a key the choice sets.
                const std::string text = " " + pj::to_string(choice);
                ASSERT_NE(message.find("plan choice "), std::string::npos) << message;
                const std::string part = message.substr(message.find("plan choice ") + 12);
                const std::string key = part.substr(0, part.find_first_of(" ="));
                EXPECT_NE(text.find(" " + key + "="), std::string::npos) << message;
            }
        }
        EXPECT_GE(honoured, 3) << line << ": too few choices honoured to test anything";
    }
}

INSTANTIATE_TEST_SUITE_P(Isas, ChoiceOnIsa, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const ::testing::TestParamInfo<pj::jit::Isa>& isa_info) { return std::string(pj::jit::to_string(isa_info.param)); });

TEST(ChoiceCache, TheChoiceIsPartOfTheKey) {
    const pj::AnyPoolDesc desc = pj::parse_problem("maxpool dt=f32 layout=nxc src=1x33x9x9 k=3x3 s=1x1 pb=1x1 pe=1x1");
    pj::cache::clear();
    const pj::Primitive rules = pj::create(desc);
    const pj::cache::Stats before = pj::cache::stats();
    const pj::Primitive rules_again = pj::create(desc, C{});  // the rules, named: the same entry
    EXPECT_EQ(pj::cache::stats().hits, before.hits + 1);
    C scan;
    scan.nan = C::Nan::scan;
    const pj::Primitive other = pj::create(desc, scan);  // another answer: another entry
    EXPECT_EQ(pj::cache::stats().misses, before.misses + 1);
    EXPECT_TRUE(rules.choice().is_rules());
    EXPECT_EQ(other.choice(), scan);
}

TEST(ChoiceRefusal, AnIsaTheCapRulesOut) {
    if (!pj::jit::cpu_runs(pj::jit::Isa::avx2)) GTEST_SKIP() << "the CPU lacks avx2";
    const pj::test::IsaCap cap("avx2");
    C c;
    c.isa = C::Isa::avx512;
    try {
        (void)pj::create(pj::parse_problem("maxpool src=1x3x8x8 k=2x2"), c);
        ADD_FAILURE() << "isa=avx512 under POOLJIT_MAX_ISA=avx2 was honoured";
    } catch (const pj::Error& e) {
        EXPECT_NE(std::string(e.what()).find("isa=avx512"), std::string::npos) << e.what();
    }
}

// ranges=on and ranges=off are honoured for a global channels-last window without indices (the plan says
// whether its windows may run as ranges) and refused by name for any other problem.
TEST(ChoiceRefusal, WindowRangesOnlyForGlobalChannelsLastWindows) {
    if (pj::jit::max_isa() == pj::jit::Isa::ref) GTEST_SKIP() << "no JIT ISA on this CPU";
    C on, off;
    on.ranges = C::Switch::on;
    off.ranges = C::Switch::off;
    const pj::AnyPoolDesc global = pj::parse_problem("maxpool dt=f32 layout=nxc src=1x8x300 k=300");
    expect_matches_reference(pj::create(global, on), "ranges=on");
    expect_matches_reference(pj::create(global, off), "ranges=off");
    for (const char* line : {"maxpool dt=f32 layout=ncx src=1x8x300 k=300", "maxpool dt=f32 layout=nxc src=1x8x300 k=300 idx=s64",
                             "maxpool dt=f32 layout=nxc src=1x8x300 k=299"})
        for (const C& c : {on, off}) {
            try {
                (void)pj::create(pj::parse_problem(line), c);
                ADD_FAILURE() << line << ": " << pj::to_string(c) << " honoured";
            } catch (const pj::Error& e) {
                EXPECT_NE(std::string(e.what()).find(pj::to_string(c)), std::string::npos) << e.what();
            }
        }
}

// ---- tune ---------------------------------------------------------------------------------------------------

TEST(Tune, CandidatesAreCheckedTimedAndTheWinnerIsTheFastest) {
    if (pj::jit::max_isa() == pj::jit::Isa::ref) GTEST_SKIP() << "no JIT ISA on this CPU";
    pj::TuneOptions options;
    options.threads = 1;
    options.budget_ms = 60;
    const pj::TuneResult r = pj::tune(pj::parse_problem("maxpool dt=f32 layout=ncx src=1x16x40x40 k=3x3 s=1x1 pb=1x1 pe=1x1"),
                                      options);
    ASSERT_GE(r.candidates.size(), 2U);
    EXPECT_TRUE(r.candidates.front().choice.is_rules());
    double fastest = r.candidates.front().us;
    for (const pj::TuneCandidate& c : r.candidates) {
        EXPECT_TRUE(c.failure.empty()) << pj::to_string(c.choice) << ": " << c.failure;
        EXPECT_GE(c.rounds, 1) << pj::to_string(c.choice);
        fastest = std::min(fastest, c.us);
    }
    EXPECT_EQ(r.winner_us, fastest);
    EXPECT_EQ(r.rules_us, r.candidates.front().us);
    EXPECT_GT(r.spent_ms, 0);
    // The winner is honoured and right.
    expect_matches_reference(pj::create(pj::parse_problem(r.problem), r.winner), "the winner");
}

TEST(Tune, BadOptionsAreRefusedByName) {
    const pj::AnyPoolDesc desc = pj::parse_problem("maxpool dt=f32 layout=ncx src=1x3x9x9 k=3x3");
    const auto refused = [&](const pj::AnyPoolDesc& d, const pj::TuneOptions& o, const std::string& field) {
        SCOPED_TRACE(field);
        try {
            (void)pj::tune(d, o);
            ADD_FAILURE() << "tuned";
        } catch (const pj::Error& e) {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "threw a non-pooljit::Error: " << e.what();
        }
    };
    pj::TuneOptions o;
    o.threads = 10000;
    refused(desc, o, "threads");
    o = {};
    o.batch = -1;
    refused(desc, o, "batch");
    o = {};
    o.budget_ms = 0;
    refused(desc, o, "budget_ms");
    o.budget_ms = std::numeric_limits<double>::quiet_NaN();
    refused(desc, o, "budget_ms");
    // A descriptor with no dims and a batch to set: the descriptor's own error, not an out-of-range access.
    pj::MaxPoolDesc empty;
    empty.kernel = {2, 2};
    o = {};
    o.batch = 4;
    refused(empty, o, "dims");
}

TEST(Tune, MoreThreadsAddThreadCandidates) {
    if (pj::jit::max_isa() == pj::jit::Isa::ref) GTEST_SKIP() << "no JIT ISA on this CPU";
    pj::TuneOptions options;
    options.threads = 4;
    options.budget_ms = 30;
    const pj::TuneResult r = pj::tune(pj::parse_problem("maxpool dt=f32 layout=nxc src=2x64x28x28 k=2x2 s=2x2"), options);
    bool fewer_threads = false;
    for (const pj::TuneCandidate& c : r.candidates) fewer_threads |= c.choice.threads > 0 && c.choice.threads < 4;
    EXPECT_TRUE(fewer_threads);
    EXPECT_EQ(r.threads, 4);
    // A global channels-last window is also timed split by channels, against the rules' ranges of pixels.
    const pj::TuneResult global = pj::tune(pj::parse_problem("maxpool dt=f32 layout=nxc src=1x8x3000 k=3000"), options);
    bool by_channels = false;
    for (const pj::TuneCandidate& c : global.candidates) by_channels |= c.choice.ranges == C::Switch::off;
    EXPECT_TRUE(by_channels);
}

// ---- wisdom -------------------------------------------------------------------------------------------------

class WisdomFiles : public ::testing::Test {
protected:
    void SetUp() override { pj::wisdom::clear(); }
    void TearDown() override {
        pj::wisdom::clear();
        std::remove(path_.c_str());
    }
    void write(const std::string& text) {
        std::ofstream out(path_);
        out << text;
    }
    std::string line(const std::string& cpu, const std::string& problem, int threads, const std::string& choice) {
        return "cpu=" + cpu + " | problem=" + problem + " | threads=" + std::to_string(threads) + " | choice=" + choice +
               " | times=1.5@rules; 1.2@" + choice + "\n";
    }
    const std::string path_ = temp_file("wisdom");
};

TEST_F(WisdomFiles, RoundTripsAndCreateUsesTheEntry) {
    if (pj::jit::max_isa() == pj::jit::Isa::ref) GTEST_SKIP() << "no JIT ISA on this CPU";
    const std::string problem = pj::to_string(pj::parse_problem("maxpool dt=f32 layout=nxc src=1x35x11x11 k=3x3 s=2x2"));
    pj::set_num_threads(1);
    pj::TuneResult result;
    result.problem = problem;
    result.threads = 1;
    result.winner.nan = C::Nan::scan;
    result.candidates = {{C{}, "jit", 2.0, 3, ""}, {result.winner, "jit", 1.0, 3, ""}};
    pj::wisdom::add(result);
    ASSERT_EQ(pj::wisdom::size(), 1U);
    pj::wisdom::save(path_);
    pj::wisdom::clear();
    EXPECT_EQ(pj::wisdom::size(), 0U);
    pj::wisdom::load(path_);
    ASSERT_EQ(pj::wisdom::size(), 1U);
    EXPECT_EQ(pj::wisdom::lookup(problem, 1), result.winner);
    EXPECT_FALSE(pj::wisdom::lookup(problem, 2).has_value());  // another thread count: no entry
    const pj::Primitive p = pj::create(pj::parse_problem(problem));
    EXPECT_EQ(p.choice(), result.winner);
    expect_matches_reference(p, "from wisdom");
    pj::set_num_threads(2);
    EXPECT_TRUE(pj::create(pj::parse_problem(problem)).choice().is_rules());
    pj::set_num_threads(0);
}

TEST_F(WisdomFiles, AnotherCpusLinesAreIgnoredAndKept) {
    const std::string problem = pj::to_string(pj::parse_problem("maxpool src=1x3x10x10 k=2x2"));
    write(line("GenuineIntel/family=6/model=143/stepping=8/avx2,avx512/L1d=48K/L2=2048K/L3=107520K", problem, 1, "isa=avx2"));
    pj::wisdom::load(path_);
    EXPECT_EQ(pj::wisdom::size(), 0U);
    EXPECT_FALSE(pj::wisdom::lookup(problem, 1).has_value());
    pj::wisdom::save(path_);  // kept for another machine
    std::ifstream in(path_);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("GenuineIntel"), std::string::npos);
}

TEST_F(WisdomFiles, CorruptLinesAreErrorsNamingTheFileAndLine) {
    const std::string cpu = pj::wisdom::cpu_identity();
    const std::string good = line(cpu, pj::to_string(pj::parse_problem("maxpool src=1x3x10x10 k=2x2")), 1, "rules");
    for (const std::string& bad : {std::string("cpu=x | problem=maxpool src=1x3x4 k=2\n"),
                                   line(cpu, "maxpool src=1x3x10x10", 1, "rules"),                 // no k=
                                   line(cpu, "maxpool src=1x3x10x10 k=2x2", 0, "rules"),            // threads 0
                                   line(cpu, "maxpool src=1x3x10x10 k=2x2", 1, "isa=sse"),          // bad choice
                                   std::string("problem=a | cpu=b | threads=1 | choice=rules | times=\n")}) {
        write("# comment\n" + good + bad);
        try {
            pj::wisdom::load(path_);
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const pj::Error& e) {
            EXPECT_NE(std::string(e.what()).find(path_ + ":3"), std::string::npos) << e.what();
        }
        EXPECT_EQ(pj::wisdom::size(), 0U) << "a file that failed to load kept its good line";
    }
}

TEST_F(WisdomFiles, AChoiceThePlannerRefusesFallsBackToTheRules) {
    if (pj::jit::max_isa() == pj::jit::Isa::ref) GTEST_SKIP() << "no JIT ISA on this CPU";
    // A ring for windows that do not overlap: the planner refuses it; create() serves the rules' code.
    const std::string problem = pj::to_string(pj::parse_problem("maxpool dt=f32 layout=ncx src=1x3x10x10 k=2x2 s=2x2"));
    pj::set_num_threads(1);
    write(line(pj::wisdom::cpu_identity(), problem, 1, "reuse=ring"));
    pj::wisdom::load(path_);
    ASSERT_EQ(pj::wisdom::size(), 1U);
    // The refusal is logged once: later creates (cache hits, made millions of times) take the rules at once.
    std::ostringstream log;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
    sink->set_pattern("%v");
    pj::detail::logger()->sinks().push_back(sink);
    for (int i = 0; i < 3; ++i) {
        const pj::Primitive p = pj::create(pj::parse_problem(problem));
        EXPECT_TRUE(p.choice().is_rules());
        expect_matches_reference(p, "the rules after a refused choice");
    }
    auto& sinks = pj::detail::logger()->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
    const std::string text = log.str();
    std::size_t warnings = 0;
    for (std::size_t at = text.find("the choice was refused"); at != std::string::npos;
         at = text.find("the choice was refused", at + 1))
        ++warnings;
    EXPECT_EQ(warnings, 1U) << text;
    EXPECT_NE(text.find("reuse=ring"), std::string::npos) << "the warning names the refused part: " << text;
    // The line is saved as it was read.
    pj::wisdom::save(path_);
    std::ifstream saved(path_);
    const std::string contents((std::istreambuf_iterator<char>(saved)), std::istreambuf_iterator<char>());
    EXPECT_NE(contents.find("choice=reuse=ring"), std::string::npos) << contents;
    pj::set_num_threads(0);
}

TEST(TuningOnFirstUse, ACreateMissTunesAndKeepsTheWinner) {
    if (pj::jit::max_isa() == pj::jit::Isa::ref) GTEST_SKIP() << "no JIT ISA on this CPU";
    pj::wisdom::clear();
    pj::set_num_threads(1);
    const std::string problem = pj::to_string(pj::parse_problem("maxpool dt=f32 layout=ncx src=1x8x30x30 k=3x3 s=2x2"));
    EXPECT_FALSE(pj::tuning());  // off by default
    pj::set_tuning(true);
    const pj::Primitive p = pj::create(pj::parse_problem(problem));
    pj::set_tuning(false);
    ASSERT_EQ(pj::wisdom::size(), 1U);
    const std::optional<C> kept = pj::wisdom::lookup(problem, 1);
    ASSERT_TRUE(kept.has_value());
    EXPECT_EQ(p.choice(), *kept);
    expect_matches_reference(p, "tuned on first use");
    pj::wisdom::clear();
    pj::set_num_threads(0);
}

}  // namespace
