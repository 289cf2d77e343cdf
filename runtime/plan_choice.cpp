// PlanChoice as text: what wisdom files, logs and the tools print and read. "rules", or the fields that differ
// from the rules as key=value tokens in a fixed order.
#include "runtime/dispatch.hpp"

#include <pooljit/pooljit.hpp>

#include <algorithm>
#include <charconv>
#include <sstream>
#include <string>
#include <vector>

namespace pooljit {
namespace {

const char* isa_name(PlanChoice::Isa v) { return v == PlanChoice::Isa::avx512 ? "avx512" : v == PlanChoice::Isa::avx2 ? "avx2" : "rules"; }
const char* nan_name(PlanChoice::Nan v) { return v == PlanChoice::Nan::scan ? "scan" : v == PlanChoice::Nan::watch ? "watch" : "rules"; }
const char* reuse_name(PlanChoice::Reuse v) {
    switch (v) {
        case PlanChoice::Reuse::none: return "none";
        case PlanChoice::Reuse::ring: return "ring";
        case PlanChoice::Reuse::separable: return "separable";
        default: return "rules";
    }
}
const char* switch_name(PlanChoice::Switch v) { return v == PlanChoice::Switch::on ? "on" : v == PlanChoice::Switch::off ? "off" : "rules"; }

[[noreturn]] void refuse(std::string_view token, const std::string& why) {
    throw Error("plan choice: bad token '" + std::string(token) + "': " + why);
}

template <typename E>
E pick(std::string_view token, std::string_view value, std::initializer_list<std::pair<std::string_view, E>> options) {
    std::string allowed;
    for (const auto& [name, e] : options) {
        if (value == name) return e;
        allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    }
    refuse(token, "must be one of " + allowed);
}

std::int32_t number(std::string_view token, std::string_view value, std::int32_t lowest, std::int32_t highest) {
    std::int32_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n < lowest || n > highest)
        refuse(token, "must be an integer in [" + std::to_string(lowest) + ", " + std::to_string(highest) + "]");
    return n;
}

// The numeric parts, their keys and ranges (0 is the rules' value, never written). separable_kib stays under the
// thread stack the README promises (128 KiB) with the rest of a kernel's frame.
struct NumericPart {
    const char* key;
    std::int32_t PlanChoice::*field;
    std::int32_t lowest, highest;
};
constexpr NumericPart numeric_parts[] = {
    {"sweep_bytes", &PlanChoice::sweep_bytes, 1, 1 << 20}, {"separable_kib", &PlanChoice::separable_kib, 1, 32},
    {"prefetch_kib", &PlanChoice::prefetch_kib, -1, 1024}, {"chunk_kib", &PlanChoice::chunk_kib, 1, 1 << 16},
    {"threads", &PlanChoice::threads, 1, 4096},            {"grain", &PlanChoice::grain, 1, 1024},
};

template <typename E>
void check_enum_part(const char* key, E value, E last) {
    if (static_cast<unsigned>(value) > static_cast<unsigned>(last))
        throw Error(std::string("plan choice: ") + key + " = " + std::to_string(static_cast<unsigned>(value)) +
                    ", not one of its enumerators");
}

}  // namespace

namespace detail {
void check_plan_choice(const PlanChoice& c) {
    check_enum_part("isa", c.isa, PlanChoice::Isa::avx2);
    check_enum_part("nan", c.nan, PlanChoice::Nan::watch);
    check_enum_part("reuse", c.reuse, PlanChoice::Reuse::separable);
    check_enum_part("planes", c.planes, PlanChoice::Switch::off);
    check_enum_part("pairs", c.pairs, PlanChoice::Switch::off);
    check_enum_part("masked", c.masked, PlanChoice::Switch::off);
    check_enum_part("tap_pairs", c.tap_pairs, PlanChoice::Switch::off);
    check_enum_part("ranks", c.ranks, PlanChoice::Switch::off);
    check_enum_part("bands", c.bands, PlanChoice::Switch::off);
    check_enum_part("vertical", c.vertical, PlanChoice::Switch::off);
    check_enum_part("ranges", c.ranges, PlanChoice::Switch::off);
    for (const NumericPart& part : numeric_parts) {
        const std::int32_t v = c.*part.field;
        if (v != 0 && (v < part.lowest || v > part.highest))
            throw Error(std::string("plan choice: ") + part.key + " = " + std::to_string(v) + ", must be 0 (the rules) or in [" +
                        std::to_string(part.lowest) + ", " + std::to_string(part.highest) + "]");
    }
}
}  // namespace detail

std::string to_string(const PlanChoice& c) {
    if (c.is_rules()) return "rules";
    std::ostringstream s;
    const auto put = [&](const char* key, const auto& value) { s << (s.tellp() > 0 ? " " : "") << key << "=" << value; };
    if (c.isa != PlanChoice::Isa::rules) put("isa", isa_name(c.isa));
    if (c.nan != PlanChoice::Nan::rules) put("nan", nan_name(c.nan));
    if (c.reuse != PlanChoice::Reuse::rules) put("reuse", reuse_name(c.reuse));
    if (c.planes != PlanChoice::Switch::rules) put("planes", switch_name(c.planes));
    if (c.pairs != PlanChoice::Switch::rules) put("pairs", switch_name(c.pairs));
    if (c.masked != PlanChoice::Switch::rules) put("masked", switch_name(c.masked));
    if (c.tap_pairs != PlanChoice::Switch::rules) put("tap_pairs", switch_name(c.tap_pairs));
    if (c.ranks != PlanChoice::Switch::rules) put("ranks", switch_name(c.ranks));
    if (c.bands != PlanChoice::Switch::rules) put("bands", switch_name(c.bands));
    if (c.vertical != PlanChoice::Switch::rules) put("vertical", switch_name(c.vertical));
    if (c.ranges != PlanChoice::Switch::rules) put("ranges", switch_name(c.ranges));
    if (c.sweep_bytes != 0) put("sweep_bytes", c.sweep_bytes);
    if (c.separable_kib != 0) put("separable_kib", c.separable_kib);
    if (c.prefetch_kib != 0) put("prefetch_kib", c.prefetch_kib);
    if (c.chunk_kib != 0) put("chunk_kib", c.chunk_kib);
    if (c.threads != 0) put("threads", c.threads);
    if (c.grain != 0) put("grain", c.grain);
    return s.str();
}

PlanChoice parse_plan_choice(std::string_view text) {
    PlanChoice c;
    std::istringstream in{std::string(text)};
    std::vector<std::string> tokens;
    for (std::string t; in >> t;) tokens.push_back(t);
    if (tokens.size() == 1 && tokens[0] == "rules") return c;
    if (tokens.empty()) throw Error("plan choice: empty; write 'rules' or key=value tokens (isa=avx2 nan=watch ...)");
    std::vector<std::string> seen;
    for (const std::string& token : tokens) {
        const auto eq = token.find('=');
        if (eq == std::string::npos || eq == 0) refuse(token, "expected key=value, or 'rules' alone");
        const std::string key = token.substr(0, eq);
        const std::string_view value = std::string_view(token).substr(eq + 1);
        for (const std::string& k : seen)
            if (k == key) refuse(token, "key '" + key + "' given twice");
        seen.push_back(key);
        using I = PlanChoice::Isa;
        using N = PlanChoice::Nan;
        using R = PlanChoice::Reuse;
        using S = PlanChoice::Switch;
        if (key == "isa") c.isa = pick<I>(token, value, {{"avx512", I::avx512}, {"avx2", I::avx2}});
        else if (key == "nan") c.nan = pick<N>(token, value, {{"scan", N::scan}, {"watch", N::watch}});
        else if (key == "reuse") c.reuse = pick<R>(token, value, {{"none", R::none}, {"ring", R::ring}, {"separable", R::separable}});
        else if (key == "planes") c.planes = pick<S>(token, value, {{"on", S::on}, {"off", S::off}});
        else if (key == "pairs") c.pairs = pick<S>(token, value, {{"on", S::on}, {"off", S::off}});
        else if (key == "masked") c.masked = pick<S>(token, value, {{"on", S::on}, {"off", S::off}});
        else if (key == "tap_pairs") c.tap_pairs = pick<S>(token, value, {{"on", S::on}, {"off", S::off}});
        else if (key == "ranks") c.ranks = pick<S>(token, value, {{"on", S::on}, {"off", S::off}});
        else if (key == "bands") c.bands = pick<S>(token, value, {{"on", S::on}, {"off", S::off}});
        else if (key == "vertical") c.vertical = pick<S>(token, value, {{"on", S::on}, {"off", S::off}});
        else if (key == "ranges") c.ranges = pick<S>(token, value, {{"on", S::on}, {"off", S::off}});
        else if (const auto part = std::find_if(std::begin(numeric_parts), std::end(numeric_parts),
                                                [&](const NumericPart& n) { return key == n.key; });
                 part != std::end(numeric_parts))
            c.*part->field = number(token, value, part->lowest, part->highest);
        else refuse(token, "unknown key '" + key + "' (isa, nan, reuse, planes, pairs, masked, tap_pairs, ranks, bands, vertical, ranges, sweep_bytes, separable_kib, "
                           "prefetch_kib, chunk_kib, threads, grain)");
    }
    if (c.prefetch_kib == 0 && std::find(seen.begin(), seen.end(), "prefetch_kib") != seen.end())
        refuse("prefetch_kib=0", "0 is the rules' value: leave the key out");
    return c;
}

}  // namespace pooljit
