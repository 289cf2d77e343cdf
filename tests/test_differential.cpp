// Differential test: every implementation that create() picks against the reference interpreter, bit for bit
// and index for index, over thousands of generated configurations with adversarial or tie data, once per ISA cap.
#include "casegen/casegen.hpp"
#include "support/cpu_isas.hpp"
#include "support/isa_cap.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>

namespace pj = pooljit;

namespace {

int case_count() {
    const char* env = std::getenv("POOLJIT_DIFF_CASES");
    return env ? std::atoi(env) : 3000;
}

// Outputs are poisoned before each run so an element the kernel forgot to write shows as a mismatch, and
// followed by guard bytes that must stay untouched.
constexpr std::size_t guard_bytes = 64;
constexpr std::uint8_t poison = 0xA5, guard = 0x5A;

struct Outputs {
    std::vector<std::uint8_t> dst, indices;
    Outputs(std::size_t dst_bytes, std::size_t index_bytes)
        : dst(dst_bytes + guard_bytes, poison), indices(index_bytes + guard_bytes, poison) {
        std::memset(dst.data() + dst_bytes, guard, guard_bytes);
        std::memset(indices.data() + index_bytes, guard, guard_bytes);
    }
};

void run_cases(const char* isa_cap, std::uint64_t seed) {
    ::setenv("POOLJIT_MAX_ISA", isa_cap, 1);
    pj::casegen::Generator gen(seed);
    std::map<std::string, int> served;
    const int count = case_count();
    for (int i = 0; i < count; ++i) {
        const pj::AnyPoolDesc desc = gen.any();
        const std::string problem = pj::to_string(desc);
        SCOPED_TRACE(problem);
        const pj::Primitive p = pj::test::create_for_cap(desc, isa_cap);
        ++served[p.impl_name()];
        ASSERT_EQ(p.impl_name(), std::string("jit:") + isa_cap) << "case " << i;
        const std::size_t dst_bytes = pj::casegen::byte_size(p.dst_desc());
        const std::size_t index_bytes = p.has_indices() ? pj::casegen::byte_size(p.indices_desc()) : 0;
        const std::vector<std::uint8_t> src = pj::casegen::differential_data(p.src_desc(), seed + static_cast<std::uint64_t>(i));
        Outputs got(dst_bytes, index_bytes), want(dst_bytes, index_bytes);
        p.execute(src.data(), got.dst.data(), p.has_indices() ? got.indices.data() : nullptr);
        pj::reference::execute(p.problem(), src.data(), want.dst.data(), p.has_indices() ? want.indices.data() : nullptr);
        ASSERT_EQ(got.dst, want.dst) << "values differ; impl " << p.impl_name() << "; case " << i;
        ASSERT_EQ(got.indices, want.indices) << "indices differ; impl " << p.impl_name() << "; case " << i;
    }
    ::unsetenv("POOLJIT_MAX_ISA");
    std::string summary;
    for (const auto& [impl, n] : served) summary += " " + impl + "=" + std::to_string(n);
    std::printf("POOLJIT_MAX_ISA=%s: %d cases served by%s\n", isa_cap, count, summary.c_str());
}

}  // namespace

// Each cap's run must be served by that ISA's code: an instance for an ISA the CPU lacks is skipped by name.
TEST(Differential, Avx512AgainstReference) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx512);
    run_cases("avx512", 0x5EED0001);
}
TEST(Differential, Avx2AgainstReference) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx2);
    run_cases("avx2", 0x5EED0002);
}
