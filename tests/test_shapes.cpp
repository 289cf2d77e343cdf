// Output shapes and resolved pads for every auto_pad x rounding combination, worked out by hand from DESIGN.md
// section 3 (ek = (k-1)*d + 1, P = in + pb + pe):
//   floor:      out = (P - ek) / s + 1
//   ceil:       out = ceil((P - ek) / s) + 1, a true ceiling: under ceil and ceil_torch ek may pass P by up to
//               s - 1 (the window reaches past the padded input), which gives one output
//   ceil_torch: ceil, then once: if ((out-1)*s >= in + pb) out -= 1
//   valid:      pads 0 (the given pads are ignored), then the rounding rule
//   same_*:     out = ceil(in / s), t = max(0, (out-1)*s + ek - in), upper: pb = t/2, pe = t - pb; lower: pe = t/2,
//               pb = t - pe; the given pads and the rounding are ignored
// Checked through pooljit::resolve (Problem.out, pad_begin, pad_end) and Primitive::create(desc).dst_desc().
#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pj = pooljit;

namespace {

// One spatial axis under explicit or valid padding, with the output size for each rounding.
struct PaddedAxis {
    std::int64_t in, k, s, d, pb, pe;  // pb, pe: as given (valid ignores them: resolved pads are 0)
    std::int64_t out_floor, out_ceil, out_ceil_torch;
    const char* why;
};

// Explicit padding: resolved pads are the given ones.
const PaddedAxis explicit_axes[] = {
    // in  k  s  d  pb pe   floor ceil torch
    {3, 2, 1, 1, 1, 1, 4, 4, 4, "MaxPool-8 example 1: P=5, ek=2, 3/1"},
    {32, 2, 2, 1, 1, 1, 17, 17, 17, "XML explicit 32 -> 17: P=34, 32/2 exact; torch 32 >= 33 no"},
    {5, 2, 2, 1, 0, 0, 2, 3, 3, "P=5, 3/2: floor 1, ceil 2; torch 4 >= 5 no"},
    {2, 1, 2, 1, 0, 0, 1, 2, 1, "ceil vs torch: 1/2; torch (2-1)*2=2 >= 2 drops"},
    {3, 2, 2, 1, 1, 1, 2, 3, 2, "ceil vs torch: P=5, 3/2; torch 4 >= 4 drops"},
    {5, 2, 2, 1, 1, 1, 3, 4, 3, "ceil vs torch: P=7, 5/2; torch 6 >= 6 drops"},
    {3, 2, 1, 2, 1, 1, 3, 3, 3, "MaxPool-8 example 6: ek=3, P=5"},
    {4, 2, 1, 2, 0, 0, 2, 2, 2, "ONNX 2d_dilations: ek=3, P=4"},
    {7, 3, 2, 2, 0, 0, 2, 2, 2, "dilation: ek=5, P=7, 2/2 exact"},
    {7, 2, 3, 2, 0, 0, 2, 3, 3, "dilation: ek=3, P=7, 4/3; torch 6 >= 7 no"},
    {4, 2, 3, 2, 1, 2, 2, 3, 2, "dilation, ceil vs torch: ek=3, P=7, 4/3; torch 6 >= 5 drops"},
    {8, 3, 2, 2, 0, 0, 2, 3, 3, "dilation: ek=5, P=8, 3/2; torch 4 >= 8 no"},
    {3, 3, 1, 1, 0, 0, 1, 1, 1, "ek == P"},
    {1, 1, 1, 1, 2, 3, 6, 6, 5, "pads >= kernel: P=6, 5/1 exact; torch 5 >= 3 drops once, only once"},
    {4, 3, 2, 1, 0, 0, 1, 2, 2, "ONNX 2d_ceil: P=4, 1/2; torch 2 >= 4 no"},
    {5, 3, 2, 1, 0, 0, 2, 2, 2, "P=5, 2/2 exact"},
    {1, 1, 3, 1, 0, 2, 1, 2, 1, "P=3, 2/3; torch 3 >= 1 drops"},
    {6, 3, 2, 1, 2, 0, 3, 4, 4, "begin pad only: P=8, 5/2; torch 6 >= 8 no"},
    {6, 3, 2, 1, 0, 2, 3, 4, 3, "end pad only: P=8, 5/2; torch 6 >= 6 drops"},
    {3, 1, 2, 1, 0, 1, 2, 3, 2, "P=4, ek=1, 3/2; torch 4 >= 3 drops"},
};

// Valid padding: the given pads (non-zero on purpose) are ignored, resolved pads are 0.
const PaddedAxis valid_axes[] = {
    // in  k  s  d  pb pe   floor ceil torch
    {32, 2, 2, 1, 1, 1, 16, 16, 16, "XML valid 32 -> 16 (pads 1,1 ignored): 30/2 exact"},
    {3, 2, 2, 1, 0, 0, 1, 2, 2, "MaxPool-8 example 5: 1/2; torch 2 >= 3 no"},
    {2, 1, 2, 1, 3, 4, 1, 2, 1, "1/2; torch 2 >= 2 drops"},
    {7, 3, 1, 1, 0, 0, 5, 5, 5, "MaxPool-8 example 2"},
    {7, 3, 2, 2, 1, 0, 2, 2, 2, "dilation: ek=5, 2/2 exact"},
    {8, 3, 2, 2, 0, 1, 2, 3, 3, "dilation: ek=5, 3/2; torch 4 >= 8 no"},
    {5, 2, 2, 1, 1, 1, 2, 3, 3, "P=5 (pads ignored), 3/2; torch 4 >= 5 no"},
    {3, 3, 1, 1, 2, 2, 1, 1, 1, "ek == in"},
};

// Windows that reach past the padded input: P < ek < P + s. Refused under floor (out_floor 0); under ceil
// ceil((P - ek) / s) + 1 = 0 + 1, and ceil_torch keeps it ((1-1)*s = 0 < in + pb).
const PaddedAxis overhang_explicit_axes[] = {
    // in  k  s  d  pb pe   floor ceil torch
    {3, 4, 2, 1, 0, 0, 0, 1, 1, "the ONNX example: ek=4, P=3, ceil(-1/2) = 0"},
    {3, 6, 3, 1, 1, 1, 0, 1, 1, "pads on both sides: ek=6, P=5, ceil(-1/3) = 0"},
    {3, 7, 3, 1, 1, 1, 0, 1, 1, "s - 1 past: ek=7, P=5, ceil(-2/3) = 0"},
    {4, 3, 3, 2, 0, 0, 0, 1, 1, "dilation: ek=5, P=4, ceil(-1/3) = 0"},
    {5, 3, 4, 3, 1, 0, 0, 1, 1, "dilation, begin pad: ek=7, P=6, ceil(-1/4) = 0"},
    {1, 2, 2, 1, 0, 0, 0, 1, 1, "a single element: ek=2, P=1"},
    {1, 5, 5, 1, 2, 0, 0, 1, 1, "begin pad only: ek=5, P=3, ceil(-2/5) = 0"},
    {7, 9, 4, 1, 0, 0, 0, 1, 1, "ek=9, P=7, ceil(-2/4) = 0"},
};

const PaddedAxis overhang_valid_axes[] = {
    // in  k  s  d  pb pe   floor ceil torch
    {3, 4, 2, 1, 5, 5, 0, 1, 1, "the ONNX example under valid: the given pads 5, 5 would have made room"},
    {4, 3, 2, 2, 0, 0, 0, 1, 1, "dilation: ek=5, in=4, ceil(-1/2) = 0"},
    {2, 3, 3, 1, 1, 1, 0, 1, 1, "s - 1 past: ek=4, in=2, ceil(-2/3) = 0"},
};

// One spatial axis under same_upper / same_lower. The rounding and the given pads are ignored.
struct SameAxis {
    std::int64_t in, k, s, d;
    std::int64_t out;
    std::int64_t upper_pb, upper_pe, lower_pb, lower_pe;
    const char* why;
};

const SameAxis same_axes[] = {
    // in  k  s  d  out  upper   lower
    {3, 2, 1, 1, 3, 0, 1, 1, 0, "MaxPool-8 examples 3/4: t = 2+2-3 = 1"},
    {32, 2, 2, 1, 16, 0, 0, 0, 0, "XML same_upper stride 2: out = ceil(32/2) = 16 (erratum), t = 30+2-32 = 0"},
    {5, 3, 2, 1, 3, 1, 1, 1, 1, "ONNX precomputed_same_upper: t = 4+3-5 = 2"},
    {32, 2, 1, 1, 32, 0, 1, 1, 0, "ONNX 2d_same_upper / 2d_same_lower: t = 1"},
    {6, 4, 1, 1, 6, 1, 2, 2, 1, "odd total pad: t = 5+4-6 = 3"},
    {7, 4, 2, 1, 4, 1, 2, 2, 1, "stride 2, odd total pad: t = 6+4-7 = 3"},
    {5, 3, 1, 2, 5, 2, 2, 2, 2, "dilation: ek=5, t = 4+5-5 = 4"},
    {6, 2, 2, 3, 3, 1, 1, 1, 1, "dilation: ek=4, t = 4+4-6 = 2"},
    {6, 2, 2, 2, 3, 0, 1, 1, 0, "dilation, odd: ek=3, t = 4+3-6 = 1"},
    {8, 3, 3, 2, 3, 1, 2, 2, 1, "dilation, stride 3, odd: ek=5, t = 6+5-8 = 3"},
    {8, 1, 3, 1, 3, 0, 0, 0, 0, "t clamped: 6+1-8 = -1 -> 0"},
    {1, 3, 1, 1, 1, 1, 1, 1, 1, "kernel larger than input: t = 0+3-1 = 2"},
    {7, 3, 3, 1, 3, 1, 1, 1, 1, "t = 6+3-7 = 2"},
    {9, 4, 4, 1, 3, 1, 2, 2, 1, "t = 8+4-9 = 3"},
    {4, 5, 1, 1, 4, 2, 2, 2, 2, "t = 3+5-4 = 4"},
};

constexpr pj::Rounding all_roundings[] = {pj::Rounding::floor, pj::Rounding::ceil, pj::Rounding::ceil_torch};

const char* name(pj::Rounding r) {
    switch (r) {
        case pj::Rounding::floor: return "floor";
        case pj::Rounding::ceil: return "ceil";
        case pj::Rounding::ceil_torch: return "ceil_torch";
    }
    return "?";
}

std::int64_t expected_out(const PaddedAxis& a, pj::Rounding r) {
    switch (r) {
        case pj::Rounding::floor: return a.out_floor;
        case pj::Rounding::ceil: return a.out_ceil;
        case pj::Rounding::ceil_torch: return a.out_ceil_torch;
    }
    return -1;
}

// What one spatial axis must resolve to.
struct AxisExpectation {
    std::int64_t in, k, s, d, out, pb, pe;
};

// Checks resolve() and Primitive::create() of `desc` against per-axis expectations.
void check_desc(const pj::MaxPoolDesc& desc, const std::vector<AxisExpectation>& axes) {
    SCOPED_TRACE(pj::to_string(desc));
    const auto rank = static_cast<int>(axes.size());
    pj::Problem p;
    ASSERT_NO_THROW(p = pj::resolve(desc));
    EXPECT_EQ(p.op, pj::OpKind::max_pool);
    EXPECT_EQ(p.spatial_rank, rank);
    EXPECT_EQ(p.batch, desc.src.dims[0]);
    EXPECT_EQ(p.channels, desc.src.dims[1]);
    EXPECT_EQ(p.dtype, desc.src.dtype);
    EXPECT_EQ(p.layout, desc.src.layout);
    std::vector<std::int64_t> dst_dims{desc.src.dims[0], desc.src.dims[1]};
    for (int i = 0; i < pj::max_spatial_rank; ++i) {
        SCOPED_TRACE("spatial axis " + std::to_string(i));
        const auto u = static_cast<std::size_t>(i);
        if (i < rank) {
            const AxisExpectation& a = axes[u];
            EXPECT_EQ(p.in[u], a.in);
            EXPECT_EQ(p.out[u], a.out);
            EXPECT_EQ(p.pad_begin[u], a.pb);
            EXPECT_EQ(p.pad_end[u], a.pe);
            EXPECT_EQ(p.kernel[u], a.k);
            EXPECT_EQ(p.stride[u], a.s);
            EXPECT_EQ(p.dilation[u], a.d);
            dst_dims.push_back(a.out);
        } else {  // neutral entries past the spatial rank
            EXPECT_EQ(p.in[u], 1);
            EXPECT_EQ(p.out[u], 1);
            EXPECT_EQ(p.pad_begin[u], 0);
            EXPECT_EQ(p.pad_end[u], 0);
            EXPECT_EQ(p.kernel[u], 1);
            EXPECT_EQ(p.stride[u], 1);
            EXPECT_EQ(p.dilation[u], 1);
        }
    }
    EXPECT_EQ(p.dst_desc(), (pj::TensorDesc{desc.src.dtype, desc.src.layout, dst_dims}));

    pj::Primitive prim;
    ASSERT_NO_THROW(prim = pj::Primitive::create(desc));
    EXPECT_EQ(prim.dst_desc(), (pj::TensorDesc{desc.src.dtype, desc.src.layout, dst_dims}));
    EXPECT_EQ(prim.src_desc(), desc.src);
    EXPECT_EQ(prim.has_indices(), desc.indices.has_value());
    if (desc.indices) {
        EXPECT_EQ(prim.indices_desc(), (pj::TensorDesc{desc.indices->dtype, desc.src.layout, dst_dims}));
    } else {
        EXPECT_TRUE(prim.indices_desc().dims.empty());
    }
}

pj::MaxPoolDesc make_desc(pj::AutoPad pad, pj::Rounding rounding) {
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, pj::Layout::ncx, {2, 3}};
    d.auto_pad = pad;
    d.rounding = rounding;
    return d;
}

// Builds a descriptor from padded-axis rows (explicit or valid), one row per spatial axis.
pj::MaxPoolDesc padded_desc(pj::AutoPad pad, pj::Rounding rounding, const std::vector<const PaddedAxis*>& rows,
                            std::vector<AxisExpectation>& expect) {
    pj::MaxPoolDesc d = make_desc(pad, rounding);
    expect.clear();
    for (const PaddedAxis* a : rows) {
        d.src.dims.push_back(a->in);
        d.kernel.push_back(a->k);
        d.strides.push_back(a->s);
        d.dilations.push_back(a->d);
        d.pads_begin.push_back(a->pb);
        d.pads_end.push_back(a->pe);
        const bool is_valid = pad == pj::AutoPad::valid;
        expect.push_back({a->in, a->k, a->s, a->d, expected_out(*a, rounding), is_valid ? 0 : a->pb, is_valid ? 0 : a->pe});
    }
    return d;
}

pj::MaxPoolDesc same_desc(pj::AutoPad pad, pj::Rounding rounding, const std::vector<const SameAxis*>& rows,
                          std::vector<AxisExpectation>& expect) {
    pj::MaxPoolDesc d = make_desc(pad, rounding);
    expect.clear();
    const bool upper = pad == pj::AutoPad::same_upper;
    for (const SameAxis* a : rows) {
        d.src.dims.push_back(a->in);
        d.kernel.push_back(a->k);
        d.strides.push_back(a->s);
        d.dilations.push_back(a->d);
        d.pads_begin.push_back(7);  // ignored under same_*
        d.pads_end.push_back(9);
        expect.push_back({a->in, a->k, a->s, a->d, a->out, upper ? a->upper_pb : a->lower_pb,
                          upper ? a->upper_pe : a->lower_pe});
    }
    return d;
}

// Row i alone (1-D), with row i+1 (2-D) and with rows i+1, i+2 (3-D), wrapping around the table.
template <typename Row, std::size_t N>
std::vector<std::vector<const Row*>> combinations(const Row (&rows)[N]) {
    std::vector<std::vector<const Row*>> out;
    for (std::size_t i = 0; i < N; ++i) {
        out.push_back({&rows[i]});
        out.push_back({&rows[i], &rows[(i + 1) % N]});
        out.push_back({&rows[(i + 1) % N], &rows[i]});
        out.push_back({&rows[i], &rows[(i + 1) % N], &rows[(i + 2) % N]});
        out.push_back({&rows[(i + 2) % N], &rows[(i + 1) % N], &rows[i]});
    }
    return out;
}

TEST(Shapes, ExplicitPadsEveryRounding) {
    for (pj::Rounding r : all_roundings)
        for (const auto& rows : combinations(explicit_axes)) {
            SCOPED_TRACE(std::string("round=") + name(r) + ", first row: " + rows[0]->why);
            std::vector<AxisExpectation> expect;
            check_desc(padded_desc(pj::AutoPad::explicit_pads, r, rows, expect), expect);
        }
}

TEST(Shapes, ValidIgnoresPadsEveryRounding) {
    for (pj::Rounding r : all_roundings)
        for (const auto& rows : combinations(valid_axes)) {
            SCOPED_TRACE(std::string("round=") + name(r) + ", first row: " + rows[0]->why);
            std::vector<AxisExpectation> expect;
            check_desc(padded_desc(pj::AutoPad::valid, r, rows, expect), expect);
        }
}

TEST(Shapes, SameUpperIgnoresPadsAndRounding) {
    for (pj::Rounding r : all_roundings)
        for (const auto& rows : combinations(same_axes)) {
            SCOPED_TRACE(std::string("round=") + name(r) + ", first row: " + rows[0]->why);
            std::vector<AxisExpectation> expect;
            check_desc(same_desc(pj::AutoPad::same_upper, r, rows, expect), expect);
        }
}

TEST(Shapes, SameLowerIgnoresPadsAndRounding) {
    for (pj::Rounding r : all_roundings)
        for (const auto& rows : combinations(same_axes)) {
            SCOPED_TRACE(std::string("round=") + name(r) + ", first row: " + rows[0]->why);
            std::vector<AxisExpectation> expect;
            check_desc(same_desc(pj::AutoPad::same_lower, r, rows, expect), expect);
        }
}

// Each overhang row under ceil and ceil_torch in 1-D, 2-D and 3-D, and beside ordinary axes (first, last, in the
// middle); floor refuses each.
template <std::size_t N>
void check_overhang_axes(const PaddedAxis (&table)[N], pj::AutoPad pad) {
    for (pj::Rounding r : {pj::Rounding::ceil, pj::Rounding::ceil_torch}) {
        for (const auto& rows : combinations(table)) {
            SCOPED_TRACE(std::string("round=") + name(r) + ", first row: " + rows[0]->why);
            std::vector<AxisExpectation> expect;
            check_desc(padded_desc(pad, r, rows, expect), expect);
        }
        for (const PaddedAxis& overhang : table)
            for (const PaddedAxis& other : explicit_axes) {
                if (pad == pj::AutoPad::valid && other.pb + other.pe > 0) continue;  // valid would drop its pads
                SCOPED_TRACE(std::string("round=") + name(r) + ": " + overhang.why + ", beside " + other.why);
                for (const std::vector<const PaddedAxis*>& rows :
                     {std::vector<const PaddedAxis*>{&overhang, &other}, {&other, &overhang},
                      {&other, &overhang, &other}}) {
                    std::vector<AxisExpectation> expect;
                    check_desc(padded_desc(pad, r, rows, expect), expect);
                }
            }
    }
    for (const PaddedAxis& a : table) {
        SCOPED_TRACE(a.why);
        std::vector<AxisExpectation> expect;
        EXPECT_THROW((void)pj::resolve(padded_desc(pad, pj::Rounding::floor, {&a}, expect)), pj::Error);
    }
}

TEST(Shapes, ExplicitPadsWindowsPastThePaddedInputUnderCeil) {
    check_overhang_axes(overhang_explicit_axes, pj::AutoPad::explicit_pads);
}

TEST(Shapes, ValidWindowsPastTheInputUnderCeil) { check_overhang_axes(overhang_valid_axes, pj::AutoPad::valid); }

// The padded-axis tables must hold the cases where ceil and ceil_torch differ (a table edit must not lose them).
TEST(Shapes, TablesHoldCeilTorchDifferences) {
    auto has = [](std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t pb, std::int64_t pe,
                  std::int64_t ceil, std::int64_t torch) {
        for (const PaddedAxis& a : explicit_axes)
            if (a.in == in && a.k == k && a.s == s && a.d == 1 && a.pb == pb && a.pe == pe && a.out_ceil == ceil &&
                a.out_ceil_torch == torch)
                return true;
        return false;
    };
    EXPECT_TRUE(has(2, 1, 2, 0, 0, 2, 1));
    EXPECT_TRUE(has(3, 2, 2, 1, 1, 3, 2));
    EXPECT_TRUE(has(5, 2, 2, 1, 1, 4, 3));
}

// Whole-descriptor rows straight from the specs' shape examples.
struct WholeCase {
    const char* source;
    pj::MaxPoolDesc desc;
    std::vector<std::int64_t> out;
    std::vector<std::int64_t> pb;
    std::vector<std::int64_t> pe;
};

pj::MaxPoolDesc desc_of(std::vector<std::int64_t> dims, std::vector<std::int64_t> k, std::vector<std::int64_t> s,
                        std::vector<std::int64_t> pb, std::vector<std::int64_t> pe, pj::AutoPad pad,
                        pj::Rounding r = pj::Rounding::floor, pj::Layout layout = pj::Layout::ncx) {
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, layout, std::move(dims)};
    d.kernel = std::move(k);
    d.strides = std::move(s);
    d.pads_begin = std::move(pb);
    d.pads_end = std::move(pe);
    d.auto_pad = pad;
    d.rounding = r;
    return d;
}

TEST(Shapes, SpecShapeExamples) {
    using pj::AutoPad;
    const WholeCase cases[] = {
        {"MaxPool-1/8 XML same_upper 1x3x32x32 k2 s2 -> 16x16 (erratum: ceil(in/s))",
         desc_of({1, 3, 32, 32}, {2, 2}, {2, 2}, {1, 1}, {1, 1}, AutoPad::same_upper), {16, 16}, {0, 0}, {0, 0}},
        {"MaxPool-1/8 XML explicit 1x3x32x32 k2 s2 pads 1 -> 17x17",
         desc_of({1, 3, 32, 32}, {2, 2}, {2, 2}, {1, 1}, {1, 1}, AutoPad::explicit_pads), {17, 17}, {1, 1}, {1, 1}},
        {"MaxPool-1/8 XML valid 1x3x32x32 k2 s2 -> 16x16",
         desc_of({1, 3, 32, 32}, {2, 2}, {2, 2}, {1, 1}, {1, 1}, AutoPad::valid), {16, 16}, {0, 0}, {0, 0}},
        {"AdaptiveMaxPool XML input, as MaxPool same_lower k2 s2 nxc -> 16x16",
         desc_of({1, 3, 32, 32}, {2, 2}, {2, 2}, {}, {}, AutoPad::same_lower, pj::Rounding::floor, pj::Layout::nxc),
         {16, 16}, {0, 0}, {0, 0}},
        {"ONNX 1d_default 1x3x32 k2 -> 31", desc_of({1, 3, 32}, {2}, {}, {}, {}, AutoPad::explicit_pads), {31}, {0}, {0}},
        {"ONNX 2d_default 1x3x32x32 k2 -> 31x31",
         desc_of({1, 3, 32, 32}, {2, 2}, {}, {}, {}, AutoPad::explicit_pads), {31, 31}, {0, 0}, {0, 0}},
        {"ONNX 3d_default 1x3x32x32x32 k2 -> 31x31x31",
         desc_of({1, 3, 32, 32, 32}, {2, 2, 2}, {}, {}, {}, AutoPad::explicit_pads), {31, 31, 31}, {0, 0, 0}, {0, 0, 0}},
        {"ONNX 2d_same_upper 1x3x32x32 k2 -> 32x32 pads [0,0,1,1]",
         desc_of({1, 3, 32, 32}, {2, 2}, {}, {}, {}, AutoPad::same_upper), {32, 32}, {0, 0}, {1, 1}},
        {"ONNX 2d_same_lower 1x3x32x32 k2 -> 32x32 pads [1,1,0,0]",
         desc_of({1, 3, 32, 32}, {2, 2}, {}, {}, {}, AutoPad::same_lower), {32, 32}, {1, 1}, {0, 0}},
        {"ONNX 2d_pads 1x3x28x28 k3 pads 2 -> 30x30",
         desc_of({1, 3, 28, 28}, {3, 3}, {}, {2, 2}, {2, 2}, AutoPad::explicit_pads), {30, 30}, {2, 2}, {2, 2}},
        {"ONNX 2d_strides 1x3x32x32 k5 s3 -> 10x10 (27/3+1)",
         desc_of({1, 3, 32, 32}, {5, 5}, {3, 3}, {}, {}, AutoPad::explicit_pads), {10, 10}, {0, 0}, {0, 0}},
        {"ONNX precomputed_same_upper 1x1x5x5 k3 s2 -> 3x3 pads 1",
         desc_of({1, 1, 5, 5}, {3, 3}, {2, 2}, {}, {}, AutoPad::same_upper), {3, 3}, {1, 1}, {1, 1}},
        {"ONNX 2d_ceil 1x1x4x4 k3 s2 ceil_mode -> 2x2",
         desc_of({1, 1, 4, 4}, {3, 3}, {2, 2}, {}, {}, AutoPad::explicit_pads, pj::Rounding::ceil_torch), {2, 2}, {0, 0},
         {0, 0}},
        {"ONNX 1x1x3 k4 s2 ceil_mode -> 1 (ceil((3-4)/2)+1)",
         desc_of({1, 1, 3}, {4}, {2}, {}, {}, AutoPad::explicit_pads, pj::Rounding::ceil_torch), {1}, {0}, {0}},
        {"The ONNX example as OpenVINO ceil, valid 1x1x3 k4 s2 -> 1",
         desc_of({1, 1, 3}, {4}, {2}, {}, {}, AutoPad::valid, pj::Rounding::ceil), {1}, {0}, {0}},
        {"ONNX 2d_uint8 1x1x5x5 k5 pads 2 -> 5x5",
         desc_of({1, 1, 5, 5}, {5, 5}, {}, {2, 2}, {2, 2}, AutoPad::explicit_pads), {5, 5}, {2, 2}, {2, 2}},
        {"3-D mixed: D floor k2 s1, H ceil_torch in5 k2 s2 p1/1 -> 3, W in2 k1 s2 -> 1",
         desc_of({2, 4, 3, 5, 2}, {2, 2, 1}, {1, 2, 2}, {0, 1, 0}, {0, 1, 0}, AutoPad::explicit_pads,
                 pj::Rounding::ceil_torch),
         {2, 3, 1}, {0, 1, 0}, {0, 1, 0}},
        {"3-D same as above with ceil: H -> 4, W -> 2",
         desc_of({2, 4, 3, 5, 2}, {2, 2, 1}, {1, 2, 2}, {0, 1, 0}, {0, 1, 0}, AutoPad::explicit_pads, pj::Rounding::ceil),
         {2, 4, 2}, {0, 1, 0}, {0, 1, 0}},
    };
    for (const WholeCase& c : cases) {
        SCOPED_TRACE(c.source);
        std::vector<AxisExpectation> expect;
        for (std::size_t i = 0; i < c.out.size(); ++i) {
            const std::int64_t s = c.desc.strides.empty() ? 1 : c.desc.strides[i];
            expect.push_back({c.desc.src.dims[i + 2], c.desc.kernel[i], s, 1, c.out[i], c.pb[i], c.pe[i]});
        }
        check_desc(c.desc, expect);
    }
}

TEST(Shapes, EmptyAttributeVectorsMeanDefaults) {
    pj::MaxPoolDesc d = desc_of({1, 2, 6, 5}, {3, 2}, {}, {}, {}, pj::AutoPad::explicit_pads);
    // strides 1, dilations 1, pads 0: out = (6-3)/1+1 = 4, (5-2)/1+1 = 4
    check_desc(d, {{6, 3, 1, 1, 4, 0, 0}, {5, 2, 1, 1, 4, 0, 0}});
}

TEST(Shapes, BatchAndChannelsZeroKeepShapes) {
    for (std::int64_t n : {0, 1}) {
        pj::MaxPoolDesc d = desc_of({n, 1 - n, 5}, {2}, {2}, {1}, {1}, pj::AutoPad::explicit_pads, pj::Rounding::ceil);
        // P=7, ek=2: ceil(5/2)+1 = 4
        check_desc(d, {{5, 2, 2, 1, 4, 1, 1}});
    }
}

TEST(Shapes, IndicesDescFollowsDstAndAxisIsNormalized) {
    pj::MaxPoolDesc d = desc_of({2, 3, 5, 4}, {2, 2}, {2, 2}, {}, {}, pj::AutoPad::explicit_pads, pj::Rounding::floor,
                                pj::Layout::nxc);
    for (pj::DType idx : {pj::DType::s32, pj::DType::s64})
        for (std::int64_t axis = -4; axis <= 3; ++axis) {
            SCOPED_TRACE("axis " + std::to_string(axis));
            d.indices = pj::IndexSpec{idx, axis, pj::StorageOrder::row_major};
            check_desc(d, {{5, 2, 2, 1, 2, 0, 0}, {4, 2, 2, 1, 2, 0, 0}});  // (5-2)/2+1 = 2, (4-2)/2+1 = 2
            const pj::Problem p = pj::resolve(d);
            EXPECT_TRUE(p.has_indices);
            EXPECT_EQ(p.index_dtype, idx);
            EXPECT_EQ(p.axis, axis < 0 ? axis + 4 : axis);
            // prod(dims[axis:]) of {2, 3, 5, 4}
            const std::int64_t modulus[] = {120, 60, 20, 4};
            EXPECT_EQ(p.index_modulus(), modulus[p.axis]);
        }
}

// AdaptiveMaxPool: dst dims are {N, C, output_size...}; kernel, stride, dilation and pads stay neutral.
TEST(Shapes, AdaptiveMaxPool) {
    struct Case {
        std::vector<std::int64_t> src;
        std::vector<std::int64_t> output_size;
        const char* why;
    };
    const Case cases[] = {
        {{1, 3, 32, 32}, {16, 16}, "specs/001 XML example"},
        {{1, 2, 5}, {3}, "1-D"},
        {{1, 1, 3}, {5}, "output larger than input"},
        {{2, 4, 5, 7}, {2, 3}, "2-D"},
        {{1, 1, 2, 3, 2}, {1, 2, 1}, "3-D"},
        {{3, 2, 4, 4, 4}, {7, 1, 4}, "3-D, mixed up/down"},
        {{0, 3, 8}, {2}, "N = 0"},
        {{2, 0, 8, 8}, {3, 3}, "C = 0"},
    };
    for (const Case& c : cases)
        for (pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc})
            for (const std::optional<pj::DType>& idx : {std::optional<pj::DType>{}, std::optional<pj::DType>{pj::DType::s32},
                                                       std::optional<pj::DType>{pj::DType::s64}}) {
                SCOPED_TRACE(c.why);
                const pj::AdaptiveMaxPoolDesc d{{pj::DType::f32, layout, c.src}, c.output_size, idx};
                SCOPED_TRACE(pj::to_string(d));
                pj::Problem p;
                ASSERT_NO_THROW(p = pj::resolve(d));
                EXPECT_EQ(p.op, pj::OpKind::adaptive_max_pool);
                const auto rank = c.output_size.size();
                EXPECT_EQ(p.spatial_rank, static_cast<int>(rank));
                EXPECT_EQ(p.batch, c.src[0]);
                EXPECT_EQ(p.channels, c.src[1]);
                for (std::size_t i = 0; i < 3; ++i) {
                    EXPECT_EQ(p.in[i], i < rank ? c.src[i + 2] : 1) << i;
                    EXPECT_EQ(p.out[i], i < rank ? c.output_size[i] : 1) << i;
                    EXPECT_EQ(p.kernel[i], 1) << i;
                    EXPECT_EQ(p.stride[i], 1) << i;
                    EXPECT_EQ(p.dilation[i], 1) << i;
                    EXPECT_EQ(p.pad_begin[i], 0) << i;
                    EXPECT_EQ(p.pad_end[i], 0) << i;
                }
                EXPECT_EQ(p.has_indices, idx.has_value());
                std::vector<std::int64_t> dst{c.src[0], c.src[1]};
                dst.insert(dst.end(), c.output_size.begin(), c.output_size.end());
                pj::Primitive prim;
                ASSERT_NO_THROW(prim = pj::Primitive::create(d));
                EXPECT_EQ(prim.dst_desc(), (pj::TensorDesc{pj::DType::f32, layout, dst}));
                EXPECT_EQ(prim.has_indices(), idx.has_value());
                if (idx) {
                    EXPECT_EQ(prim.indices_desc(), (pj::TensorDesc{*idx, layout, dst}));
                } else {
                    EXPECT_TRUE(prim.indices_desc().dims.empty());
                }
            }
}

}  // namespace
