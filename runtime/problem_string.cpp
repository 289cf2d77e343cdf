// Problem strings (DESIGN.md section 4): one line per configuration, printed with every key, parsed with
// defaults for omitted keys.
#include "runtime/dtype.hpp"

#include <pooljit/pooljit.hpp>

#include <charconv>
#include <map>
#include <set>
#include <sstream>

namespace pooljit {
namespace {

std::string join_dims(const std::vector<std::int64_t>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) s += 'x';
        s += std::to_string(v[i]);
    }
    return s;
}

// An attribute vector as the kernel reads it: empty means `fill` on every spatial axis.
std::vector<std::int64_t> or_fill(const std::vector<std::int64_t>& v, std::size_t n, std::int64_t fill) {
    return v.empty() ? std::vector<std::int64_t>(n, fill) : v;
}

const char* auto_pad_name(AutoPad a) {
    switch (a) {
        case AutoPad::explicit_pads: return "explicit";
        case AutoPad::valid: return "valid";
        case AutoPad::same_upper: return "same_upper";
        case AutoPad::same_lower: return "same_lower";
    }
    return "invalid";
}

const char* rounding_name(Rounding r) {
    switch (r) {
        case Rounding::floor: return "floor";
        case Rounding::ceil: return "ceil";
        case Rounding::ceil_torch: return "ceil_torch";
    }
    return "invalid";
}

// Out-of-range enum values print as "invalid", which parse rejects: an invalid descriptor never prints as a
// valid line.
const char* nan_name(NanPolicy n) {
    return n == NanPolicy::ignore ? "ignore" : n == NanPolicy::propagate ? "propagate" : "invalid";
}
const char* order_name(StorageOrder o) {
    return o == StorageOrder::column_major ? "col" : o == StorageOrder::row_major ? "row" : "invalid";
}

// Parses "key=value" tokens after the op name, rejecting unknown and repeated keys.
class Tokens {
public:
    Tokens(std::string_view line, std::string_view op, std::initializer_list<std::string_view> keys)
        : op_(op), keys_(keys) {
        std::size_t i = 0;
        auto next = [&]() -> std::string_view {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n')) ++i;
            const std::size_t b = i;
            while (i < line.size() && !(line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n')) ++i;
            return line.substr(b, i - b);
        };
        const std::string_view name = next();
        if (name != op) fail(name, "op name must be '" + std::string(op) + "'");
        for (std::string_view tok = next(); !tok.empty(); tok = next()) {
            const auto eq = tok.find('=');
            if (eq == std::string_view::npos || eq == 0) fail(tok, "expected key=value");
            const std::string key(tok.substr(0, eq));
            if (keys_.count(key) == 0) fail(tok, "unknown key '" + key + "'");
            if (!values_.emplace(key, Entry{tok.substr(eq + 1), tok}).second) fail(tok, "key '" + key + "' given twice");
        }
    }

    [[noreturn]] void fail(std::string_view token, const std::string& why) const {
        throw Error("problem string: bad token '" + std::string(token) + "' in " + std::string(op_) + " line: " + why);
    }

    bool has(const std::string& key) const { return values_.count(key) != 0; }

    std::vector<std::int64_t> dims(const std::string& key, const std::vector<std::int64_t>& fallback) const {
        const auto it = values_.find(key);
        if (it == values_.end()) return fallback;
        std::vector<std::int64_t> out;
        std::string_view v = it->second.value;
        if (v.empty()) return out;
        while (true) {
            const auto x = v.find('x');
            const std::string_view part = v.substr(0, x);
            std::int64_t n = 0;
            const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
            if (part.empty() || ec != std::errc() || end != part.data() + part.size())
                fail(it->second.token, "'" + std::string(part) + "' is not a 64-bit integer (dims are written 2x3x4)");
            out.push_back(n);
            if (x == std::string_view::npos) break;
            v = v.substr(x + 1);
        }
        return out;
    }

    template <typename E>
    E choice(const std::string& key, E fallback, std::initializer_list<std::pair<std::string_view, E>> options) const {
        const auto it = values_.find(key);
        if (it == values_.end()) return fallback;
        std::string allowed;
        for (const auto& [name, value] : options) {
            if (it->second.value == name) return value;
            allowed += (allowed.empty() ? "" : ", ") + std::string(name);
        }
        fail(it->second.token, "must be one of " + allowed);
    }

    void require(const std::string& key) const {
        if (!has(key)) throw Error("problem string: " + std::string(op_) + " line lacks the required key '" + key + "='");
    }

private:
    struct Entry {
        std::string_view value, token;
    };
    std::string_view op_;
    std::set<std::string_view> keys_;
    std::map<std::string, Entry, std::less<>> values_;
};

DType parse_dtype(const Tokens& t, const std::string& key, DType fallback) {
    return t.choice(key, fallback,
                    {{"f32", DType::f32}, {"f64", DType::f64}, {"f16", DType::f16}, {"bf16", DType::bf16},
                     {"s8", DType::s8}, {"u8", DType::u8}, {"s32", DType::s32}, {"s64", DType::s64}});
}

Layout parse_layout(const Tokens& t) {
    return t.choice("layout", Layout::ncx,
                    {{"ncx", Layout::ncx}, {"nxc", Layout::nxc}, {"nCx8c", Layout::nCx8c}, {"nCx16c", Layout::nCx16c}});
}

// Views: each tensor's strides, printed only where given (empty: dense in the layout).
std::string strides_keys(const TensorDesc& src, const std::vector<std::int64_t>& dst, const std::vector<std::int64_t>& indices) {
    std::string s;
    if (!src.strides.empty()) s += " src_strides=" + join_dims(src.strides);
    if (!dst.empty()) s += " dst_strides=" + join_dims(dst);
    if (!indices.empty()) s += " idx_strides=" + join_dims(indices);
    return s;
}

// A strides key: empty when absent; given, it must name at least one stride.
std::vector<std::int64_t> parse_strides(const Tokens& t, const std::string& key) {
    std::vector<std::int64_t> v = t.dims(key, {});
    if (t.has(key) && v.empty()) t.fail(key + "=", "strides are written 802816x1x14336x64 (one per dim), or the key left out");
    return v;
}

// idx=none|s32|s64; std::nullopt for none.
std::optional<DType> parse_index_dtype(const Tokens& t) {
    enum class Idx { none, s32, s64 };
    const Idx i = t.choice("idx", Idx::none, {{"none", Idx::none}, {"s32", Idx::s32}, {"s64", Idx::s64}});
    if (i == Idx::none) return std::nullopt;
    return i == Idx::s32 ? DType::s32 : DType::s64;
}

}  // namespace

std::string to_string(const MaxPoolDesc& d) {
    const std::size_t sr = d.src.dims.size() >= 2 ? d.src.dims.size() - 2 : 0;
    std::ostringstream s;
    s << "maxpool dt=" << to_string(d.src.dtype) << " layout=" << to_string(d.src.layout) << " src=" << join_dims(d.src.dims)
      << " k=" << join_dims(d.kernel) << " s=" << join_dims(or_fill(d.strides, sr, 1))
      << " d=" << join_dims(or_fill(d.dilations, sr, 1)) << " pb=" << join_dims(or_fill(d.pads_begin, sr, 0))
      << " pe=" << join_dims(or_fill(d.pads_end, sr, 0)) << " pad=" << auto_pad_name(d.auto_pad)
      << " round=" << rounding_name(d.rounding) << " nan=" << nan_name(d.nan)
      << " idx=" << (d.indices ? to_string(d.indices->dtype) : "none") << " axis=" << (d.indices ? d.indices->axis : 0)
      << " order=" << order_name(d.indices ? d.indices->order : StorageOrder::row_major)
      << strides_keys(d.src, d.dst_strides, d.indices_strides);
    return s.str();
}

std::string to_string(const AdaptiveMaxPoolDesc& d) {
    std::ostringstream s;
    s << "adaptivemaxpool dt=" << to_string(d.src.dtype) << " layout=" << to_string(d.src.layout)
      << " src=" << join_dims(d.src.dims) << " out=" << join_dims(d.output_size)
      << " idx=" << (d.index_dtype ? to_string(*d.index_dtype) : "none")
      << strides_keys(d.src, d.dst_strides, d.indices_strides);
    return s.str();
}

MaxPoolDesc parse_max_pool(std::string_view line) {
    const Tokens t(line, "maxpool",
                   {"dt", "layout", "src", "k", "s", "d", "pb", "pe", "pad", "round", "nan", "idx", "axis", "order",
                    "src_strides", "dst_strides", "idx_strides"});
    t.require("src");
    t.require("k");
    MaxPoolDesc d;
    d.src = {parse_dtype(t, "dt", DType::f32), parse_layout(t), t.dims("src", {}), parse_strides(t, "src_strides")};
    d.dst_strides = parse_strides(t, "dst_strides");
    d.indices_strides = parse_strides(t, "idx_strides");
    d.kernel = t.dims("k", {});
    d.strides = t.dims("s", {});
    d.dilations = t.dims("d", {});
    d.pads_begin = t.dims("pb", {});
    d.pads_end = t.dims("pe", {});
    d.auto_pad = t.choice("pad", AutoPad::explicit_pads,
                          {{"explicit", AutoPad::explicit_pads}, {"valid", AutoPad::valid},
                           {"same_upper", AutoPad::same_upper}, {"same_lower", AutoPad::same_lower}});
    d.rounding = t.choice("round", Rounding::floor,
                          {{"floor", Rounding::floor}, {"ceil", Rounding::ceil}, {"ceil_torch", Rounding::ceil_torch}});
    d.nan = t.choice("nan", NanPolicy::propagate, {{"propagate", NanPolicy::propagate}, {"ignore", NanPolicy::ignore}});
    const std::vector<std::int64_t> axis = t.dims("axis", {0});
    if (axis.size() != 1) t.fail("axis=" + join_dims(axis), "axis takes one integer");
    const StorageOrder order =
        t.choice("order", StorageOrder::row_major, {{"row", StorageOrder::row_major}, {"col", StorageOrder::column_major}});
    if (const auto idx = parse_index_dtype(t)) {
        d.indices = IndexSpec{*idx, axis[0], order};
    } else if (axis[0] != 0 || order != StorageOrder::row_major) {
        t.fail(t.has("axis") ? "axis=" + join_dims(axis) : "order=col", "axis and order need an indices output (idx=s32|s64)");
    }
    return d;
}

AdaptiveMaxPoolDesc parse_adaptive_max_pool(std::string_view line) {
    const Tokens t(line, "adaptivemaxpool",
                   {"dt", "layout", "src", "out", "idx", "src_strides", "dst_strides", "idx_strides"});
    t.require("src");
    t.require("out");
    AdaptiveMaxPoolDesc d;
    d.src = {parse_dtype(t, "dt", DType::f32), parse_layout(t), t.dims("src", {}), parse_strides(t, "src_strides")};
    d.dst_strides = parse_strides(t, "dst_strides");
    d.indices_strides = parse_strides(t, "idx_strides");
    d.output_size = t.dims("out", {});
    d.index_dtype = parse_index_dtype(t);
    return d;
}

AnyPoolDesc parse_problem(std::string_view line) {
    const auto start = line.find_first_not_of(" \t\r\n");
    const std::string_view rest = start == std::string_view::npos ? std::string_view{} : line.substr(start);
    const std::string_view op = rest.substr(0, rest.find_first_of(" \t\r\n"));
    if (op == "maxpool") return parse_max_pool(line);
    if (op == "adaptivemaxpool") return parse_adaptive_max_pool(line);
    throw Error("problem string: bad token '" + std::string(op) + "': the op name must be 'maxpool' or 'adaptivemaxpool'");
}

std::string to_string(const AnyPoolDesc& desc) {
    return std::visit([](const auto& d) { return to_string(d); }, desc);
}

}  // namespace pooljit
