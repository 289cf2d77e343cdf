// Flat planes (planar u8/s8/s32/f32/bf16/f16 2-D planes whose outputs sit at their inputs' positions, jit/plan/plan_flat.cpp and
// jit/emit/emit_flat_planes.cpp): what the planner takes and declines, and the code against the reference on
// each ISA the CPU has (skipped by name otherwise).
#include "jit/plan/strategies.hpp"
#include "support/cpu_isas.hpp"
#include "support/plan_util.hpp"
#include "support/tie_data.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using pj::test::expect_reference_on;
using pooljit::testing::plan_of;

// The flat_planes step's line of the plan's choices (empty where it said nothing).
std::string flat_choice(const jit::KernelPlan& plan) {
    for (const std::string& line : plan.choices)
        if (line.rfind("flat_planes:", 0) == 0) return line;
    return {};
}

// The plan's shape, worked by hand: SPPF's 20x20 bytes are 12 whole ymm and one ending at byte 400 (offset 368);
// the vectors' offsets along the 20-byte rows are 0, 12, 4, 16, 8 and again (5 phases), and the last vector's
// 368 % 20 = 8 is one of them. 4x4 bytes take one xmm. Both ISAs take 32-byte vectors.
TEST(PlanFacts, FlatPlanesSpanEachPlaneInVectorsAcrossItsRows) {
    for (const jit::Isa isa : {jit::Isa::avx2, jit::Isa::avx512}) {
        SCOPED_TRACE(jit::to_string(isa));
        const jit::KernelPlan sppf = plan_of("maxpool dt=u8 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", isa);
        ASSERT_TRUE(sppf.flat_planes.enabled());
        EXPECT_EQ(sppf.strategy, jit::Strategy::ncx_planes);
        EXPECT_EQ(sppf.flat_planes.vector_bytes, 32);
        EXPECT_EQ(sppf.flat_planes.vectors(), 13);
        EXPECT_EQ(sppf.flat_planes.buffer_elements(), 400 + 4 * 20);
        EXPECT_EQ(sppf.compare, jit::CompareType::u8);
        EXPECT_EQ(jit::strategy_names(sppf), "flat_planes");
        EXPECT_NE(flat_choice(sppf).find("5 phases of width masks"), std::string::npos) << flat_choice(sppf);
        const jit::KernelPlan inception = plan_of("maxpool dt=s8 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", isa);
        EXPECT_EQ(inception.flat_planes.vectors(), 25);  // 784 bytes: 24 whole and one overlapping
        EXPECT_EQ(inception.compare, jit::CompareType::s8);
        EXPECT_EQ(plan_of("maxpool dt=u8 layout=ncx src=1x3x4x4 k=3x3 pb=1x1 pe=1x1", isa).flat_planes.vector_bytes, 16);
        // Uneven pads keep the outputs at their inputs; so do same_upper pads (k4: 1 before, 2 after).
        EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=2x5x7x9 k=4x3 pb=1x2 pe=2x0", isa).flat_planes.enabled());
        EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=1x3x10x10 k=4x4 pad=same_upper", isa).flat_planes.enabled());
        // Channel planes apart (a slice of a wider tensor): each plane is still one span.
        EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=2x3x6x6 k=3x3 pb=1x1 pe=1x1 src_strides=432x72x6x1", isa)
                        .flat_planes.enabled());
        // f32 and s32: 8 lanes of a ymm; SPPF's 400 elements are 50 vectors, Inception's 784 are 98; SPP's 1600
        // are 200 (in a loop of whole periods of 5 vectors: rows of 40 elements).
        const jit::KernelPlan sppf_f32 = plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", isa);
        ASSERT_TRUE(sppf_f32.flat_planes.enabled());
        EXPECT_EQ(sppf_f32.flat_planes.lanes, 8);
        EXPECT_EQ(sppf_f32.flat_planes.vectors(), 50);
        EXPECT_EQ(sppf_f32.lanes, 8);
        EXPECT_NE(flat_choice(sppf_f32).find("a NaN watch and an exact copy"), std::string::npos);
        const jit::KernelPlan ignore = plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2 nan=ignore", isa);
        EXPECT_EQ(flat_choice(ignore).find("NaN watch"), std::string::npos);  // ignore needs no second copy
        // The plan says what the code does: no scan pass; a watch under propagate only.
        EXPECT_FALSE(sppf_f32.scan_rows_for_nan);
        EXPECT_TRUE(sppf_f32.watch_rows_for_nan);
        EXPECT_FALSE(ignore.scan_rows_for_nan);
        EXPECT_FALSE(ignore.watch_rows_for_nan);
        EXPECT_EQ(plan_of("maxpool dt=s32 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", isa).flat_planes.vectors(), 98);
        EXPECT_EQ(plan_of("maxpool dt=f32 layout=ncx src=1x256x40x40 k=9x9 pb=4x4 pe=4x4", isa).flat_planes.vectors(), 200);
        // Dilated windows whose pads are the window's extent - 1: a 3x3 by 2 spans 5x5, its buffer 4 rows more
        // than the plane (2 before, 2 after); the width taps -2, 0, 2 need masks at 7 phases of 56-byte rows
        // (56 / gcd(56, 32)) for the 2 taps off the output's column.
        const jit::KernelPlan dilated = plan_of("maxpool dt=u8 layout=ncx src=1x64x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2", isa);
        ASSERT_TRUE(dilated.flat_planes.enabled());
        EXPECT_EQ(dilated.flat_planes.dilation_w, 2);
        EXPECT_EQ(dilated.flat_planes.dilation_h, 2);
        EXPECT_EQ(dilated.flat_planes.extent_h(), 5);
        EXPECT_EQ(dilated.flat_planes.buffer_elements(), 56 * 56 + 4 * 56);
        EXPECT_NE(flat_choice(dilated).find("7 phases of width masks"), std::string::npos) << flat_choice(dilated);
        // Without a NaN watch, pads need not put a width tap at the output's column (taps -1 and 2 here).
        EXPECT_TRUE(plan_of("maxpool dt=f32 layout=ncx src=1x3x11x23 k=3x2 d=2x3 pb=1x1 pe=3x2 nan=ignore", isa)
                        .flat_planes.enabled());
        EXPECT_TRUE(plan_of("maxpool dt=u8 layout=ncx src=1x3x11x23 k=3x2 d=2x3 pb=1x1 pe=3x2", isa).flat_planes.enabled());
        // bf16 widens to f32 lanes: 8 a ymm, SPPF's 400 elements in 50 vectors, a NaN watch under propagate.
        const jit::KernelPlan sppf_bf16 = plan_of("maxpool dt=bf16 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", isa);
        ASSERT_TRUE(sppf_bf16.flat_planes.enabled());
        EXPECT_EQ(sppf_bf16.flat_planes.lanes, 8);
        EXPECT_EQ(sppf_bf16.flat_planes.vectors(), 50);
        EXPECT_TRUE(sppf_bf16.watch_rows_for_nan);
        EXPECT_FALSE(sppf_bf16.widened_pairs);
        EXPECT_EQ(jit::strategy_names(sppf_bf16), "flat_planes");
        // bf16 windows of 5 width taps or more widen each plane once; 3 taps, and f16, widen each tap.
        EXPECT_TRUE(sppf_bf16.flat_planes.converts_plane);
        EXPECT_FALSE(plan_of("maxpool dt=bf16 layout=ncx src=1x192x28x28 k=3x3 pb=1x1 pe=1x1", isa).flat_planes.converts_plane);
        EXPECT_FALSE(plan_of("maxpool dt=f16 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", isa).flat_planes.converts_plane);
        EXPECT_FALSE(plan_of("maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", isa).flat_planes.converts_plane);
        EXPECT_EQ(plan_of("maxpool dt=f16 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", isa).flat_planes.vectors(), 50);
        // Over a row pitch of 36 the plane spans 19 x 36 + 20 = 704 elements; the buffer holds 4 rows of 36 more.
        // Each row takes 3 vectors of 8 (at columns 0, 8 and 12: 3 phases) in both passes. Rows of 20 bytes
        // stored a row at a time take xmm.
        const jit::KernelPlan pitched = plan_of(
            "maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2 src_strides=368640x720x36x1 "
            "dst_strides=204800x400x20x1", isa);
        ASSERT_TRUE(pitched.flat_planes.enabled());
        EXPECT_TRUE(pitched.flat_planes.pitched());
        EXPECT_EQ(pitched.flat_planes.pitch, 36);
        EXPECT_EQ(pitched.flat_planes.out_pitch, 20);
        EXPECT_EQ(pitched.flat_planes.vectors(), 88);
        EXPECT_EQ(pitched.flat_planes.row_vectors(), 3);
        EXPECT_EQ(pitched.flat_planes.buffer_elements(), 704 + 4 * 36);
        EXPECT_NE(flat_choice(pitched).find("3 vectors of 32 bytes a row over row pitches of 36 and 20, 3 phases of width masks"),
                  std::string::npos) << flat_choice(pitched);
        EXPECT_EQ(plan_of("maxpool dt=u8 layout=ncx src=1x3x20x20 k=3x3 pb=1x1 pe=1x1 dst_strides=1260x420x21x1",
                          jit::Isa::avx2).flat_planes.vector_bytes, 16);
    }
    // Declined: indices, a stride of 2, outputs not at their inputs (pads of k - 2), a width tap 16 bytes from its
    // output, a buffer of width maxima past 16 KiB (130x130 bytes), masks past 8 KiB (rows of 61 bytes: 61 phases
    // of 14 taps), source rows that overlap (a pitch of 10 under rows of 20), rows apart narrower than a vector
    // (6 f32 over a pitch of 12), an output row step of 2^31 bytes (a 32-bit immediate), f64 and s64, an f32 tap 8 elements from its output, an f32 plane of fewer
    // elements than a vector, channels last; dilated: pads short of the extent, f32 under propagate with no width
    // tap at the output's column (its NaN watch), a tap 16 bytes before its output; the choice planes=off.
    for (const char* line : {"maxpool dt=u8 layout=ncx src=1x3x20x20 k=5x5 pb=2x2 pe=2x2 idx=s32",
                             "maxpool dt=u8 layout=ncx src=1x3x20x20 k=3x3 s=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=ncx src=1x3x20x20 k=3x3 pb=1x1 pe=0x0",
                             "maxpool dt=u8 layout=ncx src=1x3x4x40 k=1x17 pb=0x16 pe=0x0",
                             "maxpool dt=u8 layout=ncx src=1x3x130x130 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=ncx src=1x3x61x61 k=15x15 pb=7x7 pe=7x7",
                             "maxpool dt=u8 layout=ncx src=1x3x20x20 k=3x3 pb=1x1 pe=1x1 src_strides=1200x400x10x1",
                             "maxpool dt=f32 layout=ncx src=1x3x6x6 k=3x3 pb=1x1 pe=1x1 src_strides=216x72x12x1",
                             "maxpool dt=u8 layout=ncx src=1x1x2x32 k=3x3 pb=1x1 pe=1x1 dst_strides=4294967296x4294967296x2147483648x1",
                             "maxpool dt=f64 layout=ncx src=1x3x20x20 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=s64 layout=ncx src=1x3x20x20 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=bf16 layout=ncx src=1x3x4x40 k=1x9 pb=0x8 pe=0x0",
                             "maxpool dt=f32 layout=ncx src=1x3x4x40 k=1x9 pb=0x8 pe=0x0",
                             "maxpool dt=f32 layout=ncx src=1x3x2x3 k=1x3 pb=0x1 pe=0x1",
                             "maxpool dt=u8 layout=nxc src=1x3x20x20 k=3x3 pb=1x1 pe=1x1",
                             "maxpool dt=u8 layout=ncx src=1x3x20x20 k=3x3 d=2x2 pb=1x1 pe=1x1",
                             "maxpool dt=f32 layout=ncx src=1x3x11x23 k=3x2 d=2x3 pb=1x1 pe=3x2",
                             "maxpool dt=u8 layout=ncx src=1x3x20x40 k=3x3 d=1x8 pb=1x16 pe=1x0"}) {
        SCOPED_TRACE(line);
        EXPECT_FALSE(plan_of(line, jit::Isa::avx2).flat_planes.enabled());
    }
    jit::PlanOptions rows;
    rows.choice.planes = pj::PlanChoice::Switch::off;
    const jit::KernelPlan off = plan_of("maxpool dt=u8 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2", jit::Isa::avx2, rows);
    EXPECT_FALSE(off.flat_planes.enabled());
    EXPECT_TRUE(off.separable.enabled());  // byte rows
    // The choice nan=scan asks for a scan pass, which flat planes do not make: the row code takes it. nan=watch is
    // flat planes' own rule under propagate.
    jit::PlanOptions scan, watch;
    scan.choice.nan = pj::PlanChoice::Nan::scan;
    watch.choice.nan = pj::PlanChoice::Nan::watch;
    const char* const sppf_f32 = "maxpool dt=f32 layout=ncx src=1x512x20x20 k=5x5 pb=2x2 pe=2x2";
    const jit::KernelPlan scanned = plan_of(sppf_f32, jit::Isa::avx2, scan);
    EXPECT_FALSE(scanned.flat_planes.enabled());
    EXPECT_TRUE(scanned.scan_rows_for_nan);
    EXPECT_TRUE(plan_of(sppf_f32, jit::Isa::avx2, watch).flat_planes.enabled());
}

class JitIsa : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    jit::Isa isa() const { return GetParam(); }
};

// Integer ties (mostly the lowest value, a few small values) and the lowest value everywhere (the masked taps
// and the buffer's empty rows hold it too), on 1 and 2 threads (calls of fewer planes): SPPF's and SPP's planes
// (the last vector overlapping), Inception's in s8, a plane of one 16-byte vector, width taps 15 bytes before
// and after their outputs (the plane's first and last vectors shifted), uneven pads, planes of 98 vectors, and
// an output whose channel planes lie apart (the gaps keep their poison); s32 taps 7 elements away (permuted);
// dilated windows (3x3 by 2 in each integer type, taps 5 apart reaching 15 bytes before and after, taps 3 apart
// with none at the output's column, a height dilation of 3).
TEST_P(JitIsa, FlatPlanesMatchTheReferenceOnTiesAndTheLowestValue) {
    for (const int threads : {1, 2}) {
        pj::set_num_threads(threads);
        for (const char* line : {"maxpool dt=u8 layout=ncx src=2x7x20x20 k=5x5 pb=2x2 pe=2x2",
                                 "maxpool dt=s8 layout=ncx src=1x5x40x40 k=9x9 pb=4x4 pe=4x4",
                                 "maxpool dt=s8 layout=ncx src=2x6x28x28 k=3x3 pb=1x1 pe=1x1",
                                 "maxpool dt=u8 layout=ncx src=1x9x4x4 k=3x3 pb=1x1 pe=1x1",
                                 "maxpool dt=s8 layout=ncx src=1x4x3x20 k=3x16 pb=1x15 pe=1x0",
                                 "maxpool dt=u8 layout=ncx src=1x4x3x20 k=2x16 pb=0x0 pe=1x15",
                                 "maxpool dt=s8 layout=ncx src=2x5x7x9 k=4x3 pb=1x2 pe=2x0",
                                 "maxpool dt=u8 layout=ncx src=1x3x56x56 k=3x3 pb=1x1 pe=1x1",
                                 "maxpool dt=u8 layout=ncx src=2x3x10x12 k=3x5 pb=1x2 pe=1x2 dst_strides=450x150x12x1",
                                 "maxpool dt=s32 layout=ncx src=1x4x3x20 k=2x8 pb=1x7 pe=0x0",
                                 "maxpool dt=s32 layout=ncx src=2x3x20x20 k=5x5 pb=2x2 pe=2x2",
                                 "maxpool dt=u8 layout=ncx src=1x3x112x112 k=3x3 pb=1x1 pe=1x1",
                                 "maxpool dt=s8 layout=ncx src=2x3x50x70 k=3x7 pb=1x3 pe=1x3",
                                 "maxpool dt=s32 layout=ncx src=1x3x45x33 k=5x3 pb=3x1 pe=1x1",
                                 "maxpool dt=u8 layout=ncx src=2x5x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2",
                                 "maxpool dt=s8 layout=ncx src=1x3x13x24 k=3x3 d=2x2 pb=2x2 pe=2x2",
                                 "maxpool dt=s32 layout=ncx src=1x3x21x19 k=3x3 d=2x2 pb=2x2 pe=2x2",
                                 "maxpool dt=u8 layout=ncx src=1x3x9x40 k=2x4 d=1x5 pb=0x15 pe=1x0",
                                 "maxpool dt=s8 layout=ncx src=1x3x9x40 k=2x4 d=1x5 pb=1x0 pe=0x15",
                                 "maxpool dt=s32 layout=ncx src=1x3x11x23 k=3x2 d=2x3 pb=1x1 pe=3x2",
                                 "maxpool dt=u8 layout=ncx src=1x3x21x30 k=3x3 d=3x1 pb=3x1 pe=3x1"}) {
            SCOPED_TRACE(line + std::string(" on ") + std::to_string(threads) + " threads");
            const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
            ASSERT_TRUE(plan_of(line, isa()).flat_planes.enabled());
            const pj::TensorDesc& d = p.src_desc();
            std::mt19937_64 rng(3);
            expect_reference_on(isa(), line, pj::test::integer_ties(d, rng));
            std::vector<std::uint8_t> lowest(pj::casegen::byte_size(d), d.dtype == pj::DType::s8 ? 0x80 : 0x00);
            if (d.dtype == pj::DType::s32)
                for (std::size_t e = 0; e < lowest.size(); e += 4) lowest[e + 3] = 0x80;  // INT32_MIN
            expect_reference_on(isa(), line, lowest);
        }
    }
    pj::set_num_threads(0);
}

// f32, bf16 and f16 (each widened as it loads or, bf16 windows of 5 width taps or more, a plane at a time;
// narrowed as it stores; f16's exact copy keeps a NaN's bits) ties (signed zeros, -1, -inf) with a NaN in some
// planes, under both NaN rules: under propagate a plane with a NaN runs the exact copy (each window's first NaN, its
// bits kept: quiet payloads of both signs and a signaling one), the others the fast one; under ignore the fast
// code skips NaN (a window of NaN only is empty: -inf). Planes of only NaN and of only -inf, too.
TEST_P(JitIsa, FlatPlanesOfFloatsKeepTheFirstMaximumAndTheNanRules) {
    for (const char* dtype : {"f32", "bf16", "f16"})
        for (const char* nan : {"propagate", "ignore"})
            for (const char* shape : {"src=2x6x20x20 k=5x5 pb=2x2 pe=2x2", "src=1x5x28x28 k=3x3 pb=1x1 pe=1x1",
                                      "src=1x3x40x40 k=9x9 pb=4x4 pe=4x4", "src=1x3x56x56 k=3x3 pb=1x1 pe=1x1",
                                      "src=1x4x3x20 k=3x8 pb=1x0 pe=1x7", "src=1x3x9x11 k=4x3 pb=1x1 pe=2x1",
                                      "src=1x3x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2", "src=1x3x21x19 k=2x3 d=3x3 pb=0x3 pe=3x3"}) {
                const std::string line = std::string("maxpool dt=") + dtype + " layout=ncx " + shape + " nan=" + nan;
                SCOPED_TRACE(line);
                ASSERT_TRUE(plan_of(line, isa()).flat_planes.enabled());
                const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
                const pj::TensorDesc& d = p.src_desc();
                ASSERT_GE(d.dims[1], 3);  // planes 0 to 2 of image 0 are written below
                const std::int64_t plane = d.dims[2] * d.dims[3];
                const bool bf16 = d.dtype == pj::DType::bf16, f16 = d.dtype == pj::DType::f16;
                const std::size_t bytes = bf16 || f16 ? 2 : 4;
                std::mt19937_64 rng(17);
                std::vector<std::uint8_t> src = pj::test::tie_input(d, rng);
                // An f32 bit pattern below, or the bf16 one of its top 16 bits, or f16's of the same kind.
                const auto put = [&](std::int64_t element, std::uint32_t bits) {
                    std::uint32_t value = bf16 ? bits >> 16 : bits;
                    if (f16) {
                        switch (bits) {
                            case 0x7FC00000u: value = 0x7E00; break;  // quiet NaN
                            case 0xFF800000u: value = 0xFC00; break;  // -inf
                            case 0xFFC10000u: value = 0xFE01; break;  // payloads of both signs
                            case 0x7FC20000u: value = 0x7E02; break;
                            default: value = 0x7C01; break;           // signaling
                        }
                    }
                    std::memcpy(src.data() + static_cast<std::size_t>(element) * bytes, &value, bytes);
                };
                const auto somewhere = [&](std::int64_t in_plane) {
                    return in_plane * plane + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(plane));
                };
                // Image 0: NaNs (payloads of both signs, a signaling one) in plane 1; plane 2 all NaN, plane 0 all -inf.
                for (std::int64_t e = 0; e < plane; ++e) {
                    put(2 * plane + e, 0x7FC00000u);
                    put(e, 0xFF800000u);
                }
                put(somewhere(1), 0xFFC10000u);
                put(somewhere(1), 0x7FC20000u);
                put(somewhere(1), 0x7F810000u);
                expect_reference_on(isa(), line, src);
                // Ties only: every plane takes the fast code (+0 beside -0: the first wins).
                expect_reference_on(isa(), line, pj::test::tie_input(d, rng));
            }
}

// Poisons every element of a view's extent that is not an element of the view (a row pitch's gaps, the channel
// planes' gaps): NaN for floats, the highest value for integers, so that a gap read into a result differs.
void poison_gaps(const pj::TensorDesc& d, std::vector<std::uint8_t>& data) {
    const std::vector<std::int64_t> strides = pj::strides_of(d);
    const std::size_t size = pj::size_of(d.dtype);
    std::vector<bool> element(data.size() / size, false);
    for (std::int64_t n = 0; n < d.dims[0]; ++n)
        for (std::int64_t c = 0; c < d.dims[1]; ++c)
            for (std::int64_t h = 0; h < d.dims[2]; ++h)
                for (std::int64_t w = 0; w < d.dims[3]; ++w)
                    element[static_cast<std::size_t>(n * strides[0] + c * strides[1] + h * strides[2] + w * strides[3])] = true;
    std::uint64_t poison = 0;
    switch (d.dtype) {
        case pj::DType::f32: poison = 0x7FC00001u; break;
        case pj::DType::bf16: poison = 0x7FC1u; break;
        case pj::DType::f16: poison = 0x7E01u; break;
        case pj::DType::u8: poison = 0xFFu; break;
        case pj::DType::s8: poison = 0x7Fu; break;
        default: poison = 0x7FFFFFFFu; break;  // s32
    }
    for (std::size_t e = 0; e < element.size(); ++e)
        if (!element[e]) std::memcpy(data.data() + e * size, &poison, size);
}

// Views whose rows lie apart (a row pitch) in the source, the output or both, their channel planes apart too:
// each plane one span across its rows' gaps, the output stored a row at a time. Gaps narrower and wider than a
// vector, rows of one vector, widths that leave the last vector of a row overlapping, both NaN rules, every data
// type flat planes take; on tie data, adversarial data, and either with the source's gaps poisoned (NaN, the
// highest value): nothing of a gap reaches an output, and the output's gaps keep their poison.
TEST_P(JitIsa, FlatPlanesOverARowPitchMatchTheReference) {
    const char* const shapes[] = {
        "src=2x5x20x20 k=5x5 pb=2x2 pe=2x2 src_strides=3600x720x36x1 dst_strides=3600x720x36x1",
        "src=1x4x28x28 k=3x3 pb=1x1 pe=1x1 src_strides=3612x903x29x1",
        "src=1x4x28x28 k=3x3 pb=1x1 pe=1x1 dst_strides=6272x1568x56x1",
        "src=1x3x16x16 k=3x3 pb=1x1 pe=1x1 src_strides=1536x512x32x1 dst_strides=1248x416x26x1",
        "src=1x3x40x40 k=9x9 pb=4x4 pe=4x4 src_strides=6720x2240x56x1 dst_strides=5040x1680x42x1",
        "src=1x3x13x24 k=3x3 d=2x2 pb=2x2 pe=2x2 src_strides=1170x390x30x1 dst_strides=1170x390x30x1",
        "src=2x3x9x33 k=4x3 pb=1x1 pe=2x1 src_strides=1200x400x40x1 dst_strides=1200x400x40x1",
    };
    for (const char* dtype : {"u8", "s8", "s32", "f32", "bf16", "f16"})
        for (const char* nan : {"propagate", "ignore"})
            for (const char* shape : shapes) {
                const std::string line = std::string("maxpool dt=") + dtype + " layout=ncx " + shape + " nan=" + nan;
                SCOPED_TRACE(line);
                const jit::KernelPlan plan = plan_of(line, isa());
                const bool bytes = std::string(dtype) == "u8" || std::string(dtype) == "s8";
                // Bytes on a core with byte permutes take byte bands first.
                if (!bytes || !plan.byte_bands.enabled()) {
                    ASSERT_TRUE(plan.flat_planes.enabled());
                    EXPECT_TRUE(plan.flat_planes.pitched());
                }
                const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
                const pj::TensorDesc& d = p.src_desc();
                std::mt19937_64 rng(29);
                std::vector<std::uint8_t> ties = bytes || d.dtype == pj::DType::s32 ? pj::test::integer_ties(d, rng)
                                                                                   : pj::test::tie_input(d, rng);
                for (std::vector<std::uint8_t> src : {ties, pj::casegen::adversarial_data(d, 7)}) {
                    expect_reference_on(isa(), line, src);
                    poison_gaps(d, src);
                    expect_reference_on(isa(), line, src);
                }
            }
}

INSTANTIATE_TEST_SUITE_P(Isas, JitIsa, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const ::testing::TestParamInfo<jit::Isa>& isa_info) { return std::string(jit::to_string(isa_info.param)); });

}  // namespace
