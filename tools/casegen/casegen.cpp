#include "casegen/casegen.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace pooljit::casegen {
namespace {

constexpr std::array<DType, 8> all_dtypes = {DType::f32, DType::f64, DType::f16,  DType::bf16,
                                             DType::s8,  DType::u8,  DType::s32,  DType::s64};

// Channel counts and widths around vector lengths (4, 8, 16, 32, 64 lanes) and 1.
constexpr std::array<std::int64_t, 16> awkward_sizes = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65};

// f16 bits of a small integer (|v| < 2048), exact.
std::uint16_t f16_of_int(int v) {
    if (v == 0) return 0;
    const unsigned sign = v < 0 ? 0x8000u : 0u;
    const auto a = static_cast<unsigned>(v < 0 ? -v : v);
    const int e = std::bit_width(a) - 1;
    const unsigned mantissa = (a << (10 - e)) & 0x3FFu;
    return static_cast<std::uint16_t>(sign | static_cast<unsigned>(e + 15) << 10 | mantissa);
}

std::uint16_t bf16_of_int(int v) {  // exact for |v| <= 256
    return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(v)) >> 16);
}

template <typename T>
void put(std::uint8_t* at, T v) {
    std::memcpy(at, &v, sizeof(T));
}

// One element: a small integer (ties are common), or a special value of the type.
void draw_element(DType dt, std::uint8_t* at, std::mt19937_64& rng, int mode) {
    std::uniform_int_distribution<int> small(-6, 6);
    std::uniform_int_distribution<int> percent(0, 99);
    const int roll = percent(rng);
    // mode 1: mostly the lowest value, so that whole windows hold nothing else.
    const bool lowest = (mode == 1 && roll < 85) || roll < 4;
    const bool special = !lowest && roll < 22;
    const int s = static_cast<int>(rng() % 8);
    switch (dt) {
        case DType::f32: {
            const float specials[8] = {std::numeric_limits<float>::infinity(), -0.0f, 0.0f,
                                       std::bit_cast<float>(0x7FC00001u), std::bit_cast<float>(0xFFC00000u),
                                       std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                                       std::numeric_limits<float>::max()};
            put(at, lowest ? -std::numeric_limits<float>::infinity() : special ? specials[s] : static_cast<float>(small(rng)));
            break;
        }
        case DType::f64: {
            const double specials[8] = {std::numeric_limits<double>::infinity(), -0.0, 0.0,
                                        std::bit_cast<double>(0x7FF8000000000001ull),
                                        std::bit_cast<double>(0xFFF8000000000000ull),
                                        std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
                                        std::numeric_limits<double>::lowest()};
            put(at, lowest ? -std::numeric_limits<double>::infinity() : special ? specials[s] : static_cast<double>(small(rng)));
            break;
        }
        case DType::f16: {
            const std::uint16_t specials[8] = {0x7C00, 0x8000, 0x0000, 0x7E01, 0xFE00, 0x0001, 0x8001, 0x7BFF};
            put<std::uint16_t>(at, lowest ? std::uint16_t{0xFC00} : special ? specials[s] : f16_of_int(small(rng)));
            break;
        }
        case DType::bf16: {
            const std::uint16_t specials[8] = {0x7F80, 0x8000, 0x0000, 0x7FC1, 0xFFC0, 0x0001, 0x8001, 0x7F7F};
            put<std::uint16_t>(at, lowest ? std::uint16_t{0xFF80} : special ? specials[s] : bf16_of_int(small(rng)));
            break;
        }
        case DType::s8: {
            const std::int8_t specials[4] = {127, -127, 0, -1};
            put<std::int8_t>(at, lowest ? std::int8_t{-128} : special ? specials[s % 4] : static_cast<std::int8_t>(small(rng)));
            break;
        }
        case DType::u8: {
            const std::uint8_t specials[4] = {255, 254, 1, 128};
            put<std::uint8_t>(at, lowest ? std::uint8_t{0} : special ? specials[s % 4] : static_cast<std::uint8_t>(small(rng) + 6));
            break;
        }
        case DType::s32: {
            const std::int32_t specials[4] = {std::numeric_limits<std::int32_t>::max(), -2147483647, 1 << 24, -(1 << 24) - 1};
            put<std::int32_t>(at, lowest ? std::numeric_limits<std::int32_t>::min() : special ? specials[s % 4] : small(rng));
            break;
        }
        case DType::s64: {
            const std::int64_t specials[4] = {std::numeric_limits<std::int64_t>::max(), -9223372036854775807ll,
                                              (1ll << 53) + 1, -(1ll << 40)};
            put<std::int64_t>(at, lowest ? std::numeric_limits<std::int64_t>::min() : special ? specials[s % 4]
                                                                                             : std::int64_t{small(rng)});
            break;
        }
    }
}

}  // namespace

std::size_t byte_size(const TensorDesc& desc) { return byte_extent(desc); }

namespace {

// Calls visit(offset, coordinates) for every logical element in N, C, spatial... order; with `padded`, a blocked
// tensor's channels run on to the end of the last block.
template <typename Visit>
void for_each_element(const TensorDesc& desc, bool padded, Visit&& visit) {
    const std::vector<std::int64_t> strides = strides_of(desc);
    const std::int64_t block = channel_block_of(desc.layout);
    std::vector<std::int64_t> dims = desc.dims;
    for (std::int64_t d : dims)
        if (d <= 0) return;
    if (padded && block > 1) dims[1] = (dims[1] + block - 1) / block * block;
    std::vector<std::int64_t> at(dims.size(), 0);
    while (true) {
        std::int64_t offset = 0;
        for (std::size_t i = 0; i < dims.size(); ++i)
            offset += i == 1 && block > 1 ? at[1] / block * strides[1] + at[1] % block : at[i] * strides[i];
        visit(offset, at);
        std::size_t i = dims.size();
        while (i-- > 0) {
            if (++at[i] < dims[i]) break;
            at[i] = 0;
        }
        if (i == static_cast<std::size_t>(-1)) return;
    }
}

}  // namespace

std::vector<std::int64_t> element_offsets(const TensorDesc& desc) {
    std::vector<std::int64_t> offsets;
    for_each_element(desc, false, [&](std::int64_t offset, const std::vector<std::int64_t>&) { offsets.push_back(offset); });
    return offsets;
}

std::vector<bool> owned_bytes(const TensorDesc& desc) {
    std::vector<bool> owned(byte_size(desc), false);
    const auto elem = static_cast<std::int64_t>(size_of(desc.dtype));
    for_each_element(desc, true, [&](std::int64_t offset, const std::vector<std::int64_t>&) {
        for (std::int64_t b = 0; b < elem; ++b) owned[static_cast<std::size_t>(offset * elem + b)] = true;
    });
    return owned;
}

std::optional<std::size_t> first_gap_write(const TensorDesc& desc, const void* got, std::uint8_t poison) {
    const std::vector<bool> owned = owned_bytes(desc);
    const auto* g = static_cast<const std::uint8_t*>(got);
    for (std::size_t i = 0; i < owned.size(); ++i)
        if (!owned[i] && g[i] != poison) return i;
    return std::nullopt;
}

std::vector<std::uint8_t> adversarial_data(const TensorDesc& desc, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> bytes(byte_size(desc));
    const std::size_t elem = size_of(desc.dtype);
    // Per tensor: mode 0 mixes everything; mode 1 is mostly the lowest value; blocks switch modes so that
    // runs of lowest values sit next to ordinary data.
    const std::size_t block = 1 + rng() % 64;
    int mode = 0;
    for (std::size_t i = 0; i * elem < bytes.size(); ++i) {
        if (i % block == 0) mode = rng() % 4 == 0 ? 1 : 0;
        draw_element(desc.dtype, bytes.data() + i * elem, rng, mode);
    }
    return bytes;
}

std::vector<std::uint8_t> activation_data(const TensorDesc& desc, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> value(-127, 255);
    std::vector<std::uint8_t> bytes(byte_size(desc));
    const std::size_t elem = size_of(desc.dtype);
    for (std::size_t i = 0; i * elem < bytes.size(); ++i) {
        const int v = rng() % 2 == 0 ? 0 : value(rng);
        std::uint8_t* at = bytes.data() + i * elem;
        switch (desc.dtype) {
            case DType::f32: put(at, static_cast<float>(v)); break;
            case DType::f64: put(at, static_cast<double>(v)); break;
            case DType::f16: put<std::uint16_t>(at, f16_of_int(v)); break;
            case DType::bf16: put<std::uint16_t>(at, bf16_of_int(v)); break;
            case DType::s8: put<std::int8_t>(at, static_cast<std::int8_t>(std::min(v, 127))); break;
            case DType::u8: put<std::uint8_t>(at, static_cast<std::uint8_t>(std::max(v, 0))); break;
            case DType::s32: put<std::int32_t>(at, v); break;
            case DType::s64: put<std::int64_t>(at, std::int64_t{v}); break;
        }
    }
    return bytes;
}

std::vector<std::uint8_t> tie_data(const TensorDesc& desc, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> bytes(byte_size(desc));
    const std::size_t elem = size_of(desc.dtype);
    // Runs of the lowest value, long enough to fill whole windows, between runs of small values.
    bool lowest_run = false;
    for (std::size_t i = 0; i * elem < bytes.size(); ++i) {
        if (rng() % 16 == 0) lowest_run = !lowest_run;
        const int pick = lowest_run ? 0 : static_cast<int>(rng() % 6);  // 0 lowest, 1 -1, 2 -0, 3 +0, 4 1, 5 2
        const int v = pick == 1 ? -1 : pick == 4 ? 1 : pick == 5 ? 2 : 0;
        const bool negative_zero = pick == 2, lowest = pick == 0;
        std::uint8_t* at = bytes.data() + i * elem;
        switch (desc.dtype) {
            case DType::f32:
                put(at, lowest ? -std::numeric_limits<float>::infinity() : negative_zero ? -0.0f : static_cast<float>(v));
                break;
            case DType::f64:
                put(at, lowest ? -std::numeric_limits<double>::infinity() : negative_zero ? -0.0 : static_cast<double>(v));
                break;
            case DType::f16:
                put<std::uint16_t>(at, lowest ? std::uint16_t{0xFC00} : negative_zero ? std::uint16_t{0x8000} : f16_of_int(v));
                break;
            case DType::bf16:
                put<std::uint16_t>(at, lowest ? std::uint16_t{0xFF80} : negative_zero ? std::uint16_t{0x8000} : bf16_of_int(v));
                break;
            case DType::s8: put<std::int8_t>(at, lowest ? std::int8_t{-128} : static_cast<std::int8_t>(v)); break;
            case DType::u8: put<std::uint8_t>(at, static_cast<std::uint8_t>(lowest ? 0 : v + 1)); break;
            case DType::s32: put<std::int32_t>(at, lowest ? std::numeric_limits<std::int32_t>::min() : v); break;
            case DType::s64: put<std::int64_t>(at, lowest ? std::numeric_limits<std::int64_t>::min() : std::int64_t{v}); break;
        }
    }
    return bytes;
}

std::vector<std::uint8_t> differential_data(const TensorDesc& desc, std::uint64_t seed) {
    return seed % 2 == 0 ? adversarial_data(desc, seed) : tie_data(desc, seed);
}

Generator::Generator(std::uint64_t seed, Bounds bounds) : rng_(seed), bounds_(bounds) {}

std::int64_t Generator::uniform(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
}

bool Generator::chance(double p) { return std::bernoulli_distribution(p)(rng_); }

TensorDesc Generator::source(int spatial_rank) {
    TensorDesc t;
    t.dtype = all_dtypes[static_cast<std::size_t>(uniform(0, 7))];
    t.layout = chance(0.5) ? Layout::nxc : Layout::ncx;
    const auto pick_awkward = [&](std::int64_t limit) {
        std::int64_t v;
        do v = awkward_sizes[static_cast<std::size_t>(uniform(0, awkward_sizes.size() - 1))];
        while (v > limit);
        return v;
    };
    t.dims.push_back(chance(0.03) ? 0 : uniform(1, bounds_.max_batch));
    t.dims.push_back(chance(0.03) ? 0 : chance(0.6) ? pick_awkward(bounds_.max_channels) : uniform(1, bounds_.max_channels));
    for (int i = 0; i < spatial_rank; ++i) {
        const std::int64_t limit = spatial_rank == 1 ? bounds_.max_spatial_1d : bounds_.max_spatial;
        t.dims.push_back(chance(0.5) ? pick_awkward(limit) : uniform(1, limit));
    }
    // Keep the case small: shrink channels, then batch, then spatial dims until it fits.
    auto elements = [&] {
        std::int64_t e = 1;
        for (std::int64_t d : t.dims) e *= std::max<std::int64_t>(d, 1);
        return e;
    };
    for (std::size_t i = 1; elements() > bounds_.max_src_elements; i = i % (t.dims.size() - 1) + 1)
        t.dims[i] = std::max<std::int64_t>(1, t.dims[i] / 2);
    return t;
}

MaxPoolDesc Generator::max_pool_attempt() {
    const int sr = static_cast<int>(uniform(1, 3));
    MaxPoolDesc d;
    d.src = source(sr);
    const auto modes = std::array{AutoPad::explicit_pads, AutoPad::explicit_pads, AutoPad::valid, AutoPad::same_upper,
                                  AutoPad::same_lower};
    d.auto_pad = modes[static_cast<std::size_t>(uniform(0, 4))];
    d.rounding = std::array{Rounding::floor, Rounding::ceil, Rounding::ceil_torch}[static_cast<std::size_t>(uniform(0, 2))];
    d.nan = chance(0.5) ? NanPolicy::propagate : NanPolicy::ignore;
    // Now and then a global window (the whole input, no pads, no dilation), which channels-last code may run as
    // ranges of its pixels on several threads (KernelPlan::window_ranges).
    const bool global = chance(0.04);
    if (global) d.auto_pad = AutoPad::explicit_pads;
    // Now and then outputs at their inputs' positions (stride 1, pads of the window's extent - 1: SPPF's and
    // Inception's windows), which planar code takes as flat planes, over a view's row pitch too.
    const bool at_inputs = !global && chance(0.05);
    if (at_inputs) d.auto_pad = AutoPad::explicit_pads;
    const bool empty_strides = chance(0.1), empty_dilations = chance(0.3), empty_pads = !at_inputs && chance(0.1);
    const bool pads_itself = d.auto_pad == AutoPad::same_upper || d.auto_pad == AutoPad::same_lower;
    for (int i = 0; i < sr; ++i) {
        const std::int64_t in = d.src.dims[static_cast<std::size_t>(i) + 2];
        const std::int64_t kmax = sr == 1 ? std::min<std::int64_t>(in + 4, 220) : bounds_.max_kernel;
        std::int64_t k = chance(0.7) ? uniform(1, std::min<std::int64_t>(kmax, 5)) : uniform(1, kmax);
        if (global) k = in;
        const std::int64_t dil = global || empty_dilations || chance(0.7) ? 1 : uniform(2, 3);
        const std::int64_t extent = (k - 1) * dil + 1;
        const std::int64_t pb = at_inputs ? uniform(0, extent - 1) : global || empty_pads ? 0 : chance(0.5) ? 0 : uniform(0, k + 1);
        const std::int64_t pe = at_inputs ? extent - 1 - pb : global || empty_pads ? 0 : chance(0.5) ? pb : uniform(0, k + 1);
        const std::int64_t stride = at_inputs || empty_strides || chance(0.5) ? 1 : uniform(1, 4);
        const std::int64_t padded = in + (d.auto_pad == AutoPad::explicit_pads ? pb + pe : 0);
        // The dilated kernel must fit in the padded input, except that under ceil rounding it may reach up to
        // stride - 1 elements past it (same_* pads itself). Now and then take the widest such kernel, so that
        // the axis has one window that is short on both sides.
        const std::int64_t reach = padded + (d.rounding == Rounding::floor ? 0 : stride - 1);
        const std::int64_t widest = (reach - 1) / dil + 1;
        if (!at_inputs && !pads_itself && (widest - 1) * dil + 1 > padded && chance(0.15)) k = widest;
        while (!pads_itself && k > 1 && (k - 1) * dil + 1 > reach) --k;
        d.kernel.push_back(k);
        if (!empty_strides) d.strides.push_back(stride);
        if (!empty_dilations) d.dilations.push_back(dil);
        if (!empty_pads) {
            d.pads_begin.push_back(pb);
            d.pads_end.push_back(pe);
        }
    }
    if (!at_inputs && chance(0.6)) {  // flat planes take values only
        IndexSpec ix;
        ix.dtype = chance(0.5) ? DType::s32 : DType::s64;
        const std::int64_t rank = sr + 2;
        ix.axis = chance(0.6) ? 0 : uniform(-rank, rank - 1);
        if ((ix.axis == 0 || ix.axis == -rank) && chance(0.3)) ix.order = StorageOrder::column_major;
        d.indices = ix;
    }
    return d;
}

// The strides of a view of `t` inside a larger buffer, as engines hold tensors: the dense strides of a tensor
// wider in its channels (a channel slice of a concat buffer), in its rows (a row pitch), in its planes (a plane
// pitch: rows dense, planes apart) or in its batch, or every stride doubled (neither channels nor rows
// consecutive); a source may also read one plane or one row for every channel (a 0 stride). Any of these maps
// every element to its own address.
std::vector<std::int64_t> Generator::view_strides(const TensorDesc& t, bool source) {
    TensorDesc wider = t;
    if (chance(0.5)) wider.dims[1] += uniform(1, std::max<std::int64_t>(2, t.dims[1] * 3));
    if (t.dims.size() > 2 && chance(0.4)) wider.dims.back() += uniform(1, 9);
    if (t.dims.size() > 3 && chance(0.2)) wider.dims[2] += uniform(1, 4);
    if (chance(0.2) && t.layout == Layout::ncx) wider.layout = Layout::nxc;  // channels_last strides, ncx named
    std::vector<std::int64_t> s = strides_of(wider);
    if (chance(0.3)) s[0] += uniform(1, 64);
    if (chance(0.15))
        for (std::int64_t& x : s) x *= 2;
    if (source && chance(0.15)) s[static_cast<std::size_t>(uniform(1, static_cast<std::int64_t>(s.size()) - 1))] = 0;
    return s;
}

void Generator::add_views(MaxPoolDesc& d, const Problem& p) {
    if (!chance(0.35)) return;
    if (chance(0.35)) d.src.layout = chance(0.5) ? Layout::nCx8c : Layout::nCx16c;
    if (chance(0.6)) d.src.strides = view_strides(d.src, true);
    TensorDesc dst = p.dst_desc();
    dst.layout = d.src.layout;
    dst.strides.clear();
    if (chance(0.5)) d.dst_strides = view_strides(dst, false);
    if (d.indices && chance(0.3)) d.indices_strides = view_strides(dst, false);
}

MaxPoolDesc Generator::max_pool() {
    for (;;) {
        MaxPoolDesc d = max_pool_attempt();
        try {
            add_views(d, resolve(d));
            (void)resolve(d);
            return d;
        } catch (const Error&) {
            // A rare draw (a dilated kernel larger than the input under valid): draw again.
        }
    }
}

AdaptiveMaxPoolDesc Generator::adaptive_max_pool() {
    const int sr = static_cast<int>(uniform(1, 3));
    AdaptiveMaxPoolDesc a;
    a.src = source(sr);
    for (int i = 0; i < sr; ++i) {
        const std::int64_t in = a.src.dims[static_cast<std::size_t>(i) + 2];
        // Mostly smaller than the input; sometimes larger (allowed: windows overlap and repeat).
        a.output_size.push_back(chance(0.8) ? uniform(1, in) : uniform(in, in + 5));
    }
    if (chance(0.7)) a.index_dtype = chance(0.5) ? DType::s32 : DType::s64;
    if (chance(0.3)) {
        if (chance(0.35)) a.src.layout = chance(0.5) ? Layout::nCx8c : Layout::nCx16c;
        if (chance(0.6)) a.src.strides = view_strides(a.src, true);
        TensorDesc dst = resolve(a).dst_desc();
        dst.strides.clear();
        if (chance(0.5)) a.dst_strides = view_strides(dst, false);
        if (a.index_dtype && chance(0.3)) a.indices_strides = view_strides(dst, false);
    }
    return a;
}

AnyPoolDesc Generator::any() {
    if (chance(0.15)) return adaptive_max_pool();
    return max_pool();
}

InvalidCase Generator::invalid() {
    MaxPoolDesc d = max_pool();
    const std::size_t sr = d.src.dims.size() - 2;
    const auto i = static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(sr) - 1));
    const std::string at = "[" + std::to_string(i) + "]";
    switch (uniform(0, 13)) {
        case 0: d.kernel[i] = uniform(-3, 0); return {d, "kernel" + at};
        case 1: d.strides.assign(sr, 1); d.strides[i] = uniform(-3, 0); return {d, "strides" + at};
        case 2: d.dilations.assign(sr, 1); d.dilations[i] = uniform(-3, 0); return {d, "dilations" + at};
        case 3:
            d.auto_pad = AutoPad::explicit_pads;
            d.pads_begin.assign(sr, 0);
            d.pads_begin[i] = uniform(-5, -1);
            return {d, "pads_begin" + at};
        case 4: d.kernel.push_back(1); return {d, "kernel"};
        case 5: d.src.dims.resize(chance(0.5) ? 2 : 6, 1); return {d, "src.dims"};
        case 6: d.src.dims[i + 2] = 0; return {d, "src.dims[" + std::to_string(i + 2) + "]"};
        case 7:
            d.indices = IndexSpec{DType::s64, chance(0.5) ? static_cast<std::int64_t>(sr) + 2 : -static_cast<std::int64_t>(sr) - 3};
            return {d, "indices.axis"};
        case 8: d.indices = IndexSpec{DType::s64, 1, StorageOrder::column_major}; return {d, "indices.order"};
        case 9: {
            // Wider than the input by at least the stride: refused under every rounding (ceil lets a window reach
            // at most stride - 1 past the padded input).
            d.auto_pad = AutoPad::valid;
            d.dilations.assign(sr, 1);
            const std::int64_t stride = d.strides.empty() ? 1 : d.strides[i];
            d.kernel[i] = d.src.dims[i + 2] + stride + uniform(0, 2);
            return {d, "kernel" + at};
        }
        case 10: d.src.dims[0] = -1; return {d, "src.dims[0]"};
        case 11:
            d.src.strides = strides_of(d.src);
            d.src.strides[i + 2] = -uniform(1, 3);
            return {d, "src.strides[" + std::to_string(i + 2) + "]"};
        case 12: {
            // Every output element of a batch at one address: refused where the batch holds two.
            TensorDesc dst = resolve(d).dst_desc();
            dst.dims[0] = 2;
            dst.dims[1] = std::max<std::int64_t>(dst.dims[1], 1);
            d.src.dims[0] = 2;
            d.src.dims[1] = dst.dims[1];
            d.dst_strides = strides_of(dst);
            d.dst_strides[0] = 0;
            return {d, "dst_strides"};
        }
        default: {
            AdaptiveMaxPoolDesc a = adaptive_max_pool();
            a.output_size[0] = uniform(-2, 0);
            return {a, "output_size[0]"};
        }
    }
}

}  // namespace pooljit::casegen

// ---- Comparing outputs and shrinking failing cases ----------------------------------------------------------

namespace pooljit::casegen {
namespace {

float f16_to_float(std::uint16_t h) {
    const std::uint32_t sign = (h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1Fu;
    const std::uint32_t mantissa = h & 0x3FFu;
    if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
    if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
}

// The shortest text that reads back as the same value of T.
template <typename T>
std::string floating_value(T v) {
    if (v != v) return std::signbit(v) ? "-nan" : "nan";
    if (v == T(0)) return std::signbit(v) ? "-0" : "0";
    char text[64];
    const auto result = std::to_chars(text, text + sizeof text, v);
    return std::string(text, result.ptr);
}

template <typename T>
T load(const void* at) {
    T v;
    std::memcpy(&v, at, sizeof(T));
    return v;
}

std::vector<std::int64_t> or_fill(const std::vector<std::int64_t>& v, std::size_t n, std::int64_t fill) {
    return v.empty() ? std::vector<std::int64_t>(n, fill) : v;
}

template <typename Desc>
bool resolves(const Desc& d) {
    try {
        (void)resolve(d);
        return true;
    } catch (const Error&) {
        return false;
    }
}

// Adds `candidate` when it is valid and differs from `original` (so shrinking always makes progress).
template <typename Desc>
void offer(std::vector<AnyPoolDesc>& out, const Desc& original, const Desc& candidate) {
    if (!(candidate == original) && resolves(candidate)) out.emplace_back(candidate);
}

// The smaller values tried for one size, biggest reduction first.
std::vector<std::int64_t> smaller(std::int64_t v, std::int64_t floor_value) {
    std::vector<std::int64_t> values;
    for (const std::int64_t c : {floor_value, v / 2, v - 1})
        if (c >= floor_value && c < v && std::find(values.begin(), values.end(), c) == values.end())
            values.push_back(c);
    return values;
}

void source_candidates(const TensorDesc& src, const std::function<void(TensorDesc)>& emit) {
    for (std::size_t axis = 0; axis < src.dims.size(); ++axis) {
        // Batch and channels may shrink to 1 (0 is a no-op case, never the interesting one); spatial dims to 1.
        for (const std::int64_t v : smaller(src.dims[axis], 1)) {
            TensorDesc t = src;
            t.dims[axis] = v;
            emit(t);
        }
    }
}

// Views made plain: each tensor's strides dropped (then all of them), a blocked layout made nxc.
template <typename Desc>
void view_candidates(std::vector<AnyPoolDesc>& out, const Desc& d) {
    Desc c = d;
    c.src.strides.clear();
    c.dst_strides.clear();
    c.indices_strides.clear();
    if (c.src.layout == Layout::nCx8c || c.src.layout == Layout::nCx16c) {
        c.src.layout = Layout::nxc;
        offer(out, d, c);
        c.src.layout = d.src.layout;
    }
    offer(out, d, c);
    for (std::vector<std::int64_t> Desc::*field : {&Desc::dst_strides, &Desc::indices_strides}) {
        c = d;
        (c.*field).clear();
        offer(out, d, c);
    }
    c = d;
    c.src.strides.clear();
    offer(out, d, c);
}

std::vector<AnyPoolDesc> max_pool_candidates(const MaxPoolDesc& d) {
    std::vector<AnyPoolDesc> out;
    const std::size_t sr = d.src.dims.size() >= 2 ? d.src.dims.size() - 2 : 0;
    view_candidates(out, d);
    source_candidates(d.src, [&](TensorDesc t) {
        MaxPoolDesc c = d;
        c.src = std::move(t);
        offer(out, d, c);
    });
    // One attribute vector entry at a time, toward its neutral value.
    const auto shrink_vector = [&](std::vector<std::int64_t> MaxPoolDesc::*field, std::int64_t neutral) {
        const std::vector<std::int64_t> filled = or_fill(d.*field, sr, neutral);
        for (std::size_t i = 0; i < filled.size(); ++i) {
            for (const std::int64_t v : smaller(filled[i], neutral)) {
                MaxPoolDesc c = d;
                (c.*field) = filled;
                (c.*field)[i] = v;
                offer(out, d, c);
            }
        }
    };
    shrink_vector(&MaxPoolDesc::kernel, 1);
    shrink_vector(&MaxPoolDesc::strides, 1);
    shrink_vector(&MaxPoolDesc::dilations, 1);
    if (d.auto_pad == AutoPad::explicit_pads) {
        shrink_vector(&MaxPoolDesc::pads_begin, 0);
        shrink_vector(&MaxPoolDesc::pads_end, 0);
    } else if (resolves(d)) {
        // The same windows, spelled out: explicit pads read more easily than same_* rules.
        const Problem p = resolve(d);
        MaxPoolDesc c = d;
        c.auto_pad = AutoPad::explicit_pads;
        c.pads_begin.assign(p.pad_begin.begin(), p.pad_begin.begin() + static_cast<std::ptrdiff_t>(sr));
        c.pads_end.assign(p.pad_end.begin(), p.pad_end.begin() + static_cast<std::ptrdiff_t>(sr));
        for (const Rounding r : {Rounding::floor, d.rounding}) {
            c.rounding = r;
            offer(out, d, c);
        }
    }
    MaxPoolDesc c = d;
    c.rounding = Rounding::floor;
    offer(out, d, c);
    c = d;
    c.nan = NanPolicy::propagate;
    offer(out, d, c);
    if (d.indices) {
        c = d;
        c.indices.reset();
        c.indices_strides.clear();
        offer(out, d, c);
        c = d;
        c.indices->axis = 0;
        offer(out, d, c);
        c = d;
        c.indices->order = StorageOrder::row_major;
        offer(out, d, c);
        c = d;
        c.indices->dtype = DType::s64;
        offer(out, d, c);
    }
    return out;
}

std::vector<AnyPoolDesc> adaptive_candidates(const AdaptiveMaxPoolDesc& d) {
    std::vector<AnyPoolDesc> out;
    view_candidates(out, d);
    source_candidates(d.src, [&](TensorDesc t) {
        AdaptiveMaxPoolDesc c = d;
        c.src = std::move(t);
        offer(out, d, c);
    });
    for (std::size_t i = 0; i < d.output_size.size(); ++i) {
        for (const std::int64_t v : smaller(d.output_size[i], 1)) {
            AdaptiveMaxPoolDesc c = d;
            c.output_size[i] = v;
            offer(out, d, c);
        }
    }
    if (d.index_dtype) {
        AdaptiveMaxPoolDesc c = d;
        c.index_dtype.reset();
        c.indices_strides.clear();
        offer(out, d, c);
        c = d;
        c.index_dtype = DType::s64;
        offer(out, d, c);
    }
    return out;
}

}  // namespace

std::string hex_bits(DType dtype, const void* element) {
    const auto* bytes = static_cast<const std::uint8_t*>(element);
    static constexpr char digits[] = "0123456789abcdef";
    std::string text = "0x";
    for (std::size_t b = size_of(dtype); b-- > 0;) {
        text += digits[bytes[b] >> 4];
        text += digits[bytes[b] & 0xF];
    }
    return text;
}

std::string element_value(DType dtype, const void* element) {
    switch (dtype) {
        case DType::f32:
            return floating_value(load<float>(element));
        case DType::f64:
            return floating_value(load<double>(element));
        case DType::f16:
            return floating_value(f16_to_float(load<std::uint16_t>(element)));
        case DType::bf16:
            return floating_value(std::bit_cast<float>(static_cast<std::uint32_t>(load<std::uint16_t>(element)) << 16));
        case DType::s8:
            return std::to_string(load<std::int8_t>(element));
        case DType::u8:
            return std::to_string(load<std::uint8_t>(element));
        case DType::s32:
            return std::to_string(load<std::int32_t>(element));
        case DType::s64:
            return std::to_string(load<std::int64_t>(element));
    }
    return "?";
}

std::optional<Difference> first_difference(const TensorDesc& desc, const void* got, const void* want) {
    const auto* g = static_cast<const std::uint8_t*>(got);
    const auto* w = static_cast<const std::uint8_t*>(want);
    const std::size_t elem = size_of(desc.dtype);
    std::optional<Difference> found;
    for_each_element(desc, true, [&](std::int64_t offset, const std::vector<std::int64_t>& at) {
        const std::size_t byte = static_cast<std::size_t>(offset) * elem;
        if (found || std::equal(g + byte, g + byte + elem, w + byte)) return;
        Difference diff;
        diff.element = static_cast<std::size_t>(offset);
        diff.coordinates = at;
        diff.got = hex_bits(desc.dtype, g + byte);
        diff.want = hex_bits(desc.dtype, w + byte);
        diff.got_value = element_value(desc.dtype, g + byte);
        diff.want_value = element_value(desc.dtype, w + byte);
        found = diff;
    });
    return found;
}

std::vector<AnyPoolDesc> shrink_candidates(const AnyPoolDesc& desc) {
    return std::visit(
        [](const auto& d) {
            if constexpr (std::is_same_v<std::decay_t<decltype(d)>, MaxPoolDesc>)
                return max_pool_candidates(d);
            else
                return adaptive_candidates(d);
        },
        desc);
}

AnyPoolDesc shrink(AnyPoolDesc desc, const std::function<bool(const AnyPoolDesc&)>& still_fails, int max_calls) {
    int calls = 0;
    for (bool progressed = true; progressed;) {
        progressed = false;
        for (const AnyPoolDesc& candidate : shrink_candidates(desc)) {
            if (calls++ >= max_calls) return desc;
            if (still_fails(candidate)) {
                desc = candidate;
                progressed = true;
                break;
            }
        }
    }
    return desc;
}

}  // namespace pooljit::casegen
