#include "problems.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <variant>

namespace pj = pooljit;

namespace pooljit_bench {
namespace {

bool all_equal(const std::vector<std::int64_t>& v, std::int64_t value) {
    return std::all_of(v.begin(), v.end(), [value](std::int64_t x) { return x == value; });
}

// Views in a short form: which tensors have strides (their values are in the full problem string).
template <typename Desc>
std::string view_label(const Desc& d) {
    std::string s;
    if (!d.src.strides.empty()) s += " src";
    if (!d.dst_strides.empty()) s += " dst";
    if (!d.indices_strides.empty()) s += " idx";
    return s.empty() ? s : " view:" + s.substr(1);
}

std::string short_label(const pj::MaxPoolDesc& d) {
    std::string s = fmt::format("{} {} {} k{}", pj::to_string(d.src.dtype), pj::to_string(d.src.layout),
                                join_dims(d.src.dims), join_dims(d.kernel));
    if (!all_equal(d.strides, 1)) s += " s" + join_dims(d.strides);
    if (!all_equal(d.dilations, 1)) s += " d" + join_dims(d.dilations);
    if (d.auto_pad == pj::AutoPad::explicit_pads) {
        if (!all_equal(d.pads_begin, 0) || !all_equal(d.pads_end, 0)) {
            s += " p" + join_dims(d.pads_begin.empty() ? d.pads_end : d.pads_begin);
            if (d.pads_begin != d.pads_end) s += "/" + join_dims(d.pads_end);
        }
    } else {
        static constexpr const char* auto_pad_names[] = {"explicit", "valid", "same_upper", "same_lower"};
        s += std::string(" ") + auto_pad_names[static_cast<int>(d.auto_pad)];
    }
    if (d.rounding == pj::Rounding::ceil) s += " ceil";
    if (d.rounding == pj::Rounding::ceil_torch) s += " ceil_torch";
    if (d.nan == pj::NanPolicy::ignore) s += " nan=ignore";
    if (d.indices) {
        s += std::string(" idx=") + pj::to_string(d.indices->dtype);
        if (d.indices->axis != 0) s += fmt::format("@axis{}", d.indices->axis);
        if (d.indices->order == pj::StorageOrder::column_major) s += "@col";
    }
    return s + view_label(d);
}

std::string short_label(const pj::AdaptiveMaxPoolDesc& d) {
    std::string s = fmt::format("adaptive {} {} {} out{}", pj::to_string(d.src.dtype), pj::to_string(d.src.layout),
                                join_dims(d.src.dims), join_dims(d.output_size));
    if (d.index_dtype) s += std::string(" idx=") + pj::to_string(*d.index_dtype);
    return s + view_label(d);
}

bool is_comment_or_blank(std::string_view line) {
    const auto first = line.find_first_not_of(" \t\r");
    return first == std::string_view::npos || line[first] == '#';
}

std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> items;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (!item.empty()) items.push_back(item);
    }
    return items;
}

pj::DType parse_dtype(const std::string& name, const char* option) {
    for (int i = 0; i < 8; ++i) {
        const auto dtype = static_cast<pj::DType>(i);
        if (name == pj::to_string(dtype)) return dtype;
    }
    throw InputError(fmt::format("{} {}: not a data type (f32, f64, f16, bf16, s8, u8, s32, s64)", option, name));
}

void apply(pj::MaxPoolDesc& d, std::optional<pj::DType> dtype, std::optional<pj::Layout> layout,
           std::optional<std::optional<pj::DType>> indices) {
    if (dtype) d.src.dtype = *dtype;
    if (layout) d.src.layout = *layout;
    if (indices) {
        if (!*indices) {
            d.indices.reset();
        } else if (d.indices) {
            d.indices->dtype = **indices;  // keeps the problem's axis and storage order
        } else {
            d.indices = pj::IndexSpec{**indices};
        }
    }
}

void apply(pj::AdaptiveMaxPoolDesc& d, std::optional<pj::DType> dtype, std::optional<pj::Layout> layout,
           std::optional<std::optional<pj::DType>> indices) {
    if (dtype) d.src.dtype = *dtype;
    if (layout) d.src.layout = *layout;
    if (indices) d.index_dtype = *indices;
}

// The list, or one "keep the problem's value" entry when it is empty.
// A view variant: src and dst as slices of a tensor of 4x the channels (a concat buffer's channel slice) or with
// rows padded by 16 elements (a row pitch), in the problem's layout.
std::vector<std::int64_t> view_strides(pj::TensorDesc t, View view) {
    t.strides.clear();
    if (view == View::slice) t.dims[1] *= 4;
    if (view == View::pitch) t.dims.back() += 16;
    return pj::strides_of(t);
}

template <typename Desc>
void apply_view(Desc& d, View view) {
    d.src.strides.clear();
    d.dst_strides.clear();
    d.indices_strides.clear();
    if (view == View::dense) return;
    pj::TensorDesc dst = std::visit([](const auto& x) { return pj::resolve(x); }, pj::AnyPoolDesc(d)).dst_desc();
    dst.layout = d.src.layout;
    d.src.strides = view_strides(d.src, view);
    d.dst_strides = view_strides(dst, view);
}

template <typename T>
std::vector<std::optional<T>> or_keep(const std::vector<T>& values) {
    if (values.empty()) return {std::nullopt};
    return {values.begin(), values.end()};
}

}  // namespace

Variants parse_variants(const std::string& dtypes, const std::string& layouts, const std::string& indices,
                        const std::string& views) {
    Variants v;
    for (const std::string& name : split_list(dtypes)) v.dtypes.push_back(parse_dtype(name, "--dtype"));
    for (const std::string& name : split_list(layouts)) {
        bool found = false;
        for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc, pj::Layout::nCx8c, pj::Layout::nCx16c})
            if (name == pj::to_string(layout)) {
                v.layouts.push_back(layout);
                found = true;
            }
        if (!found) throw InputError(fmt::format("--layout {}: not a layout (nxc, ncx, nCx8c, nCx16c)", name));
    }
    for (const std::string& name : split_list(views)) {
        if (name == "dense") v.views.push_back(View::dense);
        else if (name == "slice") v.views.push_back(View::slice);
        else if (name == "pitch") v.views.push_back(View::pitch);
        else throw InputError(fmt::format("--view {}: not a view (dense, slice, pitch)", name));
    }
    for (const std::string& name : split_list(indices)) {
        if (name == "none") {
            v.indices.push_back(std::nullopt);
        } else {
            const pj::DType dtype = parse_dtype(name, "--idx");
            if (dtype != pj::DType::s32 && dtype != pj::DType::s64) {
                throw InputError(fmt::format("--idx {}: indices are none, s32 or s64", name));
            }
            v.indices.push_back(dtype);
        }
    }
    return v;
}

std::vector<Case> expand(const std::vector<Case>& cases, const Variants& variants) {
    if (variants.dtypes.empty() && variants.layouts.empty() && variants.indices.empty() && variants.views.empty())
        return cases;
    std::vector<Case> expanded;
    std::set<std::string> seen;
    for (const Case& c : cases) {
        for (const auto& dtype : or_keep(variants.dtypes)) {
            for (const auto& layout : or_keep(variants.layouts)) {
                for (const auto& indices : or_keep(variants.indices)) {
                    for (const auto& view : or_keep(variants.views)) {
                        pj::AnyPoolDesc desc = c.desc;
                        std::visit([&](auto& d) { apply(d, dtype, layout, indices); }, desc);
                        if (view) std::visit([&](auto& d) { apply_view(d, *view); }, desc);
                        Case variant = parse_case(pj::to_string(desc), c.where);
                        if (seen.insert(variant.text).second) expanded.push_back(std::move(variant));
                    }
                }
            }
        }
    }
    return expanded;
}

std::string join_dims(const std::vector<std::int64_t>& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    return s;
}

Case parse_case(std::string_view line, const std::string& where) {
    try {
        pj::AnyPoolDesc desc = pj::parse_problem(line);
        // resolve() validates too, so a configuration that parses but cannot be created fails here, named.
        const pj::Problem problem = std::visit([](const auto& d) { return pj::resolve(d); }, desc);
        std::string text = pj::to_string(desc);
        std::string label = std::visit([](const auto& d) { return short_label(d); }, desc);
        return {where, std::move(desc), problem, std::move(text), std::move(label)};
    } catch (const std::exception& e) {
        throw InputError(fmt::format("{}: {}", where, e.what()));
    }
}

std::vector<Case> read_problem_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(fmt::format("{}: cannot open", path));
    std::vector<Case> cases;
    std::string line;
    for (int line_number = 1; std::getline(in, line); ++line_number) {
        if (is_comment_or_blank(line)) continue;
        cases.push_back(parse_case(line, fmt::format("{}:{}", path, line_number)));
    }
    return cases;
}

}  // namespace pooljit_bench
