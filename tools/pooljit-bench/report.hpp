// What pooljit-bench prints: one table row per problem, readable in 180 columns, and the same figures as CSV.
#pragma once

#include "onednn.hpp"
#include "problems.hpp"
#include "xnnpack.hpp"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace pooljit_bench {

inline constexpr double not_measured = std::numeric_limits<double>::quiet_NaN();

struct Row {
    const Case* c = nullptr;
    std::string impl = "-";
    std::string check = "-";  // "OK", "FAIL" (differs from the reference), "ERROR", "-" (not checked)
    double create_miss_us = not_measured;
    double create_hit_us = not_measured;
    bool hit_was_cached = true;  // false: no cache hit was counted while timing repeated creates
    double exec_us = not_measured;
    int exec_repetitions = 0;
    std::int64_t exec_iterations = 0;
    double bytes = 0;            // src + dst + indices
    double gbps = not_measured;
    double percent_of_copy = not_measured;
    double spin_capacity = not_measured;  // measured right after this row's timing, when threads > 1
    PeerResult peer;
    XnnpackResult xnnpack;
    // Measured choice: the choice the timed primitive was made under; with --wisdom the rules' time beside it;
    // with --regret the tuner's winner and both timed here: regret = rules / tuned.
    std::string choice = "rules";
    double rules_us = not_measured;
    double tuned_us = not_measured;
    std::string tuned_choice;
    double regret() const { return rules_us / tuned_us; }
    std::vector<std::string> notes;       // printed under the row

    // oneDNN time over pooljit time, like for like: with oneDNN's workspace when pooljit writes indices.
    double ratio() const;
    double ratio_inference() const;
    double ratio_workspace() const;
    // XNNPACK time over pooljit time; not measured where XNNPACK's output differed from pooljit's.
    double ratio_xnnpack() const;
};

class Table {
public:
    Table(std::FILE* out, std::size_t label_width, bool show_capacity);
    void print_header() const;
    void print_row(const Row& row) const;

private:
    std::FILE* out_;
    std::size_t label_width_;
    bool show_capacity_;
};

class CsvWriter {
public:
    CsvWriter(std::FILE* out, int threads, double copy_gbps);
    void print_header() const;
    void print_row(const Row& row) const;

private:
    std::FILE* out_;
    int threads_;
    double copy_gbps_;
};

// "12.3", "1.23", "1234"; "-" when not measured.
std::string format_us(double us);

}  // namespace pooljit_bench
