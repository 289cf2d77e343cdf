// Observability: the verbose create and execute lines (their problem string parses back), the dispatch and
// plan lines at level 2, silence at level 0, JIT dumps, perf maps, and invalid settings.
#include "runtime_test_util.hpp"

#include "jit/isa/isa.hpp"
#include "runtime/cache.hpp"
#include "runtime/log.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace pj = pooljit;
using pj::test::jit_friendly;
using pj::test::ScopedEnv;

namespace {

class RuntimeObservability : public ::testing::Test {
protected:
    void SetUp() override {
        pj::cache::set_capacity(1024);
        pj::cache::clear();
        pj::cache::reset_stats();
        pj::detail::set_verbosity_for_testing(0);
        pj::detail::set_jit_dump_dir_for_testing("");
        pj::detail::set_jit_profile_for_testing(false);
        captured_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(output_);
        captured_->set_pattern("%v");
        pj::detail::logger()->sinks().push_back(captured_);
    }

    void TearDown() override {
        auto& sinks = pj::detail::logger()->sinks();
        sinks.erase(std::remove(sinks.begin(), sinks.end(), captured_), sinks.end());
        pj::detail::set_verbosity_for_testing(0);
        pj::detail::set_jit_dump_dir_for_testing("");
        pj::detail::set_jit_profile_for_testing(false);
    }

    std::vector<std::string> lines_starting_with(const std::string& prefix) const {
        std::vector<std::string> found;
        std::istringstream in(output_.str());
        for (std::string line; std::getline(in, line);)
            if (line.starts_with(prefix)) found.push_back(line);
        return found;
    }

    std::ostringstream output_;
    std::shared_ptr<spdlog::sinks::ostream_sink_mt> captured_;
};

// The problem string of a "pooljit create ..." or "pooljit execute ..." line: what lies between the prefix
// and " impl=".
std::string problem_string_of(const std::string& line, const std::string& prefix) {
    const std::size_t end = line.find(" impl=");
    if (!line.starts_with(prefix) || end == std::string::npos) return "";
    return line.substr(prefix.size(), end - prefix.size());
}

std::string value_of(const std::string& line, const std::string& key) {
    const std::size_t at = line.find(" " + key + "=");
    if (at == std::string::npos) return "";
    const std::size_t begin = at + key.size() + 2;
    return line.substr(begin, line.find(' ', begin) - begin);
}

}  // namespace

TEST_F(RuntimeObservability, CreateLineParsesBackToTheDescriptor) {
    pj::detail::set_verbosity_for_testing(1);
    pj::MaxPoolDesc d = jit_friendly();
    d.dilations = {1, 2};
    d.rounding = pj::Rounding::ceil_torch;
    d.nan = pj::NanPolicy::ignore;
    const pj::AdaptiveMaxPoolDesc a{{pj::DType::u8, pj::Layout::ncx, {1, 2, 5, 6, 7}}, {3, 2, 4}, pj::DType::s32};
    const std::vector<pj::AnyPoolDesc> descs{d, a};
    for (const pj::AnyPoolDesc& desc : descs) (void)pj::create(desc);
    (void)pj::create(descs[0]);

    const std::vector<std::string> lines = lines_starting_with("pooljit create ");
    ASSERT_EQ(lines.size(), 3u) << output_.str();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const pj::AnyPoolDesc& want = descs[i % 2];
        const std::string problem = problem_string_of(lines[i], "pooljit create ");
        EXPECT_EQ(problem, pj::to_string(want));
        EXPECT_EQ(pj::parse_problem(problem), want) << lines[i];
        EXPECT_TRUE(pj::test::is_known_impl(value_of(lines[i], "impl"))) << lines[i];
    }
    EXPECT_EQ(value_of(lines[0], "cache"), "miss");
    EXPECT_EQ(value_of(lines[2], "cache"), "hit");
    EXPECT_EQ(value_of(lines[2], "compile_us"), "0");
    EXPECT_FALSE(value_of(lines[0], "compile_us").empty());
    EXPECT_TRUE(lines_starting_with("pooljit plan ").empty()) << "the plan is for verbosity 2";
}

TEST_F(RuntimeObservability, ExecuteLineHasProblemImplAndTime) {
    const pj::MaxPoolDesc d = jit_friendly();
    const pj::Primitive p = pj::Primitive::create(d);
    pj::detail::set_verbosity_for_testing(1);
    pj::test::expect_matches_reference(p, d);
    const std::vector<std::string> lines = lines_starting_with("pooljit execute ");
    ASSERT_EQ(lines.size(), 1u) << output_.str();
    EXPECT_EQ(problem_string_of(lines[0], "pooljit execute "), pj::to_string(d));
    EXPECT_EQ(value_of(lines[0], "impl"), p.impl_name());
    const std::string us = value_of(lines[0], "us");
    ASSERT_FALSE(us.empty()) << lines[0];
    EXPECT_GE(std::stod(us), 0.0);
}

// The executor wakes threads by the kernel's expected time: none beside the caller for a problem of a few
// microseconds, all it may for one of many (whatever the host's cores: the count set is what it may use).
TEST_F(RuntimeObservability, ExecuteLineNamesTheThreadsUsed) {
    pj::MaxPoolDesc small = jit_friendly(1);
    small.indices.reset();
    pj::MaxPoolDesc spp;  // SPP's k9 over 64 channels of 40x40: about 1 ms of compares on one thread
    spp.src = {pj::DType::f32, pj::Layout::ncx, {1, 64, 40, 40}};
    spp.kernel = {9, 9};
    spp.pads_begin = {4, 4};
    spp.pads_end = {4, 4};
    pj::set_num_threads(4);
    pj::detail::set_verbosity_for_testing(1);
    for (const pj::MaxPoolDesc& d : {small, spp}) pj::test::expect_matches_reference(pj::Primitive::create(d), d);
    pj::set_num_threads(0);
    const std::vector<std::string> lines = lines_starting_with("pooljit execute ");
    ASSERT_EQ(lines.size(), 2u) << output_.str();
    if (pj::Primitive::create(small).impl_name() == "ref") GTEST_SKIP() << "the reference runs on the caller's thread";
    EXPECT_EQ(value_of(lines[0], "threads"), "1") << lines[0];
    EXPECT_EQ(value_of(lines[1], "threads"), "4") << lines[1];
}

TEST_F(RuntimeObservability, SilentAtVerbosityZero) {
    const pj::MaxPoolDesc d = jit_friendly();
    const pj::Primitive p = pj::Primitive::create(d);
    pj::test::expect_matches_reference(p, d);
    EXPECT_EQ(output_.str(), "");
}

TEST_F(RuntimeObservability, LevelTwoAddsDispatchReasonsAndThePlan) {
    pj::detail::set_verbosity_for_testing(2);
    {
        ScopedEnv no_cap("POOLJIT_MAX_ISA", nullptr);
        const pj::Primitive p = pj::Primitive::create(jit_friendly());
        if (p.impl_name().starts_with("jit:")) {
            const std::vector<std::string> plans = lines_starting_with("pooljit plan ");
            ASSERT_FALSE(plans.empty()) << output_.str();
            EXPECT_NE(plans[0].find("isa="), std::string::npos) << plans[0];
        }
    }
    {
        ScopedEnv ref_only("POOLJIT_MAX_ISA", "ref");
        const pj::Primitive p = pj::Primitive::create(jit_friendly());
        EXPECT_EQ(p.impl_name(), "ref");
        const std::vector<std::string> reasons = lines_starting_with("pooljit dispatch ");
        ASSERT_FALSE(reasons.empty()) << output_.str();
        EXPECT_TRUE(std::any_of(reasons.begin(), reasons.end(), [](const std::string& line) {
            return line.find("jit:avx2 declined") != std::string::npos;
        })) << output_.str();
    }
}

TEST_F(RuntimeObservability, JitDumpWritesEachCodeRegion) {
    const fs::path directory = fs::temp_directory_path() / ("pooljit_dump_test_" + std::to_string(::getpid()));
    fs::remove_all(directory);
    pj::detail::set_jit_dump_dir_for_testing(directory.string());

    const pj::Primitive p = pj::Primitive::create(jit_friendly());  // 19 channels: a full and a tail block
    if (!p.impl_name().starts_with("jit:")) {
        fs::remove_all(directory);
        GTEST_SKIP() << "no generated code on this machine (" << p.impl_name() << ")";
    }
    const std::uint64_t hash = pj::detail::hash_of(pj::detail::make_cache_key(p.problem()));
    const fs::path full = directory / pj::detail::jit_dump_file_name(hash, p.impl_name(), "full");
    EXPECT_EQ(full.filename().string().size(), std::string("pooljit_0123456789abcdef_").size() +
                                                    p.impl_name().size() - 4 + std::string("_full.bin").size());
    ASSERT_TRUE(fs::exists(full)) << full;
    EXPECT_GT(fs::file_size(full), 0u);

    const std::size_t files = static_cast<std::size_t>(std::distance(fs::directory_iterator(directory), {}));
    (void)pj::Primitive::create(jit_friendly());  // a hit compiles nothing and dumps nothing
    EXPECT_EQ(static_cast<std::size_t>(std::distance(fs::directory_iterator(directory), {})), files);
    fs::remove_all(directory);
}

TEST_F(RuntimeObservability, UnwritableDumpDirectoryIsAWarning) {
    pj::detail::set_jit_dump_dir_for_testing("/dev/null/not_a_directory");
    const pj::MaxPoolDesc d = jit_friendly();
    const pj::Primitive p = pj::Primitive::create(d);
    pj::test::expect_matches_reference(p, d);
    if (p.impl_name().starts_with("jit:")) {
        EXPECT_FALSE(lines_starting_with("pooljit warning: ").empty()) << output_.str();
    }
}

TEST_F(RuntimeObservability, PerfMapNamesTheCode) {
    const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
    fs::remove(path);
    pj::detail::set_jit_profile_for_testing(true);
    const pj::Primitive p = pj::Primitive::create(jit_friendly());
    if (!p.impl_name().starts_with("jit:")) GTEST_SKIP() << "no generated code on this machine";
    const std::uint64_t hash = pj::detail::hash_of(pj::detail::make_cache_key(p.problem()));
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));

    std::ifstream map(path);
    ASSERT_TRUE(map) << path;
    bool found_full = false;
    for (std::string line; std::getline(map, line);) {
        std::istringstream fields(line);
        std::string start, size, name;
        fields >> start >> size >> name;
        EXPECT_GT(std::stoull(start, nullptr, 16), 0u) << line;
        EXPECT_GT(std::stoull(size, nullptr, 16), 0u) << line;
        if (name == std::string("pooljit_") + hex + "_full") found_full = true;
    }
    EXPECT_TRUE(found_full);
    map.close();
    fs::remove(path);
}

TEST_F(RuntimeObservability, InvalidVerbosityIsAnError) {
    ScopedEnv verbose("POOLJIT_VERBOSE", "loud");
    pj::detail::set_verbosity_for_testing(-1);  // read the environment again
    try {
        (void)pj::Primitive::create(jit_friendly());
        FAIL() << "an invalid POOLJIT_VERBOSE must be reported";
    } catch (const pj::Error& e) {
        EXPECT_NE(std::string(e.what()).find("POOLJIT_VERBOSE = loud"), std::string::npos) << e.what();
    }
    EXPECT_EQ(pj::cache::stats().misses, 0u) << "nothing is compiled before the settings are checked";
    ::setenv("POOLJIT_VERBOSE", "1", 1);
    EXPECT_EQ(pj::detail::verbosity(), 1);
}
