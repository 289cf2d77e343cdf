// Named plan shapes, each run through the JIT on both ISAs and in every data type against the reference:
// segments and computed windows, gathered ncx lanes, long looped windows, adaptive windows, and the executor's
// tilings (threads x batch). Unlike the random differential test, every shape here is certain to be hit, and
// every one must be served by generated code (no decline).
#include "casegen/casegen.hpp"
#include "jit/kernel.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

// Problem strings without dt=; each is run in all eight data types.
const std::vector<std::string> shapes = {
    // segment mode, nxc: borders, channel tails, 3-D, dilation, ceil rounding
    "maxpool layout=nxc src=2x19x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1",
    "maxpool layout=nxc src=1x70x5x6x7 k=2x3x2 s=1x2x2 d=2x1x2 pb=1x1x0 pe=0x1x1 round=ceil",
    // nxc rows bound by memory sweep several channel blocks per call (AVX-512 f32: 3 blocks and a tail of 8;
    // AVX2 f32: 12 and 8): windows, empty windows and whole empty rows, and computed windows
    "maxpool layout=nxc src=2x200x7x9 k=2x2 s=2x2 pb=0x1 pe=1x0",
    "maxpool layout=nxc src=1x140x3x3 k=2x2 s=3x3 pb=3x3 pe=3x3 round=ceil",
    "adaptivemaxpool layout=nxc src=1x140x1000 out=600",
    // ncx: stride 1 contiguous lanes, stride 2 and 3 gathered lanes, items longer than one vector, tails
    "maxpool layout=ncx src=2x3x7x133 k=3x3 s=1x1 pb=1x1 pe=1x1",
    "maxpool layout=ncx src=1x5x9x131 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil_torch",
    "maxpool layout=ncx src=1x2x4x50 k=2x4 s=1x3 d=1x2 pb=0x3 pe=0x3",
    // ncx rows of few outputs, the windows' taps as lanes (AVX-512 fast rows): a global pool of less than a
    // vector, adaptive bins that overlap unevenly, 3-D with padding and a stride that would gather, a window of a
    // whole vector (16 taps)
    "maxpool layout=ncx src=2x3x3x3 k=3x3",
    "adaptivemaxpool layout=ncx src=1x3x30x13 out=3x2",
    "maxpool layout=ncx src=1x2x5x3x19 k=2x2x4 s=1x1x5 pb=0x1x2 pe=1x0x2",
    "maxpool layout=ncx src=1x3x301 k=16 s=20 pb=3 pe=3 round=ceil",
    // ncx windows of the whole plane (AVX-512 fast rows read it as one span): 1-D, 3-D, a kernel larger than
    // the input, an adaptive bin of the whole plane, planes of 2 and 3 groups of 64 f32 lanes (2 of 64 f64)
    "maxpool layout=ncx src=2x3x7x7 k=7x7",
    "maxpool layout=ncx src=2x3x37 k=37",
    "maxpool layout=ncx src=1x2x3x4x5 k=3x4x5",
    "maxpool layout=ncx src=1x3x5x6 k=7x8 pb=1x1 pe=1x1",
    "adaptivemaxpool layout=ncx src=1x3x13x13 out=1x1",
    "maxpool layout=ncx src=1x3x10x10 k=10x10 s=10x10 pe=3x3",
    // ncx rows of one item with stride 1 along h keep a ring of row maxima (AVX-512 fast rows without indices):
    // masked borders (SPPF-like), a width stride of 2 (paired lanes) with border rows of fewer taps and ceil
    // rounding, a width dilation
    "maxpool layout=ncx src=2x3x20x20 k=5x5 s=1x1 pb=2x2 pe=2x2",
    "maxpool layout=ncx src=1x2x9x30 k=4x3 s=1x2 pb=1x0 pe=2x1 round=ceil",
    "maxpool layout=ncx src=1x3x12x17 k=3x3 d=1x2 pb=1x2 pe=1x2",
    // rings whose calls are rows ring_row_interval apart: dilation 2 along h (two residues, border rows of 2
    // taps at both ends), a stride equal to the dilation, a stride of 2 under a dilation of 4, 3 residues of
    // different lengths
    "maxpool layout=ncx src=2x3x13x24 k=3x3 d=2x2 pb=2x2 pe=2x2",
    "maxpool layout=ncx src=1x3x15x20 k=3x3 s=2x1 d=2x1 pb=1x1 pe=2x1 round=ceil",
    "maxpool layout=ncx src=1x2x21x19 k=2x3 s=2x1 d=4x1 pb=3x1 pe=0x1",
    "maxpool layout=ncx src=1x2x17x30 k=4x2 d=3x1",
    // channels-last column rings (AVX-512, stride 1 along h, compare-bound; with indices of 8- and 16-bit data):
    // border rows around the ring's calls and a channel tail, k2 windows, a width dilation, empty windows at both
    // ends of the rows
    "maxpool layout=nxc src=2x70x12x9 k=3x3 pb=1x1 pe=1x1",
    "maxpool layout=nxc src=1x40x11x10 k=5x4 pb=2x0 pe=2x3 round=ceil",
    "maxpool layout=nxc src=1x20x9x8 k=2x2",
    "maxpool layout=nxc src=1x33x10x12 k=3x3 d=1x2 pb=1x2 pe=1x2",
    "maxpool layout=nxc src=1x24x9x6 k=4x2 pb=1x3 pe=1x3",
    // a column taller than one ring call (f32: 19 rows a call, bf16: 40)
    "maxpool layout=nxc src=1x64x70x6 k=3x3 pb=1x1 pe=1x1",
    // ncx planes of at most 16 vectors with rows of fewer outputs than a vector (AVX-512: the plane in registers,
    // outputs gathered by permutes across rows): VGG pool5's shape, borders with ceil rounding and a width
    // dilation, adaptive bins that overlap unevenly and bins smaller than a pixel, 3-D with padding, 1-D, a
    // plane of exactly 16 f32 vectors
    "maxpool layout=ncx src=2x3x14x14 k=2x2 s=2x2",
    "maxpool layout=ncx src=1x3x9x11 k=3x3 s=2x2 d=1x2 pb=1x2 pe=2x1 round=ceil",
    "adaptivemaxpool layout=ncx src=2x3x13x13 out=6x6",
    "adaptivemaxpool layout=ncx src=1x2x5x4 out=7x9",
    "maxpool layout=ncx src=1x2x4x6x6 k=2x3x3 s=2x2x2 pb=0x1x1 pe=1x1x1",
    "maxpool layout=ncx src=2x3x37 k=3 s=3",
    "maxpool layout=ncx src=1x2x16x16 k=3x3 s=2x2 pb=1x1 pe=1x1",
    // a long 1-D window (looped taps) in both layouts
    "maxpool layout=ncx src=1x3x260 k=200 s=1",
    "maxpool layout=nxc src=1x21x260 k=37 s=5 pb=20 pe=20",
    // windows far wider than the input: more border windows than segments allow, so windows computed at run
    // time; with dilation and stride (divisions in the kernel) and runs of empty windows at both ends
    "maxpool layout=nxc src=1x17x1 k=300 pb=299 pe=299",
    "maxpool layout=ncx src=1x3x2 k=300 pb=299 pe=299 round=ceil",
    "maxpool layout=nxc src=1x5x7 k=300 s=2 d=3 pb=1000 pe=950 round=ceil",
    "maxpool layout=ncx src=1x2x3x9 k=2x400 s=1x1 d=1x3 pb=0x1400 pe=1x1300",
    // empty windows (pads beyond the kernel) inside the row and whole empty rows
    "maxpool layout=nxc src=1x9x3x3 k=2x2 s=3x3 pb=3x3 pe=3x3 round=ceil",
    "maxpool layout=ncx src=1x4x3x3 k=2x2 s=3x3 pb=3x3 pe=3x3 round=ceil",
    // adaptive: even windows (one segment), uneven (a few), irregular (computed: one row beyond 2^16 outputs),
    // output larger than input
    "adaptivemaxpool layout=nxc src=1x18x28x28 out=7x7",
    "adaptivemaxpool layout=ncx src=2x3x28x28 out=7x7",
    "adaptivemaxpool layout=ncx src=1x2x5x1000 out=3x600",
    "adaptivemaxpool layout=nxc src=1x33x1000 out=600",
    "adaptivemaxpool layout=ncx src=1x1x100003 out=70001",
    "adaptivemaxpool layout=ncx src=1x3x3x4x5 out=5x7x9",
};

const char* const dtypes[] = {"f32", "f64", "f16", "bf16", "s8", "u8", "s32", "s64"};

// Index outputs per op: none, and a few of the index options.
std::vector<std::string> index_variants(const std::string& shape) {
    if (shape.rfind("adaptive", 0) == 0) return {" idx=none", " idx=s32", " idx=s64"};
    return {" idx=none", " idx=s64", " idx=s32 axis=2", " idx=s64 axis=1 nan=ignore", " idx=s32 order=col"};
}

struct Threading {
    int threads;
    std::int64_t batch;  // replaces the shape's batch size
};

std::string with_batch(const std::string& line, std::int64_t batch) {
    const std::size_t at = line.find("src=") + 4;
    const std::size_t x = line.find('x', at);
    return line.substr(0, at) + std::to_string(batch) + line.substr(x);
}

// Runs `run(src, dst, indices)` on src and compares values and indices with the reference, bit for bit. The
// outputs start poisoned (differently from the reference's), so an element the run forgot to write differs.
template <typename Run>
void expect_run_matches_reference(const pj::Problem& p, const std::vector<std::uint8_t>& src, Run run,
                                  const std::string& what) {
    const std::size_t dst_bytes = pj::casegen::byte_size(p.dst_desc());
    const std::size_t index_bytes = p.has_indices ? pj::casegen::byte_size(p.indices_desc()) : 0;
    std::vector<std::uint8_t> got(dst_bytes, 0xA5), want(dst_bytes, 0x5A), got_idx(index_bytes, 0xA5),
        want_idx(index_bytes, 0x5A);
    run(src.data(), got.data(), p.has_indices ? got_idx.data() : nullptr);
    pj::reference::execute(p, src.data(), want.data(), p.has_indices ? want_idx.data() : nullptr);
    EXPECT_EQ(got, want) << "values differ on " << what;
    EXPECT_EQ(got_idx, want_idx) << "indices differ on " << what;
}

void check(const std::string& line, const char* isa, int threads) {
    SCOPED_TRACE(line + " (POOLJIT_MAX_ISA=" + isa + ", threads " + std::to_string(threads) + ")");
    ::setenv("POOLJIT_MAX_ISA", isa, 1);
    pj::set_num_threads(threads);
    const pj::AnyPoolDesc desc = pj::parse_problem(line);
    const pj::Primitive p = pj::create(desc);
    EXPECT_EQ(p.impl_name(), std::string("jit:") + isa);
    // Adversarial data sends most rows to the exact (NaN) code; tie data, without NaN, to the fast code.
    const std::uint64_t seed = std::hash<std::string>{}(line);
    for (const auto& [data_name, src] : {std::pair{"adversarial", pj::casegen::adversarial_data(p.src_desc(), seed)},
                                         std::pair{"ties", pj::casegen::tie_data(p.src_desc(), seed)}})
        expect_run_matches_reference(
            p.problem(), src, [&](const void* s, void* d, void* i) { p.execute(s, d, i); },
            std::string(data_name) + " data");
    ::unsetenv("POOLJIT_MAX_ISA");
    pj::set_num_threads(0);
}

class JitPaths : public ::testing::TestWithParam<std::string> {};

TEST_P(JitPaths, EveryDtypeAndIndexOptionOnBothIsas) {
    const std::string& shape = GetParam();
    for (const char* isa : {"avx512", "avx2"})
        for (const char* dt : dtypes)
            for (const std::string& idx : index_variants(shape)) {
                std::string line = shape;
                line.insert(line.find(' '), std::string(" dt=") + dt);
                check(line + idx, isa, 1);
            }
}

INSTANTIATE_TEST_SUITE_P(Shapes, JitPaths, ::testing::ValuesIn(shapes), [](const auto& shape_info) {
    return "shape" + std::to_string(shape_info.index);
});

// Float values used to build ties, as the bits of a float type, by kind: 0 lowest (-inf), 1 -1, 2 -0, 3 +0, 4 1,
// 5 a quiet NaN.
std::uint64_t special_bits(pj::DType dtype, int kind) {
    switch (dtype) {
        case pj::DType::f32:
            return std::array<std::uint64_t, 6>{0xFF800000u, 0xBF800000u, 0x80000000u, 0u, 0x3F800000u, 0x7FC00000u}[kind];
        case pj::DType::f64:
            return std::array<std::uint64_t, 6>{0xFFF0000000000000ull, 0xBFF0000000000000ull, 0x8000000000000000ull, 0,
                                                0x3FF0000000000000ull, 0x7FF8000000000000ull}[kind];
        case pj::DType::f16: return std::array<std::uint64_t, 6>{0xFC00u, 0xBC00u, 0x8000u, 0u, 0x3C00u, 0x7E00u}[kind];
        case pj::DType::bf16: return std::array<std::uint64_t, 6>{0xFF80u, 0xBF80u, 0x8000u, 0u, 0x3F80u, 0x7FC0u}[kind];
        default: break;
    }
    ADD_FAILURE() << "special_bits: not a float type";
    return 0;
}

// Runs the problem on src under each ISA cap and compares values, and indices when it has them, with the reference.
void expect_reference_on_both_isas(const std::string& line, const std::vector<std::uint8_t>& src) {
    for (const char* isa : {"avx512", "avx2"}) {
        ::setenv("POOLJIT_MAX_ISA", isa, 1);
        const pj::Primitive q = pj::create(pj::parse_problem(line));
        EXPECT_EQ(q.impl_name(), std::string("jit:") + isa);
        expect_run_matches_reference(q.problem(), src, [&](const void* s, void* d, void* i) { q.execute(s, d, i); }, isa);
        ::unsetenv("POOLJIT_MAX_ISA");
    }
}

// Whole-plane items pick the first maximum in scan order by an equality search: planes whose maximum is a
// zero of either sign among -inf, -1, -0 and +0 (the first zero must win, with its own bits), planes of the
// lowest value only, and a single maximum anywhere, in every float type and in planes of one to three groups of
// 64 lanes; without NaN, so the fast code runs. Compared with the reference, values and indices.
TEST(JitWholePlane, FirstMaximumInScanOrderAmongSignedZeros) {
    for (const char* dt : {"f32", "f64", "f16", "bf16"})
        for (const char* plane : {"7x7 k=7x7", "10x10 k=10x10", "13x13 k=13x13"}) {
            const std::string line = std::string("maxpool dt=") + dt + " layout=ncx src=2x96x" + plane + " idx=s64";
            SCOPED_TRACE(line);
            const pj::Primitive p = pj::create(pj::parse_problem(line));
            const pj::TensorDesc& src_desc = p.src_desc();
            const std::size_t elem = pj::casegen::byte_size({src_desc.dtype, src_desc.layout, {1, 1, 1, 1}});
            const std::int64_t planes = src_desc.dims[0] * src_desc.dims[1];
            const std::int64_t plane_elements = src_desc.dims[2] * src_desc.dims[3];
            std::vector<std::uint8_t> src(pj::casegen::byte_size(src_desc));
            std::mt19937_64 rng(planes * 131 + plane_elements);
            for (std::int64_t q = 0; q < planes; ++q) {
                const int pattern = static_cast<int>(q % 3);  // 0: zeros of both signs; 1: lowest only; 2: one maximum
                const std::int64_t peak = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(plane_elements));
                for (std::int64_t i = 0; i < plane_elements; ++i) {
                    const int kind = pattern == 1 ? 0 : pattern == 2 && i == peak ? 4 : static_cast<int>(rng() % 4);
                    const std::uint64_t bits = special_bits(src_desc.dtype, kind);
                    std::memcpy(src.data() + static_cast<std::size_t>(q * plane_elements + i) * elem, &bits, elem);
                }
            }
            expect_reference_on_both_isas(line, src);
        }
}

// Row-maxima rings, with and without indices: planes whose rows mix signed zeros, -1 and the lowest value (ties
// between rows and within rows: the window's first zero in scan order must win, with its own bits and index), a
// few 1s, and a NaN in some rows
// only, so fast rows run with a held ring, NaN rows run the exact code and leave the ring stale, and the next
// fast row rebuilds it. Compared with the reference.
TEST(JitRowRing, NanRowsLeaveTheRingStaleAndTiesKeepScanOrder) {
    pj::set_num_threads(1);  // every interior run of rows in one call: threads would cut it into bands
    for (const char* dt : {"f32", "f64", "bf16"})
        for (const char* window : {"src=2x24x20x20 k=5x5 pb=2x2 pe=2x2", "src=1x24x16x28 k=3x3 pb=1x1 pe=1x1",
                                   "src=1x24x19x28 k=3x3 d=2x2 pb=2x2 pe=2x2", "src=2x24x20x20 k=5x5 pb=2x2 pe=2x2 idx=s64",
                                   "src=1x24x16x28 k=3x3 pb=1x1 pe=1x1 idx=s32 axis=1 nan=ignore"}) {
            const std::string line = std::string("maxpool dt=") + dt + " layout=ncx " + window;
            SCOPED_TRACE(line);
            const pj::Primitive p = pj::create(pj::parse_problem(line));
            EXPECT_EQ(pj::detail::choose_implementation(p.problem(), jit::Isa::avx512)->plan.ring_rows > 0,
                      !p.has_indices() || std::string(dt) != "f64");  // f64's indices take 64-bit lanes
            const pj::TensorDesc& d = p.src_desc();
            const std::size_t elem = pj::casegen::byte_size({d.dtype, d.layout, {1, 1, 1, 1}});
            const std::int64_t planes = d.dims[0] * d.dims[1], rows = d.dims[2], width = d.dims[3];
            std::vector<std::uint8_t> src(pj::casegen::byte_size(d));
            std::mt19937_64 rng(static_cast<std::uint64_t>(planes * rows + width));
            for (std::int64_t q = 0; q < planes; ++q) {
                const std::int64_t nan_row = q % 3 == 0 ? static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows)) : -1;
                for (std::int64_t r = 0; r < rows; ++r)
                    for (std::int64_t w = 0; w < width; ++w) {
                        const std::uint64_t roll = rng() % 64;
                        int kind = roll < 60 ? static_cast<int>(roll % 4) : 4;
                        if (r == nan_row && w == static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(width))) kind = 5;
                        const std::uint64_t bits = special_bits(d.dtype, kind);
                        std::memcpy(src.data() + static_cast<std::size_t>((q * rows + r) * width + w) * elem, &bits, elem);
                    }
            }
            expect_reference_on_both_isas(line, src);
        }
    pj::set_num_threads(0);
}

// Column rings, with and without indices: inputs of signed zeros, -1 and the lowest value (ties everywhere: each
// window's first zero in scan order must win, with its own bits and index) and a few 1s, with a NaN in two channel blocks of the first image, so
// the calls of the other images take the ring and the calls holding a NaN run the row code. Compared with the
// reference.
TEST(JitColumnRing, NanCallsRunTheRowCodeAndTiesKeepScanOrder) {
    pj::set_num_threads(1);  // every interior run of rows in one call: threads would cut it into bands
    for (const char* dt : {"f32", "f64", "bf16"})
        for (const char* window : {"src=2x96x20x20 k=5x5 pb=2x2 pe=2x2", "src=1x80x16x28 k=3x3 pb=1x1 pe=1x1 nan=ignore",
                                   "src=2x96x20x20 k=5x5 pb=2x2 pe=2x2 idx=s64", "src=2x40x16x28 k=3x3 pb=1x1 pe=1x1 idx=s32 axis=1 nan=ignore"}) {
            const std::string line = std::string("maxpool dt=") + dt + " layout=nxc " + window;
            SCOPED_TRACE(line);
            const pj::Primitive p = pj::create(pj::parse_problem(line));
            EXPECT_EQ(pj::detail::choose_implementation(p.problem(), jit::Isa::avx512)->plan.ring_rows > 0,
                      !p.has_indices() || std::string(dt) == "bf16");  // indices: beside narrow data only
            const pj::TensorDesc& d = p.src_desc();
            const std::size_t elem = pj::casegen::byte_size({d.dtype, d.layout, {1, 1, 1, 1}});
            const std::size_t elements = pj::casegen::byte_size(d) / elem;
            std::vector<std::uint8_t> src(pj::casegen::byte_size(d));
            std::mt19937_64 rng(elements);
            for (std::size_t e = 0; e < elements; ++e) {
                const std::uint64_t roll = rng() % 64;
                const std::uint64_t bits = special_bits(d.dtype, roll < 60 ? static_cast<int>(roll % 4) : 4);
                std::memcpy(src.data() + e * elem, &bits, elem);
            }
            // Image 0: a NaN in the last input row of the first channel block (which only the last k - 1 rows of
            // a call's scan reach) and one in the middle row of the channels past 64 (the next block).
            const std::int64_t C = d.dims[1], H = d.dims[2], W = d.dims[3];
            for (const auto& [h, c] : {std::pair{H - 1, std::int64_t{5}}, std::pair{H / 2, C - 3}}) {
                const std::uint64_t bits = special_bits(d.dtype, 5);
                const std::int64_t w = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(W));
                std::memcpy(src.data() + static_cast<std::size_t>((h * W + w) * C + c) * elem, &bits, elem);
            }
            expect_reference_on_both_isas(line, src);
        }
    pj::set_num_threads(0);
}

// Planes in registers: every plane mixes signed zeros, -1 and the lowest value (ties inside each window: its
// first zero in scan order must win, with its own bits) with a few 1s, and every third plane holds one NaN, so
// one call runs planes through the fast gathers and the exact ones in turn (under nan=ignore the NaN's windows
// take the rest of their elements). Compared with the reference, values and indices.
TEST(JitPlanes, NanPlanesRunTheExactGathersAndTiesKeepScanOrder) {
    for (const char* dt : {"f32", "f64", "bf16", "s8"})
        for (const char* window : {"maxpool layout=ncx src=2x24x14x14 k=2x2 s=2x2 idx=s64",
                                   "maxpool layout=ncx src=1x24x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil idx=s32 nan=ignore",
                                   "adaptivemaxpool layout=ncx src=1x24x13x13 out=6x6 idx=s64",
                                   "maxpool layout=ncx src=1x24x7x7 k=3x3 s=2x2 pb=1x1 pe=1x1"}) {
            std::string line = window;
            line.insert(line.find(' '), std::string(" dt=") + dt);
            SCOPED_TRACE(line);
            const pj::Primitive p = pj::create(pj::parse_problem(line));
            const pj::TensorDesc& d = p.src_desc();
            const bool is_float = d.dtype != pj::DType::s8;
            const std::size_t elem = pj::casegen::byte_size({d.dtype, d.layout, {1, 1, 1, 1}});
            const std::int64_t planes = d.dims[0] * d.dims[1], plane = d.dims[2] * d.dims[3];
            std::vector<std::uint8_t> src(pj::casegen::byte_size(d));
            std::mt19937_64 rng(static_cast<std::uint64_t>(planes * plane));
            for (std::int64_t q = 0; q < planes; ++q) {
                const std::int64_t nan_at = q % 3 == 0 ? static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(plane)) : -1;
                for (std::int64_t i = 0; i < plane; ++i) {
                    const std::uint64_t roll = rng() % 64;
                    const int kind = i == nan_at && is_float ? 5 : roll < 60 ? static_cast<int>(roll % 4) : 4;
                    // s8: the lowest value, -1, 0 twice over and 1 (ties of equal values, no signed zero).
                    const std::uint64_t bits = is_float ? special_bits(d.dtype, kind)
                                                        : std::array<std::uint64_t, 5>{0x80, 0xFF, 0, 0, 1}[kind];
                    std::memcpy(src.data() + static_cast<std::size_t>(q * plane + i) * elem, &bits, elem);
                }
            }
            expect_reference_on_both_isas(line, src);
        }
}

// Runs the problem split as the executor splits it for `threads` threads, however small it is, under the ISA
// cap, on adversarial data (most rows to the exact code) and tie data (the fast code); values and indices
// compared with the reference.
void check_split(const std::string& line, jit::Isa isa, int threads) {
    SCOPED_TRACE(line + " (" + std::string(jit::to_string(isa)) + ", split for " + std::to_string(threads) + " threads)");
    const pj::Problem p = pj::create(pj::parse_problem(line)).problem();
    const std::shared_ptr<const pj::detail::Implementation> impl = pj::detail::choose_implementation(p, isa);
    ASSERT_TRUE(impl->kernel);
    const std::uint64_t seed = std::hash<std::string>{}(line);
    for (const auto& [data_name, src] : {std::pair{"adversarial", pj::casegen::adversarial_data(p.src_desc(), seed)},
                                         std::pair{"ties", pj::casegen::tie_data(p.src_desc(), seed)}})
        expect_run_matches_reference(
            p, src, [&](const void* s, void* d, void* i) { pj::execute_problem_split(p, *impl, s, d, i, threads, true); },
            std::string(data_name) + " data");
}

// Channels-last rows of one image in few channel blocks, split along the width into pieces of about equal
// outputs (2 to 28 of them, uneven): borders on both sides, a NaN scan clipped to each piece's windows (k4 and
// k5 at stride 1), dilation, ceil rounding, empty windows at the row's ends and whole empty rows (2-D, rows in
// the padding), channel tails and swept blocks, indices; every data type, both ISAs.
TEST(JitExecutor, RowsSplitAlongTheWidthMatchTheReference) {
    const std::vector<std::string> rows = {
        "maxpool layout=nxc src=1x20x300 k=3 s=2 pb=1 pe=1 idx=s64",
        "maxpool layout=nxc src=1x70x200 k=5 s=1 pb=2 pe=2 nan=ignore idx=s32",
        "maxpool layout=nxc src=1x300x257 k=3 s=2 d=2 round=ceil",
        "maxpool layout=nxc src=1x256x1000 k=3 s=2",
        "maxpool layout=nxc src=1x9x200 k=2 s=3 pb=3 pe=3 round=ceil idx=s64 axis=1",
        "maxpool layout=nxc src=1x16x2x200 k=2x3 s=3x1 pb=2x1 pe=2x1 round=ceil idx=s64",
        "maxpool layout=nxc src=1x8x150 k=4 s=1 pb=1 pe=2 idx=s64",
    };
    for (const std::string& shape : rows) {
        const pj::Problem p = pj::create(pj::parse_problem(shape)).problem();
        EXPECT_TRUE(pj::detail::choose_implementation(p, jit::Isa::avx512)->plan.width_ranges) << shape;
        for (const char* dt : dtypes) {
            std::string line = shape;
            line.insert(line.find(' '), std::string(" dt=") + dt);
            for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2})
                for (const int threads : {2, 3, 7}) check_split(line, isa, threads);
        }
    }
}

// The executor's tilings: whole tiles, rows split because there are few tiles (of one channel block, or of every
// block of an image together), one thread, planes or runs of rows per kernel call; results identical. Problems
// this small run on one thread through the public API (too few bytes to wake a second), so each is also run
// split for the threads as if it were large.
TEST(JitExecutor, ThreadsAndBatchSizesGiveIdenticalResults) {
    const std::vector<std::string> lines = {
        "maxpool dt=f32 layout=nxc src=1x70x33x17 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64",
        "maxpool dt=u8 layout=ncx src=1x5x5x9x21 k=2x3x3 s=1x2x2 idx=s32",
        "adaptivemaxpool dt=bf16 layout=nxc src=1x40x23x29 out=5x6 idx=s64",
        // one output row per plane: several planes per kernel call, channel index bases stepping per plane
        "maxpool dt=f32 layout=ncx src=1x37x5x6 k=5x6 idx=s64 axis=1",
        "maxpool dt=s8 layout=ncx src=1x37x5x6 k=5x6 idx=s32 axis=0",
        // rings in bands of rows: planar rows two apart (dilation 2), channels-last columns (two blocks)
        "maxpool dt=f32 layout=ncx src=1x3x20x24 k=3x3 d=2x2 pb=2x2 pe=2x2",
        "maxpool dt=bf16 layout=nxc src=1x70x20x20 k=5x5 pb=2x2 pe=2x2",
    };
    for (const std::string& line : lines)
        for (const std::int64_t batch : {1, 13})
            for (const int threads : {1, 2, 7}) {
                check(with_batch(line, batch), "avx512", threads);
                if (threads > 1) check_split(with_batch(line, batch), jit::Isa::avx512, threads);
            }
}

// The casegen generator's problems (the differential test's), each split as the executor splits it for 2, 3 or 7
// threads however small it is (bands of rows, rows of every channel block, width pieces, rings' residues), on
// both ISAs: the public API runs problems this small on one thread.
TEST(JitExecutor, GeneratedProblemsSplitForThreadsMatchTheReference) {
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2}) {
        pj::casegen::Generator gen(isa == jit::Isa::avx512 ? 0x5B117001 : 0x5B117002);
        for (int i = 0; i < 1000; ++i) {
            const std::string line = pj::to_string(gen.any());
            check_split(line, isa, std::array{2, 3, 7}[static_cast<std::size_t>(i % 3)]);
            if (HasFailure()) return;
        }
    }
}

// Runs a forced plan through the executor on adversarial data and compares values and indices with the reference.
void expect_forced_plan_matches_reference(const pj::Problem& p, const jit::KernelPlan& plan,
                                          std::initializer_list<std::uint64_t> seeds) {
    pj::detail::Implementation impl;
    impl.plan = plan;
    impl.kernel = jit::compile(impl.plan);
    impl.impl_name = "forced";
    pj::detail::prepare_outer_taps(p, impl);
    for (const std::uint64_t seed : seeds)
        expect_run_matches_reference(
            p, pj::casegen::adversarial_data(p.src_desc(), seed),
            [&](const void* s, void* d, void* i) { pj::execute_problem(p, impl, s, d, i); },
            "seed " + std::to_string(seed));
}

// Window-relative indices serve planes of more than 2^31 elements, which no test can allocate: force that plan
// on small problems (every other fact of the plan unchanged) and compare with the reference.
TEST(JitForcedPlans, WindowRelativeIndicesMatchTheReference) {
    const std::vector<std::string> lines = {
        "maxpool dt=f32 layout=nxc src=2x7x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64 nan=ignore",
        "maxpool dt=u8 layout=ncx src=1x3x5x7x8 k=2x3x3 s=1x2x1 d=2x1x1 pb=0x1x1 pe=1x1x1 idx=s64 axis=1",
        "maxpool dt=f16 layout=nxc src=1x5x20 k=7 s=3 pb=6 pe=6 idx=s32 round=ceil",
        "maxpool dt=bf16 layout=ncx src=1x2x9x8 k=2x2 s=2x2 idx=s32 order=col",
        "adaptivemaxpool dt=s32 layout=nxc src=1x6x13x17 out=4x5 idx=s64",
    };
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2})
        for (const std::string& line : lines) {
            SCOPED_TRACE(line + " on " + jit::to_string(isa));
            pj::Problem p = std::visit([](const auto& d) { return pj::resolve(d); }, pj::parse_problem(line));
            jit::KernelPlan plan = jit::make_plan(p, isa);
            ASSERT_FALSE(plan.index_relative_to_window);  // a small plane does not need it
            plan.index_relative_to_window = true;
            expect_forced_plan_matches_reference(p, plan, {7});
        }
}

// Half vectors of 32-bit compare lanes beside 64-bit index lanes serve windows that reach 2^31 index units in
// planes of more than 2^31 elements: the same planner choice, forced on small problems, against the reference.
TEST(JitForcedPlans, WideIndexLanesBesideHalfVectorsMatchTheReference) {
    const std::vector<std::string> lines = {
        "maxpool dt=f32 layout=nxc src=2x37x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64 nan=ignore",
        "maxpool dt=u8 layout=ncx src=1x3x5x7x19 k=2x3x3 s=1x2x1 d=2x1x1 pb=0x1x1 pe=1x1x1 idx=s64 axis=1",
        "maxpool dt=s8 layout=ncx src=1x2x9x40 k=2x3 s=1x2 pb=1x1 pe=1x1 idx=s32",
        "maxpool dt=f16 layout=nxc src=1x21x20 k=7 s=3 pb=6 pe=6 idx=s32 round=ceil",
        "maxpool dt=bf16 layout=ncx src=1x2x9x21 k=2x2 s=1x1 pb=1x1 pe=0x0 idx=s64 order=col",
        "maxpool dt=s32 layout=ncx src=1x2x300 k=3 s=3 idx=s64",
        "adaptivemaxpool dt=f32 layout=nxc src=1x19x13x17 out=4x5 idx=s64",
    };
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2})
        for (const std::string& line : lines) {
            SCOPED_TRACE(line + " on " + jit::to_string(isa));
            pj::Problem p = std::visit([](const auto& d) { return pj::resolve(d); }, pj::parse_problem(line));
            const jit::KernelPlan plan = jit::make_plan(p, isa, jit::PlanOptions{.wide_index_lanes = true});
            ASSERT_TRUE(plan.index_lanes_64);
            ASSERT_EQ(plan.lanes, isa == jit::Isa::avx512 ? 8 : 4);
            expect_forced_plan_matches_reference(p, plan, {7, 8, 9});
        }
}

}  // namespace
