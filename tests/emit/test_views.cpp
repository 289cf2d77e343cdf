// Views and blocked layouts through the reference and through generated code (DESIGN.md section 2, "Views and
// blocked layouts"). Each problem is run as a set of views of the same logical tensors: dense ncx and nxc, a
// channel slice of a concat buffer (also one that starts at channel C), a row pitch, a batch stride, PyTorch's
// channels_last (ncx dims, nxc strides), every element 2 apart, a source broadcast along C, nCx8c / nCx16c with
// C not a multiple of the block (and nCx16c of whole blocks), and indices with strides of their own.
//  - The reference on a view is checked against the reference on a dense ncx copy of the view's elements: the
//    dense reference is the one the spec examples check (test_spec_examples, test_reference), so this is what
//    ties the view addressing to the semantics.
//  - Generated code on a view is checked against the reference on the same view, for a curated list of problems
//    that reach the planner's strategies, on each ISA the CPU has (skipped by name otherwise), on 1 and 3
//    threads, with adversarial and tie data.
//  - Guard pages around each view's extent: nothing is read or written before its first element or past its last.
//  - SPPF in place: three pools chained through channel slices of one concat buffer.
// Every output buffer starts poisoned: an element the run forgot differs, and the bytes of a view's gaps (and of
// the other slices before a slice's first element) must keep their poison.
#include "casegen/casegen.hpp"
#include "jit/isa/isa.hpp"
#include "jit/plan/plan.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"
#include "support/cpu_isas.hpp"
#include "support/guarded_buffer.hpp"
#include "support/isa_cap.hpp"
#include "support/tensor_util.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pj = pooljit;
namespace jit = pooljit::jit;

namespace {

using Dims = std::vector<std::int64_t>;
using pooljit::test::GuardedBuffer;
using pooljit::test::GuardSide;

// ---- views of a problem -----------------------------------------------------------------------------------

enum class ViewKind {
    dense_ncx,
    dense_nxc,
    nxc_slice,          // channels [0, C) of an nxc buffer of 4C channels
    nxc_slice_at_c,     // channels [C, 2C) of it: the pointers passed are C elements into the buffers
    ncx_row_pitch,      // ncx rows of width + 3 elements (1-D: planes of width + 3)
    batch_stride,       // the line's layout, images further apart than dense
    channels_last_ncx,  // ncx-tagged, with the strides of dense nxc (PyTorch channels_last)
    apart,              // the line's layout with every stride doubled: neither channels nor width consecutive
    broadcast_c,        // the line's layout, the source's channel stride 0 (every channel reads channel 0)
    blocked8,           // nCx8c, C not a multiple of 8, images further apart than dense
    blocked16,          // nCx16c, likewise
    blocked16_whole,    // nCx16c with C a multiple of 16 (no padded lanes; calls may sweep inside a block)
    own_indices,        // indices in a buffer wider than dst's (nxc: 2C channels; ncx: a row pitch of 2)
};

constexpr ViewKind all_views[] = {ViewKind::dense_ncx,   ViewKind::dense_nxc,         ViewKind::nxc_slice,
                                  ViewKind::nxc_slice_at_c, ViewKind::ncx_row_pitch, ViewKind::batch_stride,
                                  ViewKind::channels_last_ncx, ViewKind::apart,      ViewKind::broadcast_c,
                                  ViewKind::blocked8,    ViewKind::blocked16,         ViewKind::blocked16_whole,
                                  ViewKind::own_indices};

const char* name_of(ViewKind kind) {
    switch (kind) {
        case ViewKind::dense_ncx: return "dense ncx";
        case ViewKind::dense_nxc: return "dense nxc";
        case ViewKind::nxc_slice: return "nxc slice of 4C";
        case ViewKind::nxc_slice_at_c: return "nxc slice of 4C from channel C";
        case ViewKind::ncx_row_pitch: return "ncx row pitch";
        case ViewKind::batch_stride: return "batch stride";
        case ViewKind::channels_last_ncx: return "ncx with channels_last strides";
        case ViewKind::apart: return "every element 2 apart";
        case ViewKind::broadcast_c: return "src broadcast along C";
        case ViewKind::blocked8: return "nCx8c";
        case ViewKind::blocked16: return "nCx16c";
        case ViewKind::blocked16_whole: return "nCx16c of whole blocks";
        case ViewKind::own_indices: return "indices with strides of their own";
    }
    return "?";
}

// A descriptor whose tensors are views, and how many elements of other data sit before each view's first
// element in its buffer (the same for src, dst and indices).
struct View {
    pj::AnyPoolDesc desc;
    std::int64_t lead = 0;
    std::string name;
};

bool has_indices(const pj::MaxPoolDesc& d) { return d.indices.has_value(); }
bool has_indices(const pj::AdaptiveMaxPoolDesc& d) { return d.index_dtype.has_value(); }

Dims with(Dims dims, std::size_t axis, std::int64_t value) {
    dims[axis] = value;
    return dims;
}

Dims doubled(Dims strides) {
    for (std::int64_t& s : strides) s *= 2;
    return strides;
}

// The problem of `base` seen through a view of `kind`; nullopt for indices strides on a problem without indices.
// Blocked views and the batch stride take at least 2 images (a batch stride of one image is never stepped), and
// blocked views a C that is not a multiple of the block (3 more channels where it is), except blocked16_whole,
// whose C is rounded up to whole blocks.
std::optional<View> make_view(const pj::AnyPoolDesc& base, ViewKind kind) {
    using enum ViewKind;
    return std::visit(
        [&](auto d) -> std::optional<View> {
            if (kind == own_indices && !has_indices(d)) return std::nullopt;
            pj::TensorDesc& src = d.src;
            const pj::Layout line_layout = src.layout;
            const std::int64_t block = kind == blocked8 ? 8 : kind == blocked16 || kind == blocked16_whole ? 16 : 1;
            if (kind == batch_stride || block > 1) src.dims[0] = std::max<std::int64_t>(src.dims[0], 2);
            if (kind == blocked16_whole) src.dims[1] = (src.dims[1] + block - 1) / block * block;
            else if (block > 1 && src.dims[1] % block == 0) src.dims[1] += 3;
            if (kind == dense_ncx || kind == ncx_row_pitch || kind == channels_last_ncx) src.layout = pj::Layout::ncx;
            if (kind == dense_nxc || kind == nxc_slice || kind == nxc_slice_at_c) src.layout = pj::Layout::nxc;
            if (kind == blocked8) src.layout = pj::Layout::nCx8c;
            if (kind == blocked16 || kind == blocked16_whole) src.layout = pj::Layout::nCx16c;
            const pj::Problem p = pj::resolve(d);
            const Dims in = src.dims;
            Dims out{p.batch, p.channels};
            for (int a = 0; a < p.spatial_rank; ++a) out.push_back(p.out[static_cast<std::size_t>(a)]);
            const std::size_t w = in.size() - 1;
            const std::int64_t C = p.channels;
            const auto dense = [&](pj::Layout layout, const Dims& dims) {
                return pj::strides_of({src.dtype, layout, dims});
            };
            View v;
            switch (kind) {
                case dense_ncx:
                case dense_nxc: break;
                case nxc_slice:
                case nxc_slice_at_c:
                    src.strides = dense(pj::Layout::nxc, with(in, 1, 4 * C));
                    d.dst_strides = dense(pj::Layout::nxc, with(out, 1, 4 * C));
                    if (kind == nxc_slice_at_c) v.lead = C;
                    break;
                case ncx_row_pitch:
                    src.strides = dense(pj::Layout::ncx, with(in, w, in[w] + 3));
                    d.dst_strides = dense(pj::Layout::ncx, with(out, w, out[w] + 3));
                    break;
                case batch_stride:
                case blocked8:
                case blocked16:
                case blocked16_whole:
                    src.strides = dense(src.layout, in);
                    src.strides[0] += 7;
                    d.dst_strides = dense(src.layout, out);
                    d.dst_strides[0] += 5;
                    break;
                case channels_last_ncx:
                    src.strides = dense(pj::Layout::nxc, in);
                    d.dst_strides = dense(pj::Layout::nxc, out);
                    break;
                case apart:
                    src.strides = doubled(dense(line_layout, in));
                    d.dst_strides = doubled(dense(line_layout, out));
                    break;
                case broadcast_c:
                    src.strides = dense(line_layout, in);
                    src.strides[1] = 0;
                    break;
                case own_indices:
                    d.indices_strides = line_layout == pj::Layout::nxc ? dense(pj::Layout::nxc, with(out, 1, 2 * C))
                                                                       : dense(pj::Layout::ncx, with(out, w, out[w] + 2));
                    d.indices_strides[0] += 3;
                    break;
            }
            v.desc = d;
            v.name = name_of(kind);
            return v;
        },
        base);
}

// ---- buffers ------------------------------------------------------------------------------------------------

// A tensor's buffer: `lead` elements of other data, then the view's extent.
struct Buffer {
    std::vector<std::uint8_t> bytes;
    std::size_t lead_bytes = 0;
    std::uint8_t* view() { return bytes.data() + lead_bytes; }
    const std::uint8_t* view() const { return bytes.data() + lead_bytes; }
};

std::size_t elem_of(const pj::TensorDesc& t) { return pj::size_of(t.dtype); }

Buffer output_buffer(const pj::TensorDesc& t, std::int64_t lead, std::uint8_t poison) {
    const std::size_t lead_bytes = static_cast<std::size_t>(lead) * elem_of(t);
    return {std::vector<std::uint8_t>(lead_bytes + pj::casegen::byte_size(t), poison), lead_bytes};
}

// The source: random bytes in the lead (other slices' data, which a correct run never reads), then `data`.
Buffer source_buffer(const pj::TensorDesc& t, std::int64_t lead, const std::vector<std::uint8_t>& data) {
    Buffer b = output_buffer(t, lead, 0);
    std::mt19937_64 rng(data.size());
    for (std::size_t i = 0; i < b.lead_bytes; ++i) b.bytes[i] = static_cast<std::uint8_t>(rng());
    std::copy(data.begin(), data.end(), b.view());
    return b;
}

// No byte outside the view's elements (and a block's padded lanes) changed from its poison: neither a gap nor
// the lead before its first element.
void expect_only_elements_written(const pj::TensorDesc& t, const Buffer& b, std::uint8_t poison, const std::string& what) {
    if (const auto gap = pj::casegen::first_gap_write(t, b.view(), poison))
        ADD_FAILURE() << what << " wrote byte " << *gap << " of the view's extent, in a gap";
    for (std::size_t i = 0; i < b.lead_bytes; ++i)
        if (b.bytes[i] != poison) {
            ADD_FAILURE() << what << " wrote byte " << i << " of the " << b.lead_bytes
                          << " bytes before the view's first element (another slice)";
            break;
        }
}

// Elements (and a block's padded lanes) bit for bit, and no write outside them by either run.
void expect_same_outputs(const pj::TensorDesc& t, const Buffer& got, const Buffer& want, std::uint8_t got_poison,
                         std::uint8_t want_poison, const std::string& what) {
    if (const auto d = pj::casegen::first_difference(t, got.view(), want.view()))
        ADD_FAILURE() << what << " differ at element " << d->element << " (N, C, spatial " << pooljit::test::dims_string(d->coordinates)
                      << "): got " << d->got << " (" << d->got_value << "), want " << d->want << " (" << d->want_value
                      << ")";
    expect_only_elements_written(t, got, got_poison, what + ": the run");
    expect_only_elements_written(t, want, want_poison, what + ": the reference");
}

std::vector<std::pair<const char*, std::vector<std::uint8_t>>> data_kinds(const pj::TensorDesc& src, std::uint64_t seed) {
    return {{"adversarial data", pj::casegen::adversarial_data(src, seed)},
            {"tie data", pj::casegen::tie_data(src, seed)}};
}

// ---- a. the reference on views against the reference on dense copies ------------------------------------------

// Each op, ranks 1 to 3, integer and float types, s32 and s64 indices with axis 0 and 1 and column-major order,
// ceil and ceil_torch rounding, same_upper, pads beyond the kernel (empty windows), dilation, NaN ignore.
const char* const reference_problems[] = {
    "maxpool dt=f32 layout=ncx src=2x5x6x7 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil idx=s64",
    "maxpool dt=s8 layout=nxc src=2x9x11 k=4 s=3 d=2 pb=2 pe=3 round=ceil_torch idx=s32 axis=1",
    "maxpool dt=bf16 layout=ncx src=1x6x4x5x6 k=2x3x2 s=2x1x2 d=2x1x1 pb=1x1x0 pe=0x1x1 idx=s64 order=col",
    "maxpool dt=f64 layout=nxc src=2x3x7x6 k=2x2 s=1x2 pb=0x1 pe=1x1 nan=ignore idx=s32 axis=1",
    "maxpool dt=u8 layout=ncx src=1x4x9 k=3 s=2 pad=same_upper",
    "maxpool dt=f16 layout=nxc src=1x3x5x5 k=3x3 pb=3x3 pe=3x3 idx=s64",
    "maxpool dt=s64 layout=ncx src=2x17x4x6 k=2x3 s=2x1 d=1x2 pb=1x2 pe=0x1 idx=s32 order=col",
    "maxpool dt=s32 layout=nxc src=1x18x3x4x5 k=2x2x2 s=1x2x2 pb=1x0x1 pe=0x1x0 idx=s64 axis=1",
    "adaptivemaxpool dt=f32 layout=ncx src=2x5x7x9 out=3x4 idx=s64",
    "adaptivemaxpool dt=s32 layout=nxc src=1x4x10 out=4 idx=s32",
    "adaptivemaxpool dt=bf16 layout=ncx src=1x3x3x4x5 out=2x5x3",
};

// The offsets of a blocked tensor's padded lanes (channels C to the next multiple of the block), in elements.
std::vector<std::int64_t> padded_lane_offsets(const pj::TensorDesc& t) {
    const std::int64_t block = pj::channel_block_of(t.layout);
    std::vector<std::int64_t> offsets;
    if (block == 1) return offsets;
    const Dims s = pj::strides_of(t);
    const std::int64_t padded = (t.dims[1] + block - 1) / block * block;
    Dims at(t.dims.size() - 2, 0);
    for (std::int64_t n = 0; n < t.dims[0]; ++n)
        for (std::int64_t c = t.dims[1]; c < padded; ++c)
            for (bool more = true; more;) {
                std::int64_t offset = n * s[0] + c / block * s[1] + c % block;
                for (std::size_t a = 0; a < at.size(); ++a) offset += at[a] * s[2 + a];
                offsets.push_back(offset);
                std::size_t a = at.size();
                more = false;
                while (a-- > 0)
                    if (++at[a] < t.dims[2 + a]) {
                        more = true;
                        break;
                    } else {
                        at[a] = 0;
                    }
            }
    return offsets;
}

// The view's elements, in logical order, equal the dense run's (dense ncx: logical order is memory order).
void expect_elements_equal_dense(const pj::TensorDesc& view, const Buffer& got, const std::vector<std::uint8_t>& dense,
                                 const std::string& what) {
    const std::size_t elem = elem_of(view);
    const std::vector<std::int64_t> offsets = pj::casegen::element_offsets(view);
    ASSERT_EQ(offsets.size() * elem, dense.size()) << what;
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        const std::uint8_t* at = got.view() + static_cast<std::size_t>(offsets[i]) * elem;
        if (!std::equal(at, at + elem, dense.data() + i * elem)) {
            ADD_FAILURE() << what << ": logical element " << i << " (offset " << offsets[i] << ") is "
                          << pj::casegen::element_value(view.dtype, at) << ", the dense run's "
                          << pj::casegen::element_value(view.dtype, dense.data() + i * elem);
            return;
        }
    }
    for (const std::int64_t offset : padded_lane_offsets(view)) {
        const std::uint8_t* at = got.view() + static_cast<std::size_t>(offset) * elem;
        if (std::any_of(at, at + elem, [](std::uint8_t b) { return b != 0; })) {
            ADD_FAILURE() << what << ": the padded lane at offset " << offset << " is not 0";
            return;
        }
    }
}

void check_reference_view(const View& v) {
    const pj::Problem pv = std::visit([](const auto& d) { return pj::resolve(d); }, v.desc);
    // The dense twin: the same attributes over dense ncx tensors of the same logical dims.
    const pj::AnyPoolDesc dense_desc = std::visit(
        [](auto d) -> pj::AnyPoolDesc {
            d.src.layout = pj::Layout::ncx;
            d.src.strides.clear();
            d.dst_strides.clear();
            d.indices_strides.clear();
            return d;
        },
        v.desc);
    const pj::Problem pd = std::visit([](const auto& d) { return pj::resolve(d); }, dense_desc);
    const pj::TensorDesc src = pv.src_desc(), dst = pv.dst_desc(), idx = pv.indices_desc();
    const std::size_t elem = elem_of(src);
    for (const auto& [data_name, data] : data_kinds(src, std::hash<std::string>{}(pj::to_string(v.desc)))) {
        SCOPED_TRACE(data_name);
        const Buffer in = source_buffer(src, v.lead, data);
        std::vector<std::uint8_t> dense_src;
        for (const std::int64_t offset : pj::casegen::element_offsets(src)) {
            const std::uint8_t* at = in.view() + static_cast<std::size_t>(offset) * elem;
            dense_src.insert(dense_src.end(), at, at + elem);
        }
        std::vector<std::uint8_t> dense_dst(pj::casegen::byte_size(pd.dst_desc()), 0x5A);
        std::vector<std::uint8_t> dense_idx(pd.has_indices ? pj::casegen::byte_size(pd.indices_desc()) : 0, 0x5A);
        pj::reference::execute(pd, dense_src.data(), dense_dst.data(), pd.has_indices ? dense_idx.data() : nullptr);
        Buffer out = output_buffer(dst, v.lead, 0xA5);
        Buffer out_idx = pv.has_indices ? output_buffer(idx, v.lead, 0xA5) : Buffer{};
        pj::reference::execute(pv, in.view(), out.view(), pv.has_indices ? out_idx.view() : nullptr);
        expect_elements_equal_dense(dst, out, dense_dst, "values");
        expect_only_elements_written(dst, out, 0xA5, "the reference's values");
        if (pv.has_indices) {
            expect_elements_equal_dense(idx, out_idx, dense_idx, "indices");
            expect_only_elements_written(idx, out_idx, 0xA5, "the reference's indices");
        }
    }
}

class ReferenceViews : public ::testing::TestWithParam<const char*> {};

TEST_P(ReferenceViews, EqualTheDenseReferenceElementByElement) {
    const pj::AnyPoolDesc base = pj::parse_problem(GetParam());
    for (const ViewKind kind : all_views) {
        const std::optional<View> v = make_view(base, kind);
        if (!v) continue;
        SCOPED_TRACE(v->name + ": " + pj::to_string(v->desc));
        check_reference_view(*v);
    }
}

INSTANTIATE_TEST_SUITE_P(Problems, ReferenceViews, ::testing::ValuesIn(reference_problems),
                         [](const auto& problem) { return "p" + std::to_string(problem.index); });

// ---- b. generated code on views against the reference ----------------------------------------------------------

// Problems whose dense form reaches a strategy of the planner (the names say which, on AVX-512 / AVX2); each view
// then keeps it or sends the problem to the code its memory allows.
struct Curated {
    const char* name;
    const char* line;
};

const Curated curated[] = {
    {"stem_like_nxc", "maxpool dt=f32 layout=nxc src=2x64x56x56 k=3x3 s=2x2 pb=1x1 pe=1x1"},
    {"planar_rows_chunked_prefetch", "maxpool dt=f32 layout=ncx src=1x8x60x64 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s32"},
    {"planar_rows_s1_masked_ring_indices", "maxpool dt=f32 layout=ncx src=2x5x7x40 k=3x3 pb=1x1 pe=1x1 idx=s64"},
    {"planar_rows_s2_paired_lanes", "maxpool dt=f32 layout=ncx src=1x5x9x41 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil_torch idx=s32"},
    {"global_pool_whole_plane", "maxpool dt=f32 layout=ncx src=2x5x7x7 k=7x7 idx=s64"},
    {"adaptive_one_bin_whole_plane", "adaptivemaxpool dt=f64 layout=ncx src=1x5x9x11 out=1x1"},
    {"planes_in_registers_or_stacked", "maxpool dt=f32 layout=ncx src=2x5x14x14 k=2x2 s=2x2"},
    {"planes_in_registers_dilated_indices", "maxpool dt=s32 layout=ncx src=1x3x9x11 k=3x3 s=2x2 d=1x2 pb=1x2 pe=2x1 round=ceil idx=s64 axis=1"},
    {"separable_rows_s1", "maxpool dt=f32 layout=ncx src=1x3x21x70 k=3x3"},
    {"separable_rows_s2", "maxpool dt=f32 layout=ncx src=1x3x29x57 k=3x3 s=2x2 pb=1x1 pe=1x1"},
    {"row_ring_or_separable", "maxpool dt=f32 layout=ncx src=2x3x20x20 k=5x5 pb=2x2 pe=2x2"},
    {"row_ring_indices_bf16", "maxpool dt=bf16 layout=ncx src=1x3x16x28 k=3x3 pb=1x1 pe=1x1 idx=s32 axis=1 nan=ignore"},
    {"channels_last_tail_watch", "maxpool dt=f32 layout=nxc src=2x19x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
    {"column_ring_tail", "maxpool dt=f32 layout=nxc src=2x70x12x9 k=3x3 pb=1x1 pe=1x1"},
    {"column_ring_or_separable_pixels", "maxpool dt=f32 layout=nxc src=2x32x12x11 k=5x5 pb=2x2 pe=2x2"},
    {"channel_sweep", "maxpool dt=f32 layout=nxc src=2x200x7x9 k=2x2 s=2x2 pb=0x1 pe=1x0"},
    {"tap_passes", "maxpool dt=f32 layout=nxc src=1x600x4x13 k=3x5 s=2x4 pb=3x6 pe=3x6 round=ceil"},
    {"byte_lanes_u8", "maxpool dt=u8 layout=nxc src=2x70x9x9 k=3x3 s=2x2 pb=1x1 pe=1x1"},
    {"s8_column_ring_indices", "maxpool dt=s8 layout=nxc src=1x33x10x12 k=3x3 d=1x2 pb=1x2 pe=1x2 idx=s64 nan=ignore"},
    {"bf16_widened_pairs", "maxpool dt=bf16 layout=nxc src=2x25x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
    {"f16_planar_indices", "maxpool dt=f16 layout=ncx src=1x3x9x27 k=3x3 pb=1x1 pe=1x1 idx=s64 axis=1"},
    {"f64_dilated_column_major", "maxpool dt=f64 layout=nxc src=1x24x8x11 k=3x3 s=2x2 d=2x2 pb=2x2 pe=2x2 idx=s32 order=col"},
    {"s64_ceil", "maxpool dt=s64 layout=ncx src=2x3x10x12 k=3x2 s=2x1 pb=1x0 pe=1x1 round=ceil idx=s32"},
    {"adaptive_nxc_indices", "adaptivemaxpool dt=f32 layout=nxc src=1x24x13x13 out=6x6 idx=s64"},
    {"adaptive_taps_as_lanes", "adaptivemaxpool dt=s32 layout=ncx src=2x3x13x70 out=6x20 idx=s32"},
    {"nxc_3d_indices", "maxpool dt=f32 layout=nxc src=1x20x5x6x7 k=2x2x2 s=1x2x2 pb=1x0x1 pe=0x1x0 idx=s64"},
    {"ncx_3d_f16", "maxpool dt=f16 layout=ncx src=1x2x5x8x70 k=2x2x3 s=2x1x2 pb=0x1x1 pe=1x0x1"},
    {"long_row_1d", "maxpool dt=f32 layout=ncx src=1x3x300 k=3 s=2 pb=1 pe=1"},
    {"width_ranges_1d_indices", "maxpool dt=bf16 layout=nxc src=1x20x300 k=3 s=2 pb=1 pe=1 idx=s32"},
    {"looped_width_taps_1d", "maxpool dt=f32 layout=ncx src=1x3x260 k=200"},
    // 1-D planes are single rows: a channel pitch keeps them one span each (whole planes, planes in registers).
    {"global_pool_1d_whole_plane", "maxpool dt=f32 layout=ncx src=2x3x37 k=37 idx=s32"},
    {"byte_planes_full_and_short_group", "maxpool dt=u8 layout=ncx src=2x70x7x7 k=7x7"},
    {"byte_planes_s8_1d", "maxpool dt=s8 layout=ncx src=2x40x100 k=100"},
    // Windows one plane deep: planned and run as 2-D planes of C x D channels where the views keep channels D
    // planes apart (dense, batch stride, row pitch, every stride doubled), as 3-D rows where they do not.
    {"one_plane_deep_u8", "maxpool dt=u8 layout=ncx src=2x5x3x20x22 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1"},
    {"one_plane_deep_adaptive_bf16", "adaptivemaxpool dt=bf16 layout=ncx src=2x3x4x9x13 out=4x3x5"},
    {"planes_in_registers_1d", "maxpool dt=f32 layout=ncx src=2x3x37 k=3 s=3 idx=s64"},
    // Planes in registers over a row pitch load and store a row's piece of a register at a time (AVX-512): each
    // type's loads (bf16 widened, f16's exact copy of raw bits, bytes in byte lanes) and 3-D planes.
    {"planes_in_registers_bf16", "maxpool dt=bf16 layout=ncx src=1x5x14x14 k=2x2 s=2x2"},
    {"planes_in_registers_f16", "maxpool dt=f16 layout=ncx src=1x4x13x13 k=3x3 s=2x2 pb=1x1 pe=1x1"},
    {"byte_planes_in_registers_u8", "adaptivemaxpool dt=u8 layout=ncx src=1x5x13x13 out=7x7"},
    {"planes_in_registers_3d", "maxpool dt=f32 layout=ncx src=1x3x4x6x6 k=2x2x2 s=2x2x2"},
    {"planes_in_registers_3d_s8", "maxpool dt=s8 layout=ncx src=1x3x4x10x10 k=2x3x3 s=2x2x2 pb=0x1x1 pe=1x1x1"},
    {"planes_in_registers_f64_indices", "maxpool dt=f64 layout=ncx src=2x3x9x9 k=3x3 s=2x2 idx=s32"},
    // Blocked bytes at stride 2 in whole blocks (nCx16c of whole blocks): several pixels a vector, the row's ends
    // under pixel masks (blocked_byte_pixels); 2-D and 1-D.
    {"blocked_pixels_u8", "maxpool dt=u8 layout=nxc src=2x32x9x13 k=3x3 s=2x2 pb=1x1 pe=1x1"},
    {"blocked_pixels_s8_1d", "maxpool dt=s8 layout=nxc src=2x16x41 k=3 s=2 pb=1 pe=2 round=ceil"},
};

struct RunCase {
    std::size_t problem;
    jit::Isa isa;
};

void PrintTo(const RunCase& c, std::ostream* os) { *os << curated[c.problem].name << " on " << jit::to_string(c.isa); }

std::vector<RunCase> run_cases() {
    std::vector<RunCase> cases;
    for (std::size_t i = 0; i < std::size(curated); ++i)
        for (const jit::Isa isa : pj::test::jit_isas) cases.push_back({i, isa});
    return cases;
}

std::string case_name(const ::testing::TestParamInfo<RunCase>& info) {
    return std::string(curated[info.param.problem].name) + "_" + jit::to_string(info.param.isa);
}

// Creates the view's primitive under POOLJIT_MAX_ISA = isa: served by jit:isa, no demotion.
pj::Primitive create_on(const View& v, jit::Isa isa) {
    const pj::test::IsaCap cap(jit::to_string(isa));
    pj::Primitive p = pj::create(v.desc, pj::test::choice_for(isa));
    EXPECT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa));
    return p;
}

class ViewsJit : public ::testing::TestWithParam<RunCase> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam().isa); }
    void TearDown() override { pj::set_num_threads(0); }
};

// Each view, each data kind: the reference once, then the generated code on 1 thread and split as the executor
// splits it for 3 threads, however small the problem (the public API runs problems this small on one thread).
TEST_P(ViewsJit, EveryViewMatchesTheReference) {
    const jit::Isa isa = GetParam().isa;
    const pj::AnyPoolDesc base = pj::parse_problem(curated[GetParam().problem].line);
    for (const ViewKind kind : all_views) {
        const std::optional<View> v = make_view(base, kind);
        if (!v) continue;
        SCOPED_TRACE(v->name + ": " + pj::to_string(v->desc));
        const pj::Primitive p = create_on(*v, isa);
        const pj::Problem& pr = p.problem();
        const pj::TensorDesc src = pr.src_desc(), dst = pr.dst_desc(), idx = pr.indices_desc();
        const auto impl = pj::detail::choose_implementation(pr, isa, pj::test::choice_for(isa));
        for (const auto& [data_name, data] : data_kinds(src, std::hash<std::string>{}(pj::to_string(v->desc)))) {
            const Buffer in = source_buffer(src, v->lead, data);
            Buffer want = output_buffer(dst, v->lead, 0x5A);
            Buffer want_idx = pr.has_indices ? output_buffer(idx, v->lead, 0x5A) : Buffer{};
            pj::reference::execute(pr, in.view(), want.view(), pr.has_indices ? want_idx.view() : nullptr);
            for (const int threads : {1, 3}) {
                SCOPED_TRACE(std::string(data_name) + ", " + std::to_string(threads) + " threads");
                Buffer got = output_buffer(dst, v->lead, 0xA5);
                Buffer got_idx = pr.has_indices ? output_buffer(idx, v->lead, 0xA5) : Buffer{};
                if (threads == 1)
                    p.execute(in.view(), got.view(), pr.has_indices ? got_idx.view() : nullptr);
                else
                    pj::execute_problem_split(pr, *impl, in.view(), got.view(), pr.has_indices ? got_idx.view() : nullptr,
                                              threads, true);
                expect_same_outputs(dst, got, want, 0xA5, 0x5A, "values");
                if (pr.has_indices) expect_same_outputs(idx, got_idx, want_idx, 0xA5, 0x5A, "indices");
                if (HasFailure()) return;  // the first failing view in full, not a cascade
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Curated, ViewsJit, ::testing::ValuesIn(run_cases()), case_name);

// The premise of the cases above that name planes in registers: where the dense problem takes them, so does its
// row pitch (the pieces of each register, not the rows' code), but for indices, whose rows take this view's pitch
// too and which store a vector's lanes at once (those keep the rows' code), and 1-D planes, one row each. Plans
// only, on any host.
TEST(ViewsPlans, ARowPitchKeepsPlanesInRegisters) {
    int kept = 0;
    for (const Curated& c : curated) {
        if (std::string_view(c.name).find("planes_in_registers") == std::string_view::npos) continue;
        const pj::AnyPoolDesc base = pj::parse_problem(c.line);
        if (std::visit([](const auto& d) { return has_indices(d) || d.src.dims.size() == 3; }, base)) continue;
        const std::optional<View> dense = make_view(base, ViewKind::dense_ncx), pitch = make_view(base, ViewKind::ncx_row_pitch);
        const auto plan = [](const View& v) {
            return jit::make_plan(std::visit([](const auto& d) { return pj::resolve(d); }, v.desc), jit::Isa::avx512);
        };
        if (plan(*dense).strategy != jit::Strategy::ncx_planes) continue;
        SCOPED_TRACE(pj::to_string(pitch->desc));
        const jit::KernelPlan p = plan(*pitch);
        EXPECT_EQ(p.strategy, jit::Strategy::ncx_planes);
        EXPECT_FALSE(p.memory.planes_contiguous);
        ++kept;
    }
    EXPECT_GE(kept, 5);
}

// ---- c. guard pages around each view's extent -------------------------------------------------------------------

// src, dst and indices each fill a buffer of exactly their extent against an inaccessible page, once after its
// last byte and once before its first: generated code that touches a byte outside the view (a vector tail past a
// slice's last channel, a row read through the dense row length, a whole block past the last) faults. Results
// against the reference on ordinary buffers; the split for 3 threads runs with the guard after the end.
class ViewsGuarded : public ViewsJit {};

TEST_P(ViewsGuarded, NothingOutsideTheExtentIsTouched) {
    const jit::Isa isa = GetParam().isa;
    const pj::AnyPoolDesc base = pj::parse_problem(curated[GetParam().problem].line);
    for (const ViewKind kind : all_views) {
        const std::optional<View> v = make_view(base, kind);
        if (!v) continue;
        SCOPED_TRACE(v->name + ": " + pj::to_string(v->desc));
        const pj::Primitive p = create_on(*v, isa);
        const pj::Problem& pr = p.problem();
        const pj::TensorDesc src = pr.src_desc(), dst = pr.dst_desc(), idx = pr.indices_desc();
        const auto impl = pj::detail::choose_implementation(pr, isa, pj::test::choice_for(isa));
        const std::vector<std::uint8_t> data = pj::casegen::adversarial_data(src, pj::casegen::byte_size(src));
        const Buffer in = source_buffer(src, 0, data);
        Buffer want = output_buffer(dst, 0, 0xA5);
        Buffer want_idx = pr.has_indices ? output_buffer(idx, 0, 0xA5) : Buffer{};
        pj::reference::execute(pr, in.view(), want.view(), pr.has_indices ? want_idx.view() : nullptr);
        for (const GuardSide side : {GuardSide::after_end, GuardSide::before_start}) {
            SCOPED_TRACE(pooljit::test::to_string(side));
            const std::size_t index_bytes = pr.has_indices ? pj::casegen::byte_size(idx) : 0;
            const GuardedBuffer g_src(data.size(), side), g_dst(want.bytes.size(), side), g_idx(index_bytes, side);
            std::memcpy(g_src.data(), data.data(), data.size());
            std::memset(g_dst.data(), 0xA5, g_dst.size());
            std::memset(g_idx.data(), 0xA5, g_idx.size());
            if (side == GuardSide::after_end)
                pj::execute_problem_split(pr, *impl, g_src.data(), g_dst.data(), pr.has_indices ? g_idx.data() : nullptr,
                                          3, true);
            else
                p.execute(g_src.data(), g_dst.data(), pr.has_indices ? g_idx.data() : nullptr);
            expect_same_outputs(dst, Buffer{g_dst.bytes(), 0}, want, 0xA5, 0xA5, "values");
            if (pr.has_indices) expect_same_outputs(idx, Buffer{g_idx.bytes(), 0}, want_idx, 0xA5, 0xA5, "indices");
            if (HasFailure()) return;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Curated, ViewsGuarded, ::testing::ValuesIn(run_cases()), case_name);

// ---- d. SPPF in place --------------------------------------------------------------------------------------------

// YOLOv5's SPPF: x, then three k5 s1 p2 pools, each of the previous one's output, concatenated along C. In place,
// one nxc buffer of 1 x 4C x H x W holds the concatenation, and pool i reads channel slice i and writes slice
// i + 1 of it (src and dst in one buffer, no element shared). Against three dense reference pools and a
// concatenation by hand: the whole buffer, byte for byte (slice 0 unchanged).
class SppfInPlace : public ::testing::TestWithParam<jit::Isa> {
protected:
    void SetUp() override { POOLJIT_SKIP_UNLESS_CPU_RUNS(GetParam()); }
    void TearDown() override { pj::set_num_threads(0); }
};

TEST_P(SppfInPlace, ThreeChainedSlicePoolsEqualDensePoolsConcatenated) {
    const jit::Isa isa = GetParam();
    constexpr std::int64_t H = 13, W = 11;
    for (const pj::DType dtype : {pj::DType::f32, pj::DType::bf16, pj::DType::u8, pj::DType::s32})
        for (const std::int64_t C : {32, 24}) {
            SCOPED_TRACE(std::string(pj::to_string(dtype)) + " C=" + std::to_string(C));
            const std::size_t elem = pj::size_of(dtype);
            const pj::TensorDesc slice{dtype, pj::Layout::nxc, {1, C, H, W}};
            pj::MaxPoolDesc d;
            d.src = slice;
            d.src.strides = {H * W * 4 * C, 1, W * 4 * C, 4 * C};  // a slice of the 4C concat buffer
            d.dst_strides = d.src.strides;
            d.kernel = {5, 5};
            d.strides = {1, 1};
            d.pads_begin = {2, 2};
            d.pads_end = {2, 2};
            pj::MaxPoolDesc dense = d;
            dense.src.strides.clear();
            dense.dst_strides.clear();
            // The expected concatenation: x, then the dense pools one after another, pixel by pixel.
            const std::vector<std::uint8_t> x = pj::casegen::tie_data(slice, static_cast<std::uint64_t>(C));
            std::vector<std::vector<std::uint8_t>> parts{x};
            for (int i = 0; i < 3; ++i) {
                std::vector<std::uint8_t> y(x.size());
                pj::reference::execute(dense, parts.back().data(), y.data());
                parts.push_back(std::move(y));
            }
            const std::size_t slice_bytes = static_cast<std::size_t>(C) * elem;
            std::vector<std::uint8_t> want(x.size() * 4);
            for (std::int64_t pixel = 0; pixel < H * W; ++pixel)
                for (std::size_t i = 0; i < 4; ++i)
                    std::memcpy(want.data() + (static_cast<std::size_t>(pixel) * 4 + i) * slice_bytes,
                                parts[i].data() + static_cast<std::size_t>(pixel) * slice_bytes, slice_bytes);
            const pj::Primitive p = [&] {
                const pj::test::IsaCap cap(jit::to_string(isa));
                return pj::create(d, pj::test::choice_for(isa));
            }();
            EXPECT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa));
            for (const int threads : {1, 3}) {
                SCOPED_TRACE(std::to_string(threads) + " threads");
                pj::set_num_threads(threads);
                std::vector<std::uint8_t> buffer(want.size(), 0xA5);
                for (std::int64_t pixel = 0; pixel < H * W; ++pixel)
                    std::memcpy(buffer.data() + static_cast<std::size_t>(pixel) * 4 * slice_bytes,
                                x.data() + static_cast<std::size_t>(pixel) * slice_bytes, slice_bytes);
                for (std::size_t i = 0; i < 3; ++i)
                    p.execute(buffer.data() + i * slice_bytes, buffer.data() + (i + 1) * slice_bytes);
                const auto [g, w] = std::mismatch(buffer.begin(), buffer.end(), want.begin());
                if (g != buffer.end()) {
                    const auto byte = static_cast<std::size_t>(g - buffer.begin());
                    ADD_FAILURE() << "the concat buffer differs at byte " << byte << ": pixel " << byte / (4 * slice_bytes)
                                  << ", slice " << byte % (4 * slice_bytes) / slice_bytes << ", channel "
                                  << byte % slice_bytes / elem;
                }
            }
        }
}

INSTANTIATE_TEST_SUITE_P(Isas, SppfInPlace, ::testing::ValuesIn(pj::test::jit_isas),
                         [](const auto& isa_info) { return std::string(jit::to_string(isa_info.param)); });

}  // namespace


// The implementation of a problem whose windows are one plane deep is made for its folded 2-D planes (the plan
// says so) and runs them: the u8 planes in byte lanes.
TEST(DepthFold, TheImplementationIsPlannedForTheFoldedPlanes) {
    const pj::Problem i3d = std::visit([](const auto& d) { return pj::resolve(d); },
                                       pj::parse_problem("maxpool dt=u8 layout=ncx src=2x5x3x20x22 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1"));
    const auto impl = pj::detail::choose_implementation(i3d, pj::jit::Isa::avx2);
    ASSERT_NE(impl->kernel, nullptr);
    EXPECT_TRUE(impl->plan.depth_folded);
    EXPECT_EQ(impl->plan.spatial_rank, 2);
    EXPECT_EQ(pj::jit::lane_bytes(impl->plan.compare), 1);
}
