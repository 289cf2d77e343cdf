// Executable memory (jit/isa/code_pages.hpp): entries copied out of their emission buffers run from read-exec pages
// that are never writable at the same time, freed runs are reused read-write, and the kernels the emitters make
// are position-independent (two compiles of one plan, at two addresses, are the same bytes).
#include "jit/isa/code_pages.hpp"
#include "jit/emit/kernel.hpp"
#include "jit/plan/plan.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"
#include "jit/emit/window_emitter.hpp"
#include "support/plan_util.hpp"

#include <gtest/gtest.h>
#include <xbyak/xbyak.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace jit = pooljit::jit;
using pooljit::testing::plan_of;

namespace {

// The permissions of the mapping that holds `address`, as /proc/self/maps prints them ("r-xp"), or "" if none.
std::string permissions_at(const void* address) {
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream fields(line);
        std::string range, permissions;
        fields >> range >> permissions;
        const std::size_t dash = range.find('-');
        const std::uintptr_t begin = std::stoull(range.substr(0, dash), nullptr, 16);
        const std::uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
        if (at >= begin && at < end) return permissions;
    }
    return "";
}

// Plain x86-64 (no vector instructions): runs on any host the tests run on.
struct ReturnsConstant : Xbyak::CodeGenerator {
    explicit ReturnsConstant(std::uint32_t value) : CodeGenerator(4096, Xbyak::AutoGrow, &jit::emit_allocator()) {
        mov(eax, value);
        ret();
        ready();
    }
    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }
};

// Reads its result from data after the code, rip-relative, past an align(64): the copy must keep both.
struct ReadsItsData : Xbyak::CodeGenerator {
    explicit ReadsItsData(std::uint32_t value) : CodeGenerator(16, Xbyak::AutoGrow, &jit::emit_allocator()) {
        Xbyak::Label data;
        add(edi, dword[rip + data]);
        mov(eax, edi);
        ret();
        align(64);
        L(data);
        dd(value);
        ready();  // grows from 16 bytes: the buffer moved while it was written
    }
    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }
};

// A long run of nops and a ret: an entry larger than a chunk of the pool.
struct LongEntry : Xbyak::CodeGenerator {
    explicit LongEntry(std::size_t nops) : CodeGenerator(4096, Xbyak::AutoGrow, &jit::emit_allocator()) {
        for (std::size_t i = 0; i < nops; ++i) nop();
        mov(eax, 7);
        ret();
        ready();
    }
    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }
};

using ReturnsInt = std::uint32_t (*)();
using AddsInt = std::uint32_t (*)(std::uint32_t);

TEST(CodePages, EntriesRunFromReadExecPagesAtCacheLineOffsets) {
    const ReturnsConstant first(42);
    const ReadsItsData second(1000);
    const jit::ExecutableCode code{first.code(), second.code()};

    ASSERT_EQ(code.entries(), 2U);
    EXPECT_EQ(code.function<ReturnsInt>(0)(), 42U);
    EXPECT_EQ(code.function<AddsInt>(1)(5), 1005U);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(code.entry(0)) % 4096, 0U);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(code.entry(1)) % 64, 0U);
    EXPECT_EQ(code.entry_size(0), first.code().size());
    EXPECT_EQ(code.code_size(), first.code().size() + second.code().size());
    EXPECT_TRUE(std::equal(first.code().begin(), first.code().end(), code.entry(0)));
    EXPECT_TRUE(std::equal(second.code().begin(), second.code().end(), code.entry(1)));
    // The gap between the entries is int3, never a previous kernel's code.
    for (const std::uint8_t* p = code.entry(0) + code.entry_size(0); p < code.entry(1); ++p) ASSERT_EQ(*p, 0xCC);
    for (const std::uint8_t* p = code.entry(1) + code.entry_size(1); p < code.entry(0) + 4096; ++p) ASSERT_EQ(*p, 0xCC);
    EXPECT_EQ(permissions_at(code.entry(0)), "r-xp");
    EXPECT_EQ(permissions_at(code.entry(1)), "r-xp");
}

TEST(CodePages, AFreedRunIsWritableAgainAndServesTheNextKernelOfItsSize) {
    const LongEntry first(1000);
    const ReturnsConstant second(2);
    const std::uint8_t* freed = nullptr;
    {
        const jit::ExecutableCode code{first.code()};
        freed = code.entry(0);
        EXPECT_EQ(code.function<ReturnsInt>(0)(), 7U);
    }
    EXPECT_EQ(permissions_at(freed), "rw-p");
    const jit::CodePageStats before = jit::code_page_stats();
    EXPECT_GE(before.free_runs, 1U);
    const jit::ExecutableCode code{second.code()};
    EXPECT_EQ(code.entry(0), freed);  // the last run freed at its size is the first taken
    EXPECT_EQ(code.function<ReturnsInt>(0)(), 2U);
    EXPECT_EQ(permissions_at(code.entry(0)), "r-xp");
    // The longer kernel that ran here before is gone: the rest of the page is int3.
    for (std::size_t b = code.entry_size(0); b < 4096; ++b) ASSERT_EQ(code.entry(0)[b], 0xCC) << "byte " << b;
    const jit::CodePageStats after = jit::code_page_stats();
    EXPECT_EQ(after.free_runs, before.free_runs - 1);
    EXPECT_EQ(after.runs_in_use, before.runs_in_use + 1);
    EXPECT_EQ(after.mapped_bytes, before.mapped_bytes);  // reused, nothing mapped
}

TEST(CodePages, AnEntryLargerThanAChunkIsMappedOnItsOwn) {
    const LongEntry entry(300 * 1024);
    const jit::CodePageStats before = jit::code_page_stats();
    {
        const jit::ExecutableCode code{entry.code()};
        EXPECT_EQ(code.function<ReturnsInt>(0)(), 7U);
        EXPECT_EQ(permissions_at(code.entry(0) + code.entry_size(0) - 1), "r-xp");
        EXPECT_EQ(jit::code_page_stats().runs_in_use, before.runs_in_use + 1);
        EXPECT_GE(jit::code_page_stats().mapped_bytes, entry.code().size());
    }
    EXPECT_EQ(jit::code_page_stats().runs_in_use, before.runs_in_use);
}

// Both entries of a plan emitted twice while the first emission is alive, so the two emission buffers are at
// different addresses: an entry that held an absolute address of its own code would differ.
template <typename Ops>
void expect_same_bytes_from_two_buffers(const jit::KernelPlan& plan) {
    const jit::WindowEmitter<Ops> one(plan, plan.channel_block, plan.channel_sweep);
    const jit::WindowEmitter<Ops> two(plan, plan.channel_block, plan.channel_sweep);
    ASSERT_NE(one.code().data(), two.code().data());
    EXPECT_TRUE(std::equal(one.code().begin(), one.code().end(), two.code().begin(), two.code().end()))
        << "full entry differs";
    if (plan.channel_tail == 0) return;
    const jit::WindowEmitter<Ops> tail_one(plan, plan.channel_tail), tail_two(plan, plan.channel_tail);
    EXPECT_TRUE(std::equal(tail_one.code().begin(), tail_one.code().end(), tail_two.code().begin(),
                           tail_two.code().end()))
        << "tail entry differs";
}

// Kernels of each strategy family, on both ISAs (compiled here whatever the CPU has; nothing is run): two
// emissions held at once, and two compiles at two addresses of executable pages, are the same bytes, so no
// entry holds an absolute address of its own code. Planes in registers are left out: their code holds the address of their gather tables, which
// live apart from the code.
TEST(CodePages, KernelsArePositionIndependent) {
    const char* problems[] = {
        "maxpool dt=f32 layout=nxc src=1x20x9x9 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64",  // a channel tail: two entries
        "maxpool dt=bf16 layout=ncx src=1x3x17x23 k=3x3 s=2x2 round=ceil_torch",
        "maxpool dt=u8 layout=nxc src=1x64x20x20 k=5x5 pb=2x2 pe=2x2",
        "maxpool dt=f32 layout=ncx src=2x8x14x14 k=2x2 s=2x2 idx=s32",
        "maxpool dt=f16 layout=ncx src=1x4x33 k=4 s=3 d=2",
        "adaptivemaxpool dt=f64 layout=ncx src=1x5x13x13 out=3x3 idx=s64",
        "maxpool dt=s8 layout=nxc src=1x3x5x6x7 k=2x2x2 s=2x2x2",
    };
    const std::size_t in_use_before = jit::code_page_stats().runs_in_use;
    for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512}) {
        for (const char* problem : problems) {
            SCOPED_TRACE(std::string(problem) + " on " + jit::to_string(isa));
            const jit::KernelPlan plan = plan_of(problem, isa);
            if (plan.strategy == jit::Strategy::ncx_planes) continue;
            if (isa == jit::Isa::avx2) expect_same_bytes_from_two_buffers<jit::Avx2Ops>(plan);
            else expect_same_bytes_from_two_buffers<jit::Avx512Ops>(plan);
            const std::unique_ptr<jit::CompiledKernel> one = jit::compile(plan);
            const std::unique_ptr<jit::CompiledKernel> two = jit::compile(plan);
            const auto regions_one = one->code_regions(), regions_two = two->code_regions();
            ASSERT_EQ(regions_one.size(), regions_two.size());
            ASSERT_EQ(regions_one.size(), plan.channel_tail > 0 ? 2U : 1U);
            for (std::size_t r = 0; r < regions_one.size(); ++r) {
                ASSERT_NE(regions_one[r].code, regions_two[r].code);
                ASSERT_EQ(regions_one[r].size, regions_two[r].size);
                const auto* a = static_cast<const std::uint8_t*>(regions_one[r].code);
                const auto* b = static_cast<const std::uint8_t*>(regions_two[r].code);
                EXPECT_TRUE(std::equal(a, a + regions_one[r].size, b)) << regions_one[r].name << " entry differs";
                EXPECT_EQ(permissions_at(a), "r-xp");
            }
        }
    }
    EXPECT_EQ(jit::code_page_stats().runs_in_use, in_use_before);  // every kernel's run went back to the pool
}

}  // namespace
