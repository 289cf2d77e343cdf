#include "report.hpp"

#include <fmt/core.h>

#include <cmath>

namespace pooljit_bench {
namespace {

bool measured(double x) { return !std::isnan(x); }

std::string format_fixed(double x, int decimals) { return measured(x) ? fmt::format("{:.{}f}", x, decimals) : "-"; }

std::string format_ratio(double r) {
    if (!measured(r)) return "-";
    return fmt::format("{:.{}f}x", r, r >= 100 ? 0 : r >= 10 ? 1 : 2);
}

std::string fit(const std::string& s, std::size_t width) {
    return s.size() <= width ? s : s.substr(0, width - 1) + "~";
}

std::string csv_number(double x) { return measured(x) ? fmt::format("{:.6g}", x) : ""; }

std::string csv_text(const std::string& s) {
    std::string quoted = "\"";
    for (const char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return quoted + "\"";
}

}  // namespace

std::string format_us(double us) {
    if (!measured(us)) return "-";
    if (us < 10) return fmt::format("{:.2f}", us);
    if (us < 1000) return fmt::format("{:.1f}", us);
    return fmt::format("{:.0f}", us);
}

double Row::ratio_inference() const { return peer.inference.us / exec_us; }
double Row::ratio_workspace() const { return peer.training.us / exec_us; }
double Row::ratio_xnnpack() const { return xnnpack.mismatch.empty() ? xnnpack.us / exec_us : not_measured; }
double Row::ratio() const { return c && c->problem.has_indices ? ratio_workspace() : ratio_inference(); }

Table::Table(std::FILE* out, std::size_t label_width, bool show_capacity)
    : out_(out), label_width_(label_width), show_capacity_(show_capacity) {}

void Table::print_header() const {
    fmt::print(out_, "{:<{}}  {:<10} {:>8} {:>8} {:>9} {:>6} {:>5}{} {:<5} {:<20} {:>9} {:>9} {:>6} {:>10} {:>9}\n",
               "problem", label_width_, "impl", "miss us", "hit us", "exec us", "GB/s", "%copy",
               show_capacity_ ? "  cap" : "", "check", "oneDNN impl", "oneDNN us", "+ws us", "ratio", "XNNPACK us",
               "XNN ratio");
    std::fflush(out_);
}

void Table::print_row(const Row& row) const {
    const bool has_indices = row.c->problem.has_indices;
    std::string hit = format_us(row.create_hit_us);
    if (measured(row.create_hit_us) && !row.hit_was_cached) hit += "*";
    // A time XNNPACK took to compute other values than pooljit's is marked; the note under the row says where.
    const std::string xnnpack_us = format_us(row.xnnpack.us) + (row.xnnpack.mismatch.empty() ? "" : "!");
    fmt::print(out_, "{:<{}}  {:<10} {:>8} {:>8} {:>9} {:>6} {:>5}{} {:<5} {:<20} {:>9} {:>9} {:>6} {:>10} {:>9}\n",
               fit(row.c->label, label_width_), label_width_, fit(row.impl, 10), format_us(row.create_miss_us), hit,
               format_us(row.exec_us), format_fixed(row.gbps, 1), format_fixed(row.percent_of_copy, 0),
               show_capacity_ ? fmt::format(" {:>4}", format_fixed(row.spin_capacity, 2)) : "", row.check,
               fit(row.peer.inference.impl, 20), format_us(row.peer.inference.us),
               has_indices ? format_us(row.peer.training.us) : "-", format_ratio(row.ratio()), xnnpack_us,
               format_ratio(row.ratio_xnnpack()));
    for (const std::string& note : row.notes) fmt::print(out_, "    {}: {}\n", row.c->where, note);
    std::fflush(out_);
}

CsvWriter::CsvWriter(std::FILE* out, int threads, double copy_gbps)
    : out_(out), threads_(threads), copy_gbps_(copy_gbps) {}

void CsvWriter::print_header() const {
    fmt::print(out_,
               "where,problem,label,threads,impl,check,create_miss_us,create_hit_us,create_hit_cached,exec_us,"
               "exec_repetitions,exec_iterations,bytes,gbps,copy_gbps,percent_of_copy,spin_capacity,onednn_impl,"
               "onednn_us,onednn_ws_impl,onednn_ws_us,ratio_inference,ratio_workspace,ratio,xnnpack_impl,xnnpack_us,xnnpack_check,"
               "ratio_xnnpack,notes,choice,rules_us,tuned_us,regret,tuned_choice\n");
    std::fflush(out_);
}

void CsvWriter::print_row(const Row& row) const {
    std::string notes;
    for (const std::string& note : row.notes) notes += (notes.empty() ? "" : "; ") + note;
    const bool has_indices = row.c->problem.has_indices;
    const std::string xnnpack_check = !row.xnnpack.timed() ? "" : row.xnnpack.mismatch.empty() ? "OK" : "MISMATCH";
    fmt::print(out_, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
               csv_text(row.c->where), csv_text(row.c->text), csv_text(row.c->label), threads_, row.impl, row.check,
               csv_number(row.create_miss_us), csv_number(row.create_hit_us), row.hit_was_cached ? 1 : 0,
               csv_number(row.exec_us), row.exec_repetitions, row.exec_iterations, fmt::format("{:.0f}", row.bytes),
               csv_number(row.gbps), csv_number(copy_gbps_), csv_number(row.percent_of_copy),
               csv_number(row.spin_capacity), csv_text(row.peer.inference.impl), csv_number(row.peer.inference.us),
               has_indices ? csv_text(row.peer.training.impl) : "", csv_number(row.peer.training.us),
               csv_number(row.ratio_inference()), csv_number(row.ratio_workspace()), csv_number(row.ratio()),
               csv_text(row.xnnpack.status), csv_number(row.xnnpack.us), xnnpack_check,
               csv_number(row.ratio_xnnpack()), csv_text(notes), csv_text(row.choice), csv_number(row.rules_us),
               csv_number(row.tuned_us), csv_number(row.regret()), csv_text(row.tuned_choice));
    std::fflush(out_);
}

}  // namespace pooljit_bench
