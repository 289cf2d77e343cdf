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
    return s;
}

std::string short_label(const pj::AdaptiveMaxPoolDesc& d) {
    std::string s = fmt::format("adaptive {} {} {} out{}", pj::to_string(d.src.dtype), pj::to_string(d.src.layout),
                                join_dims(d.src.dims), join_dims(d.output_size));
    if (d.index_dtype) s += std::string(" idx=") + pj::to_string(*d.index_dtype);
    return s;
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
template <typename T>
std::vector<std::optional<T>> or_keep(const std::vector<T>& values) {
    if (values.empty()) return {std::nullopt};
    return {values.begin(), values.end()};
}

}  // namespace

Variants parse_variants(const std::string& dtypes, const std::string& layouts, const std::string& indices) {
    Variants v;
    for (const std::string& name : split_list(dtypes)) v.dtypes.push_back(parse_dtype(name, "--dtype"));
    for (const std::string& name : split_list(layouts)) {
        if (name == "nxc") {
            v.layouts.push_back(pj::Layout::nxc);
        } else if (name == "ncx") {
            v.layouts.push_back(pj::Layout::ncx);
        } else {
            throw InputError(fmt::format("--layout {}: not a layout (nxc, ncx)", name));
        }
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
    if (variants.dtypes.empty() && variants.layouts.empty() && variants.indices.empty()) return cases;
    std::vector<Case> expanded;
    std::set<std::string> seen;
    for (const Case& c : cases) {
        for (const auto& dtype : or_keep(variants.dtypes)) {
            for (const auto& layout : or_keep(variants.layouts)) {
                for (const auto& indices : or_keep(variants.indices)) {
                    pj::AnyPoolDesc desc = c.desc;
                    std::visit([&](auto& d) { apply(d, dtype, layout, indices); }, desc);
                    Case variant = parse_case(pj::to_string(desc), c.where);
                    if (seen.insert(variant.text).second) expanded.push_back(std::move(variant));
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
