// A caller's floating-point environment does not change what execute selects (runtime/float_environment.hpp):
// with MXCSR's denormals-are-zero and flush-to-zero set and the invalid exception unmasked, as engines run their
// threads, every float type's kernels and the reference still select the specifications' element among
// denormals, zeros of both signs and NaN, on one thread and split over two, and the caller's MXCSR comes back
// unchanged.
#include "runtime/threads.hpp"
#include "support/cpu_isas.hpp"
#include "support/isa_cap.hpp"
#include "support/run_compare.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>

#include <xmmintrin.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pj::test::with_dtype;

constexpr unsigned default_mxcsr = 0x1F80;  // every exception masked, round to nearest, DAZ and FTZ clear
constexpr unsigned invalid_mask = 1u << 7;
// What an engine's thread may run under: denormals-are-zero, flush-to-zero, and the invalid exception unmasked.
constexpr unsigned engine_mxcsr = (default_mxcsr | (1u << 6) | (1u << 15)) & ~invalid_mask;

// Elements that a DAZ compare sees as equal: denormals of both signs, +0 and -0, a few of the smallest normals;
// with NaN (quiet, both signs) at about one element in 64 where `with_nan`.
std::vector<std::uint8_t> denormal_data(const pj::TensorDesc& desc, bool with_nan, std::uint64_t seed) {
    const std::size_t bytes = pj::casegen::byte_size(desc);
    const std::size_t size = pj::size_of(desc.dtype);
    std::vector<std::uint8_t> data(bytes);
    std::mt19937_64 rng(seed);
    // The field widths of each float type: the mantissa's bits and where the sign sits.
    const int mantissa_bits = desc.dtype == pj::DType::f64 ? 52 : desc.dtype == pj::DType::f32 ? 23
                              : desc.dtype == pj::DType::f16 ? 10 : 7;
    const int sign_bit = static_cast<int>(size) * 8 - 1;
    for (std::size_t at = 0; at + size <= bytes; at += size) {
        const std::uint64_t r = rng();
        std::uint64_t bits = 0;
        switch (r % 8) {
        case 0: bits = 0; break;                                                 // +0 or -0 below
        case 1: bits = std::uint64_t{1} << mantissa_bits; break;                 // the smallest normal
        default: bits = (r >> 8) & ((std::uint64_t{1} << mantissa_bits) - 1); break;  // a denormal (or 0)
        }
        if (with_nan && (r >> 3) % 64 == 0) bits = ~std::uint64_t{0} >> (63 - sign_bit + 1);  // all ones but the sign
        if ((r >> 20) & 1) bits |= std::uint64_t{1} << sign_bit;
        std::memcpy(&data[at], &bits, size);  // little endian: the low bytes
    }
    return data;
}

// Sets MXCSR on the threads of the arena that execute uses for `threads` threads (as far as oneTBB hands them
// tasks), so the workers meet the engine's environment too, then on this thread.
void set_mxcsr_everywhere(unsigned mxcsr, int threads) {
    if (threads > 1)
        pj::detail::arena_for(threads).execute([&] {
            tbb::parallel_for(0, 256, [&](int) { _mm_setcsr(mxcsr); });
        });
    _mm_setcsr(mxcsr);
}

class FloatEnvironment : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    jit::Isa isa() const { return GetParam(); }
};

TEST_P(FloatEnvironment, DenormalsCompareAsValuesUnderTheCallersDaz) {
    const pj::test::IsaCap cap(jit::to_string(isa()));
    const std::vector<std::string> shapes = {
        "maxpool layout=ncx src=2x8x12x16 k=2x2 s=2x2",                    // planar lanes at stride 2
        "maxpool layout=nxc src=2x24x11x9 k=3x3 s=2x2 pb=1x1 pe=1x1",      // channels last, overlapping windows
        "maxpool layout=ncx src=1x6x6x6 k=3x3",                            // small planes
        "maxpool layout=ncx src=1x4x20x20 k=5x5 pb=2x2 pe=2x2",            // stride 1 (flat planes, separable rows)
        "maxpool layout=nxc src=1x40x7x7 k=7x7",                           // a global window
        "maxpool layout=ncx src=1x3x9x10 k=3x3 s=2x2 idx=s64",             // indices
        "adaptivemaxpool layout=ncx src=1x5x13x13 out=4x4 idx=s32",
    };
    for (const char* dt : {"f32", "f64", "f16", "bf16"}) {
        for (const std::string& shape : shapes) {
            const std::string line = with_dtype(shape, dt);
            for (const int threads : {1, 2}) {
                SCOPED_TRACE(line + " on " + std::to_string(threads) + " threads");
                pj::set_num_threads(threads);
                pj::PlanChoice choice = pj::test::choice_for(isa());
                choice.threads = threads;  // split however small the problem is
                const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
                EXPECT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa()));
                const pj::Problem& problem = p.problem();
                const std::size_t dst_bytes = pj::casegen::byte_size(problem.dst_desc());
                const std::size_t idx_bytes = problem.has_indices ? pj::casegen::byte_size(problem.indices_desc()) : 0;
                for (const bool with_nan : {false, true}) {
                    const auto src = denormal_data(problem.src_desc(), with_nan, std::hash<std::string>{}(line) + with_nan);
                    std::vector<std::uint8_t> want(dst_bytes), want_idx(idx_bytes), got(dst_bytes, 0xA5),
                        got_idx(idx_bytes, 0xA5), ref(dst_bytes, 0xA5), ref_idx(idx_bytes, 0xA5);
                    void* const no_indices = nullptr;
                    pj::reference::execute(problem, src.data(), want.data(), idx_bytes ? want_idx.data() : no_indices);

                    set_mxcsr_everywhere(engine_mxcsr, threads);
                    p.execute(src.data(), got.data(), idx_bytes ? got_idx.data() : no_indices);
                    const unsigned after_jit = _mm_getcsr();
                    pj::reference::execute(problem, src.data(), ref.data(), idx_bytes ? ref_idx.data() : no_indices);
                    const unsigned after_reference = _mm_getcsr();
                    set_mxcsr_everywhere(default_mxcsr, threads);

                    EXPECT_EQ(after_jit, engine_mxcsr) << "execute left MXCSR changed";
                    EXPECT_EQ(after_reference, engine_mxcsr) << "reference::execute left MXCSR changed";
                    const std::string data = with_nan ? "denormals and NaN" : "denormals";
                    pj::test::expect_outputs_match(problem.dst_desc(), got, want, 0xA5, 0xA5, "jit values on " + data);
                    pj::test::expect_outputs_match(problem.dst_desc(), ref, want, 0xA5, 0xA5,
                                                   "the reference's values under DAZ on " + data);
                    if (idx_bytes) {
                        pj::test::expect_outputs_match(problem.indices_desc(), got_idx, want_idx, 0xA5, 0xA5,
                                                       "jit indices on " + data);
                        pj::test::expect_outputs_match(problem.indices_desc(), ref_idx, want_idx, 0xA5, 0xA5,
                                                       "the reference's indices under DAZ on " + data);
                    }
                }
            }
        }
    }
    pj::set_num_threads(0);
}

INSTANTIATE_TEST_SUITE_P(Isas, FloatEnvironment, ::testing::ValuesIn(pj::test::jit_isas));

}  // namespace
