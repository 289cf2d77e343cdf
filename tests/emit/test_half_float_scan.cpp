// Half floats in the row code. The NaN scan of planar bf16 and f16 rows (jit/emit/emit_nan_scan.cpp): on traits
// without opmasks the plan has it test the elements as stored (magnitude bits above the infinity's) instead of
// summing widened values. A NaN it missed would leave its row to the fast code, which does not propagate it; a NaN
// it saw sends the row to the exact code. Each row below holds one NaN at a time, of each kind and at each kind of
// place, beside the infinities of both signs (no NaN, but a sum of them is one), and runs against the reference on
// each ISA the CPU has. Then f16 fast rows, which store each f32 maximum's f16 bits back, over every finite f16.
#include "support/cpu_isas.hpp"
#include "support/isa_cap.hpp"
#include "support/run_compare.hpp"
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

using pooljit::testing::plan_of;

// Planar bf16/f16 rows that scan test their elements as stored on AVX2, in whole steps of 16 or 32 bytes; AVX-512
// (opmasks), channels last and f32 keep the widened sums, as do rows shorter than a step.
TEST(PlanFacts, HalfFloatScansTestTheElementsAsStoredWithoutOpmasks) {
    jit::PlanOptions scan;
    scan.choice.nan = pj::PlanChoice::Nan::scan;
    const auto as_stored = [&](const std::string& line, jit::Isa isa) {
        const jit::KernelPlan plan = plan_of(line, isa, scan);
        EXPECT_TRUE(plan.scan_rows_for_nan) << line;
        return plan.scan_half_floats_as_stored;
    };
    EXPECT_TRUE(as_stored("maxpool dt=bf16 layout=ncx src=1x64x360x480 k=2x2 s=2x2", jit::Isa::avx2));
    EXPECT_TRUE(as_stored("maxpool dt=f16 layout=ncx src=1x3x203 k=3 s=2 pb=1 pe=1", jit::Isa::avx2));
    EXPECT_FALSE(as_stored("maxpool dt=bf16 layout=ncx src=1x64x360x480 k=2x2 s=2x2", jit::Isa::avx512));
    EXPECT_FALSE(as_stored("maxpool dt=f32 layout=ncx src=1x64x360x480 k=2x2 s=2x2", jit::Isa::avx2));
    EXPECT_FALSE(as_stored("maxpool dt=bf16 layout=nxc src=1x64x56x56 k=3x3 s=2x2", jit::Isa::avx2));
    EXPECT_FALSE(as_stored("maxpool dt=f16 layout=ncx src=1x3x6x5 k=2x2 s=2x2", jit::Isa::avx2));
}

// f16 planar rows convert into separable rows' f32 buffers and back at the store, as their fast rows do; with
// indices they keep the row code (the index buffers do not convert f16).
TEST(PlanFacts, F16PlanarRowsTakeSeparableRowsWithoutIndices) {
    const std::string stem = "maxpool dt=f16 layout=ncx src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1";
    for (const jit::Isa isa : {jit::Isa::avx512, jit::Isa::avx2}) {
        EXPECT_TRUE(plan_of(stem, isa).separable.enabled()) << jit::to_string(isa);
        EXPECT_FALSE(plan_of(stem + " idx=s32", isa).separable.enabled()) << jit::to_string(isa);
    }
}

class JitIsa : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    jit::Isa isa() const { return GetParam(); }
};

// Rows that scan (SegNet's plane, which the rules scan, and under the choice nan=scan k2 s2, the stem's k3 s2 p1, a
// 1-D row whose last step reads back from its end, rows of whole 32-byte steps, and rows of 11 elements in steps of
// 16 bytes, the last read back), in bf16 and
// f16: a quiet NaN of either sign, a signaling one and one of the smallest payload, in an even and an odd
// element, at the row's start, its middle and its end; then +inf and -inf in rows without a NaN.
TEST_P(JitIsa, PlanarHalfFloatRowsSeeEachNanAsStored) {
    for (const char* dtype : {"bf16", "f16"}) {
        const bool bf16 = std::string(dtype) == "bf16";
        const std::vector<std::uint16_t> nans = bf16 ? std::vector<std::uint16_t>{0x7FC0, 0xFFC1, 0x7F81, 0xFF81}
                                                     : std::vector<std::uint16_t>{0x7E00, 0xFE01, 0x7C01, 0xFC01};
        const std::uint16_t plus_inf = bf16 ? 0x7F80 : 0x7C00, minus_inf = bf16 ? 0xFF80 : 0xFC00;
        for (const char* shape : {"src=1x1x360x480 k=2x2 s=2x2", "src=1x3x6x100 k=2x2 s=2x2", "src=1x2x9x37 k=3x3 s=2x2 pb=1x1 pe=1x1",
                                  "src=1x3x203 k=3 s=2 pb=1 pe=1", "src=1x2x4x64 k=2x2 s=2x2", "src=1x2x4x40 k=2x3 s=2x2 pb=0x1 pe=0x1",
                                  "src=1x5x14x11 k=3x5 s=2x3 pb=0x1 pe=2x2"}) {
            for (const char* nan_rule : {"propagate", "ignore"}) {
                const std::string line = std::string("maxpool dt=") + dtype + " layout=ncx " + shape + " nan=" + nan_rule;
                SCOPED_TRACE(line);
                // The rules scan SegNet's plane; the smaller ones scan by the choice.
                pj::PlanChoice choice = pj::test::choice_for(isa());
                if (std::string(shape).find("360x480") == std::string::npos) choice.nan = pj::PlanChoice::Nan::scan;
                choice.planes = pj::PlanChoice::Switch::off;  // AVX-512 would hold the 14x11 plane in registers
                jit::PlanOptions options;
                options.choice = choice;
                const jit::KernelPlan plan = plan_of(line, isa(), options);
                ASSERT_EQ(plan.strategy, jit::Strategy::ncx_width);
                ASSERT_TRUE(plan.scan_rows_for_nan);
                if (isa() == jit::Isa::avx2) {
                    ASSERT_TRUE(plan.scan_half_floats_as_stored);
                    // The last shape scans in steps of one vector: 16 bytes, in xmm.
                    if (std::string(shape).find("14x11") != std::string::npos) {
                        ASSERT_EQ(plan.vectors_per_block * plan.lanes * 2, 16);
                    }
                }
                const pj::test::IsaCap cap(jit::to_string(isa()));
                const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
                ASSERT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa()));
                const auto expect_reference = [&](const std::vector<std::uint8_t>& src) {
                    pj::test::expect_run_matches_reference(p.problem(), src, [&](const void* s, void* d, void* i) { p.execute(s, d, i); },
                                                           jit::to_string(isa()));
                };
                const pj::TensorDesc& d = p.src_desc();
                const std::int64_t width = d.dims.back(), rows = static_cast<std::int64_t>(pj::casegen::byte_size(d) / 2) / width;
                std::mt19937_64 rng(5);
                const std::vector<std::uint8_t> ties = pj::test::tie_input(d, rng);
                const auto put = [](std::vector<std::uint8_t>& src, std::int64_t element, std::uint16_t bits) {
                    std::memcpy(src.data() + static_cast<std::size_t>(element) * 2, &bits, 2);
                };
                // Each run's NaN in another row (of every plane, in turn), at one place of its row.
                const std::int64_t places[] = {0, 1, width / 2, width / 2 + 1, width - 2, width - 1};
                std::int64_t run = 0;
                for (const std::uint16_t nan : nans)
                    for (const std::int64_t place : places) {
                        std::vector<std::uint8_t> src = ties;
                        put(src, (run++ * 7 % rows) * width + place, nan);
                        expect_reference(src);
                    }
                std::vector<std::uint8_t> infinities = ties;
                put(infinities, width / 2, plus_inf);
                put(infinities, width / 2 + 1, minus_inf);
                put(infinities, (rows - 1) * width, minus_inf);
                expect_reference(infinities);
            }
        }
    }
}

// f16 fast rows (rows a scan or watch found without NaN) compare in f32 and store each maximum's f16 bits back
// (WindowEmitter::raw_bits: only exact rows carry raw bits). Every finite f16, subnormals and the largest
// included, infinities and both zeros, in channels-last and planar rows; each output must be its window's first
// maximum, bit for bit.
TEST_P(JitIsa, F16FastRowsStoreEachMaximumsBits) {
    for (const char* shape : {"layout=nxc src=2x40x17x19 k=3x3 s=2x2 pb=1x1 pe=1x1", "layout=nxc src=1x24x12x12 k=5x5 pb=2x2 pe=2x2",
                              "layout=ncx src=1x3x30x41 k=3x3 s=2x2 pb=1x1 pe=1x1", "layout=ncx src=2x5x77 k=4 s=3 pb=2 pe=1",
                              "layout=nxc src=1x17x5x6x7 k=2x2x2 s=2x1x2 round=ceil", "layout=nCx16c src=1x20x9x9 k=3x3 s=2x2"}) {
        for (const char* nan_rule : {"propagate", "ignore"}) {
            const std::string line = std::string("maxpool dt=f16 ") + shape + " nan=" + nan_rule;
            SCOPED_TRACE(line);
            const pj::PlanChoice choice = pj::test::choice_for(isa());
            jit::PlanOptions options;
            options.choice = choice;
            const jit::KernelPlan plan = plan_of(line, isa(), options);
            if (std::string(nan_rule) == "propagate") {
                ASSERT_TRUE(plan.scan_rows_for_nan || plan.watch_rows_for_nan);  // fast rows exist
            }
            const pj::test::IsaCap cap(jit::to_string(isa()));
            const pj::Primitive p = pj::create(pj::parse_problem(line), choice);
            ASSERT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa()));
            const std::size_t bytes = pj::casegen::byte_size(p.src_desc());
            std::mt19937_64 rng(11);
            for (int run = 0; run < 4; ++run) {
                std::vector<std::uint8_t> src(bytes);
                for (std::size_t e = 0; e < bytes / 2; ++e) {
                    std::uint16_t bits = static_cast<std::uint16_t>(rng());
                    if ((bits & 0x7C00) == 0x7C00) bits &= 0xFC00;           // a NaN or infinity: the infinity
                    if (run == 1) bits &= 0x83FF;                           // zeros and subnormals only
                    if (run == 2 && rng() % 4 != 0) bits = rng() % 2 ? 0x8000 : 0;  // mostly signed zeros
                    if (run == 3) bits |= 0x7800;                           // the largest finite values and +-inf
                    std::memcpy(src.data() + e * 2, &bits, 2);
                }
                pj::test::expect_run_matches_reference(p.problem(), src, [&](const void* s, void* d, void* i) { p.execute(s, d, i); },
                                                       jit::to_string(isa()));
            }
        }
    }
}

// f16 planes in registers (AVX-512; AVX2 runs its row code on the same data): the fast gathers compare in f32
// and store each maximum converted back; a plane that holds a NaN runs the exact gathers, whose NaN lanes carry
// their own 16 bits. Tie data (signed zeros, -1, -inf), every third plane one NaN of another kind (quiet, negative,
// signaling, the smallest payload), every fifth a 2x2 block of NaN (windows of NaN only: under nan=ignore empty),
// both NaN rules; values compared with the reference bit for bit.
TEST_P(JitIsa, F16PlanesKeepEachNansBits) {
    const std::uint16_t nans[] = {0x7E00, 0xFE01, 0x7C01, 0xFC01};
    for (const char* window : {"maxpool dt=f16 layout=ncx src=2x24x14x14 k=2x2 s=2x2",
                               "maxpool dt=f16 layout=ncx src=1x24x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil",
                               "adaptivemaxpool dt=f16 layout=ncx src=1x24x13x13 out=6x6",
                               "maxpool dt=f16 layout=ncx src=1x24x7x7 k=3x3 s=2x2 pb=1x1 pe=1x1"})
        for (const char* nan_rule : {"", " nan=ignore"}) {
            const std::string line = std::string(window) + (window[0] == 'm' ? nan_rule : "");
            SCOPED_TRACE(line);
            EXPECT_EQ(plan_of(line, jit::Isa::avx512).strategy, jit::Strategy::ncx_planes);
            const pj::test::IsaCap cap(jit::to_string(isa()));
            const pj::Primitive p = pj::create(pj::parse_problem(line), pj::test::choice_for(isa()));
            ASSERT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa()));
            const pj::TensorDesc& d = p.src_desc();
            const std::int64_t width = d.dims[3], plane = d.dims[2] * width, planes = d.dims[0] * d.dims[1];
            std::mt19937_64 rng(static_cast<std::uint64_t>(plane));
            std::vector<std::uint8_t> src = pj::test::tie_input(d, rng);
            const auto put = [&](std::int64_t element, std::uint16_t bits) {
                std::memcpy(src.data() + static_cast<std::size_t>(element) * 2, &bits, 2);
            };
            for (std::int64_t q = 0; q < planes; ++q) {
                const std::uint16_t nan = nans[q % 4];
                if (q % 3 == 0) put(q * plane + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(plane)), nan);
                if (q % 5 == 1)
                    for (const std::int64_t at : {std::int64_t{0}, std::int64_t{1}, width, width + 1}) put(q * plane + 2 * width + 2 + at, nan);
            }
            pj::test::expect_run_matches_reference(p.problem(), src, [&](const void* s, void* dst, void* i) { p.execute(s, dst, i); },
                                                   jit::to_string(isa()));
        }
}

INSTANTIATE_TEST_SUITE_P(Isas, JitIsa, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const ::testing::TestParamInfo<jit::Isa>& isa_info) { return std::string(jit::to_string(isa_info.param)); });

}  // namespace
