// Guard-page test: execute() touches exactly the bytes of its dense tensors, never one before the start or
// past the end, even with vector tails and unaligned pointers. Each of src, dst and indices sits against a
// PROT_NONE page, once ending right before it (an access past the end faults) and once starting right after
// it (an access before the start faults). A fault kills the test: that is the point. Results are compared
// bit for bit with the reference interpreter run on ordinary buffers. Each case runs twice: through execute, and
// split as the executor splits it for 3 threads, however small.
#include "casegen/casegen.hpp"
#include "jit/isa/isa.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"
#include "support/cpu_isas.hpp"
#include "support/guarded_buffer.hpp"
#include "support/isa_cap.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>
#include <vector>

namespace pj = pooljit;

namespace {

using pooljit::test::GuardedBuffer;
using pooljit::test::GuardSide;
using pooljit::test::to_string;

constexpr std::uint8_t poison = 0xA5;

// Describes the first byte where `got` differs from `want`, or nothing when they are equal.
std::optional<std::string> first_difference(const char* what, const std::uint8_t* got, const std::uint8_t* want,
                                            std::size_t bytes) {
    const auto [g, w] = std::mismatch(got, got + bytes, want);
    if (g == got + bytes) return std::nullopt;
    char text[160];
    std::snprintf(text, sizeof text, "%s differs at byte %zu of %zu: got 0x%02X, want 0x%02X", what,
                  static_cast<std::size_t>(g - got), bytes, static_cast<unsigned>(*g), static_cast<unsigned>(*w));
    return std::string(text);
}

using pooljit::test::IsaCap;

// Runs cases under one ISA cap, counts which implementation served them and collects failures.
class GuardRunner {
public:
    explicit GuardRunner(const char* isa) : isa_(isa), cap_(isa) {}

    void run(const pj::AnyPoolDesc& desc, std::uint64_t data_seed) {
        ++cases_;
        const std::string problem = pj::to_string(desc);
        pj::Primitive p;
        try {
            p = pj::test::create_for_cap(desc, isa_);
        } catch (const std::exception& e) {
            fail(problem, std::string("create threw: ") + e.what());
            return;
        }
        ++served_[p.impl_name()];
        const bool has_indices = p.has_indices();
        const std::size_t src_bytes = pj::casegen::byte_size(p.src_desc());
        const std::size_t dst_bytes = pj::casegen::byte_size(p.dst_desc());
        const std::size_t index_bytes = has_indices ? pj::casegen::byte_size(p.indices_desc()) : 0;
        const std::vector<std::uint8_t> src = pj::casegen::adversarial_data(p.src_desc(), data_seed);

        // The oracle, on ordinary buffers (at least one byte each, so that no pointer is null).
        std::vector<std::uint8_t> want_dst(std::max<std::size_t>(dst_bytes, 1), poison);
        std::vector<std::uint8_t> want_indices(std::max<std::size_t>(index_bytes, 1), poison);
        std::vector<std::uint8_t> src_copy(src);
        src_copy.resize(std::max<std::size_t>(src_bytes, 1));
        pj::reference::execute(p.problem(), src_copy.data(), want_dst.data(), has_indices ? want_indices.data() : nullptr);

        // The public call (small problems run on one thread), then the same code split as the executor splits
        // it for 3 threads (bands of rows, rows of every channel block, pieces of rows along the width).
        const std::shared_ptr<const pj::detail::Implementation> impl =
            pj::detail::choose_implementation(p.problem(), *pj::jit::isa_from_string(isa_), p.choice());
        for (const bool split : {false, true})
            for (GuardSide side : {GuardSide::after_end, GuardSide::before_start}) {
                const GuardedBuffer g_src(src_bytes, side), g_dst(dst_bytes, side), g_indices(index_bytes, side);
                if (src_bytes > 0) std::memcpy(g_src.data(), src.data(), src_bytes);
                std::memset(g_dst.data(), poison, dst_bytes);
                std::memset(g_indices.data(), poison, index_bytes);
                void* indices = has_indices ? g_indices.data() : nullptr;
                if (split) pj::execute_problem_split(p.problem(), *impl, g_src.data(), g_dst.data(), indices, 3, true);
                else p.execute(g_src.data(), g_dst.data(), indices);
                auto diff = first_difference("dst", g_dst.data(), want_dst.data(), dst_bytes);
                if (!diff) diff = first_difference("indices", g_indices.data(), want_indices.data(), index_bytes);
                if (diff) {
                    fail(problem, *diff + " (" + to_string(side) + (split ? ", split for 3 threads" : "") + ", impl " +
                                      p.impl_name() + ")");
                    return;
                }
            }
    }

    ~GuardRunner() {
        std::string summary;
        for (const auto& [impl, n] : served_) summary += " " + impl + "=" + std::to_string(n);
        std::printf("POOLJIT_MAX_ISA=%s: %d cases served by%s; %d failed\n", isa_, cases_, summary.c_str(), failures_);
    }
    GuardRunner(const GuardRunner&) = delete;
    GuardRunner& operator=(const GuardRunner&) = delete;

private:
    void fail(const std::string& problem, const std::string& what) {
        // The first few in full; the count says how many more.
        if (++failures_ <= 10) ADD_FAILURE() << what << "\n  problem: " << problem;
    }

    const char* isa_;
    IsaCap cap_;
    std::map<std::string, int> served_;
    int cases_ = 0;
    int failures_ = 0;
};

int case_count() {
    const char* env = std::getenv("POOLJIT_GUARD_CASES");
    return env ? std::atoi(env) : 4000;
}

constexpr std::array<pj::DType, 8> all_dtypes = {pj::DType::f32, pj::DType::f64, pj::DType::f16, pj::DType::bf16,
                                                 pj::DType::s8,  pj::DType::u8,  pj::DType::s32, pj::DType::s64};

// The index outputs cycled through: none, both index dtypes, an OpenVINO axis and ONNX column-major order.
std::optional<pj::IndexSpec> index_variant(std::size_t i) {
    switch (i % 5) {
        case 0: return std::nullopt;
        case 1: return pj::IndexSpec{pj::DType::s32, 0, pj::StorageOrder::row_major};
        case 2: return pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
        case 3: return pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::column_major};
        default: return pj::IndexSpec{pj::DType::s32, -1, pj::StorageOrder::row_major};
    }
}

// Generated configurations; dtype, layout and presence of indices are cycled so that every combination
// appears often, whatever the generator drew.
void run_generated(const char* isa, std::uint64_t seed) {
    GuardRunner runner(isa);
    pj::casegen::Generator gen(seed);
    const int count = case_count();
    for (int i = 0; i < count; ++i) {
        const auto u = static_cast<std::size_t>(i);
        const pj::DType dtype = all_dtypes[u % all_dtypes.size()];
        const pj::Layout layout = (u / all_dtypes.size()) % 2 == 0 ? pj::Layout::nxc : pj::Layout::ncx;
        const bool with_indices = (u / (2 * all_dtypes.size())) % 2 == 0;
        pj::AnyPoolDesc desc = gen.any();
        // A view the generator drew keeps its strides where its layout is kept (strides are in elements, so
        // any dtype reads them alike); another layout would read them as another view.
        const auto keep_view = [&](auto& d) {
            if (d.src.layout != layout) {
                d.src.strides.clear();
                d.dst_strides.clear();
                d.indices_strides.clear();
            }
            if (!with_indices) d.indices_strides.clear();
        };
        if (auto* m = std::get_if<pj::MaxPoolDesc>(&desc)) {
            keep_view(*m);
            m->src.dtype = dtype;
            m->src.layout = layout;
            if (!with_indices) m->indices.reset();
            else if (!m->indices) m->indices = pj::IndexSpec{};
        } else {
            auto& a = std::get<pj::AdaptiveMaxPoolDesc>(desc);
            keep_view(a);
            a.src.dtype = dtype;
            a.src.layout = layout;
            a.index_dtype = with_indices ? std::optional<pj::DType>(pj::DType::s64) : std::nullopt;
        }
        runner.run(desc, seed + u);
    }
}

// Window geometry applied to every spatial axis of the edge cases.
struct Geometry {
    std::int64_t kernel, stride, dilation, pad_begin, pad_end;
    pj::Rounding rounding;
};

// Each is valid for any input size >= 1: the padded input always holds the dilated kernel (windows past the
// padded input have their own geometries below).
constexpr std::array<Geometry, 5> geometries = {{
    {1, 1, 1, 0, 0, pj::Rounding::floor},        // kernel 1
    {3, 2, 1, 1, 1, pj::Rounding::ceil},         // the ResNet stem's window, ceil
    {2, 1, 1, 7, 9, pj::Rounding::floor},        // pads far beyond the kernel: whole windows of padding
    {3, 1, 3, 3, 3, pj::Rounding::ceil_torch},   // dilation
    {10, 3, 2, 9, 9, pj::Rounding::ceil},        // a window long enough for the width taps to loop
}};

// Channel counts around every vector length (20 and 24: byte tails of whole dwords, loaded masked on AVX2) and
// widths around the window sizes, channels-last, 1-D and 2-D
// (3 rows, so that whole rows touch padding too).
void run_edge_shapes(const char* isa) {
    GuardRunner runner(isa);
    constexpr std::array<std::int64_t, 11> channel_counts = {1, 3, 15, 16, 17, 20, 24, 31, 33, 63, 65};
    constexpr std::array<std::int64_t, 4> widths = {1, 2, 7, 17};
    constexpr std::array<std::size_t, 2> spatial_ranks = {1, 2};
    std::size_t variant = 0;
    const auto run_one = [&](const Geometry& g, std::int64_t channels, std::int64_t width, pj::DType dtype,
                             std::size_t sr) {
        ++variant;
        pj::MaxPoolDesc d;
        d.src = {dtype, pj::Layout::nxc, {2, channels, width}};
        if (sr == 2) d.src.dims = {2, channels, 3, width};
        d.kernel.assign(sr, g.kernel);
        d.strides.assign(sr, g.stride);
        d.dilations.assign(sr, g.dilation);
        d.pads_begin.assign(sr, g.pad_begin);
        d.pads_end.assign(sr, g.pad_end);
        d.rounding = g.rounding;
        d.nan = variant % 3 == 0 ? pj::NanPolicy::ignore : pj::NanPolicy::propagate;
        d.indices = index_variant(variant);
        runner.run(d, 0xE06E0000u + variant);
    };
    for (const Geometry& g : geometries)
        for (std::int64_t channels : channel_counts)
            for (std::int64_t width : widths)
                for (pj::DType dtype : all_dtypes)
                    for (std::size_t sr : spatial_ranks) run_one(g, channels, width, dtype, sr);
}

// Windows that reach past the padded input (ceil rounding): each axis's kernel is the widest its padded
// input allows, (P + stride - 1 - 1) / dilation + 1 taps, so it depends on the input size and these geometries get
// a loop of their own. The one window of such an axis holds the whole axis; its taps past the end are skipped.
struct OverhangGeometry {
    std::int64_t stride, dilation, pad_begin, pad_end;
    pj::AutoPad auto_pad;
    pj::Rounding rounding;
};

constexpr std::array<OverhangGeometry, 4> overhang_geometries = {{
    {2, 1, 0, 0, pj::AutoPad::explicit_pads, pj::Rounding::ceil_torch},  // ONNX's example: one past
    {3, 1, 1, 1, pj::AutoPad::explicit_pads, pj::Rounding::ceil},        // pads on both sides, two past
    {4, 2, 0, 1, pj::AutoPad::explicit_pads, pj::Rounding::ceil},        // dilation
    {3, 1, 5, 5, pj::AutoPad::valid, pj::Rounding::ceil_torch},          // valid: the pads given are not read
}};

std::int64_t widest_kernel(const OverhangGeometry& g, std::int64_t in) {
    const std::int64_t padded = in + (g.auto_pad == pj::AutoPad::valid ? 0 : g.pad_begin + g.pad_end);
    return (padded + g.stride - 2) / g.dilation + 1;
}

// Channels last around the vector lengths and planar rows, 1-D and 2-D: both axes past the input (3 rows), or
// the width only, under 9 rows of an ordinary window (rings and segments over many rows).
void run_overhang_shapes(const char* isa) {
    GuardRunner runner(isa);
    const auto channel_counts = [](pj::Layout layout) {
        return layout == pj::Layout::nxc ? std::vector<std::int64_t>{1, 15, 16, 17, 33, 65} : std::vector<std::int64_t>{1, 3};
    };
    constexpr std::array<std::int64_t, 4> widths = {1, 2, 7, 17};
    enum class Shape { one_d, both_axes, width_only };
    std::size_t variant = 0;
    const auto run_one = [&](const OverhangGeometry& g, pj::Layout layout, std::int64_t channels, std::int64_t width,
                             pj::DType dtype, Shape shape) {
        ++variant;
        pj::MaxPoolDesc d;
        d.src = {dtype, layout, {2, channels, width}};
        d.auto_pad = g.auto_pad;
        d.rounding = g.rounding;
        if (shape != Shape::one_d) {
            const std::int64_t height = shape == Shape::both_axes ? 3 : 9;
            d.src.dims = {2, channels, height, width};
            d.kernel.push_back(shape == Shape::both_axes ? widest_kernel(g, height) : 3);
            d.strides.push_back(shape == Shape::both_axes ? g.stride : 1);
            d.dilations.push_back(shape == Shape::both_axes ? g.dilation : 1);
            d.pads_begin.push_back(shape == Shape::both_axes ? g.pad_begin : 1);
            d.pads_end.push_back(shape == Shape::both_axes ? g.pad_end : 1);
        }
        d.kernel.push_back(widest_kernel(g, width));
        d.strides.push_back(g.stride);
        d.dilations.push_back(g.dilation);
        d.pads_begin.push_back(g.pad_begin);
        d.pads_end.push_back(g.pad_end);
        d.nan = variant % 3 == 0 ? pj::NanPolicy::ignore : pj::NanPolicy::propagate;
        d.indices = index_variant(variant);
        runner.run(d, 0x0E4A0000u + variant);
    };
    for (const OverhangGeometry& g : overhang_geometries)
        for (const pj::Layout layout : {pj::Layout::nxc, pj::Layout::ncx})
            for (std::int64_t channels : channel_counts(layout))
                for (std::int64_t width : widths)
                    for (pj::DType dtype : all_dtypes)
                        for (const Shape shape : {Shape::one_d, Shape::both_axes, Shape::width_only})
                            run_one(g, layout, channels, width, dtype, shape);
}

// Planar rows of narrow data whose loads lean on the row's elements around a span: AVX2's even-element loads
// from the element before a span, or up to the element after it; single elements as broadcasts; taps-as-lanes
// rows as whole registers; a NaN scan's rest stepped back from the row's end; a whole plane's vectors in pairs;
// flat planes' first and last vectors, whose taps load the plane's ends and shift. Each in every narrow type (and f32 beside them), next to both guards.
void run_planar_narrow_shapes(const char* isa) {
    GuardRunner runner(isa);
    constexpr std::array<const char*, 29> shapes = {
        "maxpool layout=ncx src=1x3x5x16 k=2x2 s=2x2",                // tap 0 up to the element after, tap 1 from before
        "maxpool layout=ncx src=1x2x14x22 k=3x3 s=2x2 pb=1x1 pe=1x1",  // byte pairs: padding before a row under a register
        "maxpool layout=ncx src=2x2x10x150 k=3x3 s=2x2 pb=1x1 pe=1x1", // MobileNet's rows: the last chunk read back
        "maxpool layout=ncx src=1x2x300 k=4 s=2 pb=3 pe=0",            // 3 bytes of padding before a 1-D row
        "maxpool layout=ncx src=2x3x7x112 k=3x3 s=2x2 pb=1x1 pe=1x1",  // the stem's rows; the last item's exact span
        "maxpool layout=ncx src=1x3x8x112 k=3x3 s=2x2 round=ceil",     // byte pairs past the row's end and the last row
        "maxpool layout=ncx src=1x2x14x19 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil",  // both ends of a row under a register
        "maxpool layout=ncx src=1x2x130 k=3 s=2 round=ceil",          // a last chunk of one output, its third tap past
        "maxpool layout=ncx src=1x3x10x10 k=3x3 s=2x2 pb=1x1 pe=1x1",  // byte pairs over rows of 10 bytes, 5 outputs
        "maxpool layout=ncx src=2x3x14x14 k=2x2 s=2x2",                // rows reaching into the next: the last exact
        "maxpool layout=ncx src=1x3x14x14 k=2x2 s=2x2 src_strides=700x224x16x1 dst_strides=378x63x9x1",  // pitches
        "maxpool layout=ncx src=1x2x2x60 k=2x2 s=2x2 src_strides=120x0x60x1",  // one output row a plane, planes alias
        "maxpool layout=ncx src=1x4x1x67 k=1x2 s=2x2 round=ceil src_strides=37x8x67x1",  // planes overlap
        "maxpool layout=ncx src=1x3x2x4 k=1x1 s=1x2",                 // one-tap windows two apart
        "maxpool layout=ncx src=1x2x1025 k=1025",                     // a whole plane: pairs, a partial vector
        "adaptivemaxpool layout=ncx src=1x5x13x13 out=7x7",           // single-lane borders, stride-2 interior
        "adaptivemaxpool layout=ncx src=1x5x13x13 out=6x6",           // stride-2 lanes from the row's first element
        "adaptivemaxpool layout=ncx src=1x5x13x13 out=3x3",           // taps as lanes; the last window ends the row
        "adaptivemaxpool layout=ncx src=1x5x13x13 out=2x2",
        "adaptivemaxpool layout=ncx src=1x3x13x13 out=1x1",           // a whole plane of 169 elements
        "maxpool layout=ncx src=1x2x3x20 k=1x16 pb=0x15 pe=0x0",     // flat planes: the first vector's taps 15 before
        "maxpool layout=ncx src=1x2x3x20 k=2x16 pb=1x0 pe=0x15",     // the last vector's taps 15 past the plane
        "maxpool layout=ncx src=2x3x20x20 k=5x5 pb=2x2 pe=2x2",      // SPPF's planes: the last vector overlaps
        "maxpool layout=ncx src=1x3x4x4 k=3x3 pb=1x1 pe=1x1",        // a plane of one 16-byte vector
        "maxpool layout=ncx src=1x2x3x20 k=2x8 pb=1x7 pe=0x0",       // f32 flat planes: taps 7 before the first vector
        "maxpool layout=ncx src=1x2x3x20 k=2x8 pb=0x0 pe=1x7",       // and 7 past the last
        "maxpool layout=ncx src=1x2x5x40 k=2x4 d=1x5 pb=1x15 pe=0x0",  // dilated taps 5 apart, 15 before the first
        "maxpool layout=ncx src=1x2x5x40 k=2x4 d=2x5 pb=1x0 pe=1x15",  // and 15 past the last
        "maxpool layout=ncx src=1x2x21x19 k=3x3 d=2x2 pb=2x2 pe=2x2",  // a 3x3 by 2 (f32: 7-element reach)
    };
    std::uint64_t seed = 0xB16A0000u;
    for (const char* shape : shapes)
        for (const char* dtype : {"bf16", "u8", "s8", "f16", "f32"})
            for (const char* nan : {"propagate", "ignore"}) {
                const bool adaptive = std::string_view(shape).starts_with("adaptive");  // always propagates
                if (adaptive && std::string_view(nan) == "ignore") continue;
                std::string line(shape);
                line.insert(line.find(' '), std::string(" dt=") + dtype + (adaptive ? "" : std::string(" nan=") + nan));
                pj::AnyPoolDesc desc = pj::parse_problem(line);
                if (auto* max_pool = std::get_if<pj::MaxPoolDesc>(&desc); max_pool && seed % 3 == 0)
                    max_pool->indices = index_variant(static_cast<std::size_t>(seed));
                runner.run(desc, ++seed);
            }
}

// Channels last whose blocks end in a partial vector: AVX2 loads it as the whole register that ends at its last
// channel, reading the bytes before the block (the pixel before it in the row, where the block is narrower than
// a register): the row's first outputs (no padding: their first tap is the row's first pixel), tiny pixels (3
// and 7 channels need several pixels of room), a dilation, 1-D rows, the column ring, separable pixels over one
// partial block (SPPF's shape), a tail after whole vectors, separable pixels over whole blocks and a tail (of 10
// and 12 f32 channels in 2 vectors, of 8 in fewer vectors than a block, of 4 read back from the block before
// it; a copied row at stride 2 along the width); every data type, next to both guards.
void run_channel_tail_shapes(const char* isa) {
    GuardRunner runner(isa);
    constexpr std::array<const char*, 14> shapes = {
        "maxpool layout=nxc src=2x20x6x8 k=2x2 s=2x2",
        "maxpool layout=nxc src=1x7x5x9 k=3x3",
        "maxpool layout=nxc src=1x3x4x11 k=2x3 d=1x2",
        "maxpool layout=nxc src=2x24x13 k=3 s=2",
        "maxpool layout=nxc src=1x24x7x9 k=3x3 pb=1x1 pe=1x1",
        "maxpool layout=nxc src=1x20x9x9 k=5x5 pb=2x2 pe=2x2",
        "maxpool layout=nxc src=1x40x9x7 k=5x5 pb=2x2 pe=2x2",
        "maxpool layout=nxc src=1x13x6x7 k=3x3 s=2x2 pb=1x1 pe=1x1",
        "maxpool layout=nxc src=1x70x5x6 k=3x3 s=2x2",
        "maxpool layout=nxc src=2x42x7x6 k=5x5 pb=2x2 pe=2x2",
        "maxpool layout=nxc src=1x60x6x5 k=3x3 d=2x2 pb=2x2 pe=2x2",
        "maxpool layout=nxc src=1x36x9x11 k=5x3 s=1x2 pb=2x1 pe=2x1",
        "maxpool layout=nxc src=1x120x6x6 k=5x5 pb=2x2 pe=2x2",
        // a width of one pixel whose stride is near 2^63 (a stride of an extent-1 axis adds nothing to the extent):
        // the room the read-back needs, counted in those pixels, must not overflow to none
        "maxpool layout=nxc src=1x20x4x1 k=2x1 src_strides=80x1x20x9223372036854775797",
    };
    std::uint64_t seed = 0x7A110000u;
    for (const char* shape : shapes)
        for (pj::DType dtype : all_dtypes) {
            std::string line(shape);
            line.insert(line.find(' '), std::string(" dt=") + pj::to_string(dtype));
            pj::AnyPoolDesc desc = pj::parse_problem(line);
            if (auto* max_pool = std::get_if<pj::MaxPoolDesc>(&desc); max_pool && seed % 4 == 0)
                max_pool->nan = pj::NanPolicy::ignore;
            runner.run(desc, ++seed);
        }
}

}  // namespace

// The harness itself: one byte past the end, or one before the start, must fault.
TEST(GuardPages, GuardsFault) {
    ::testing::FLAGS_gtest_death_test_style = "threadsafe";
    const auto touch = [](const std::uint8_t* p) { return *static_cast<const volatile std::uint8_t*>(p); };
    const GuardedBuffer after(100, GuardSide::after_end), before(100, GuardSide::before_start);
    EXPECT_EQ(touch(after.data()) + touch(after.data() + 99) + touch(before.data()) + touch(before.data() + 99), 0);
    EXPECT_DEATH(touch(after.data() + 100), "");
    EXPECT_DEATH(touch(before.data() - 1), "");
}

// Each ISA's part runs where the CPU has it (after POOLJIT_CPU_MASK) and skips by name elsewhere: under a cap of an
// ISA the CPU lacks, dispatch would only run the next ISA's code a second time.
TEST(GuardPages, GeneratedAvx512) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx512);
    run_generated("avx512", 0x6A4D0001);
}
TEST(GuardPages, GeneratedAvx2) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx2);
    run_generated("avx2", 0x6A4D0002);
}
TEST(GuardPages, EdgeShapesAvx512) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx512);
    run_edge_shapes("avx512");
}
TEST(GuardPages, EdgeShapesAvx2) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx2);
    run_edge_shapes("avx2");
}
TEST(GuardPages, OverhangShapesAvx512) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx512);
    run_overhang_shapes("avx512");
}
TEST(GuardPages, PlanarNarrowShapesAvx512) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx512);
    run_planar_narrow_shapes("avx512");
}
TEST(GuardPages, PlanarNarrowShapesAvx2) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx2);
    run_planar_narrow_shapes("avx2");
}
TEST(GuardPages, ChannelTailShapesAvx512) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx512);
    run_channel_tail_shapes("avx512");
}
TEST(GuardPages, ChannelTailShapesAvx2) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx2);
    run_channel_tail_shapes("avx2");
}
TEST(GuardPages, OverhangShapesAvx2) {
    POOLJIT_SKIP_UNLESS_CPU_RUNS(pooljit::jit::Isa::avx2);
    run_overhang_shapes("avx2");
}
