// The problems pooljit-bench times: read from files of problem strings or from --case, validated up front so
// that a bad line fails before anything is timed, and named by file:line in every message.
#pragma once

#include <pooljit/pooljit.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pooljit_bench {

struct Case {
    std::string where;        // "file:line" or "--case N"
    pooljit::AnyPoolDesc desc;
    pooljit::Problem problem;
    std::string text;         // the full problem string (to_string), for CSV and --filter
    std::string label;        // short form: keys at their default value left out
};

// A malformed line or an unreadable file; the message starts with where it happened.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Every problem of a file: one per line, blank lines and lines starting with '#' ignored.
std::vector<Case> read_problem_file(const std::string& path);
Case parse_case(std::string_view line, const std::string& where);

// Overrides that turn each problem into several (--dtype, --layout, --idx): every combination of the listed
// values replaces the problem's own; an empty list keeps the problem's value. Duplicates are dropped.
// Views a problem's src and dst may be timed as (--view): dense; a channel slice of a tensor of 4x the channels
// (a concat buffer); rows padded by 16 elements (a row pitch).
enum class View { dense, slice, pitch };

struct Variants {
    std::vector<pooljit::DType> dtypes;
    std::vector<pooljit::Layout> layouts;
    std::vector<std::optional<pooljit::DType>> indices;  // nullopt: no indices output
    std::vector<View> views;
};

// "f32,bf16,u8" -> dtypes; "nxc,ncx,nCx16c" -> layouts; "none,s64" -> indices; "dense,slice,pitch" -> views.
// Throws InputError naming the option.
Variants parse_variants(const std::string& dtypes, const std::string& layouts, const std::string& indices,
                        const std::string& views = "");
std::vector<Case> expand(const std::vector<Case>& cases, const Variants& variants);

std::string join_dims(const std::vector<std::int64_t>& dims);

}  // namespace pooljit_bench
