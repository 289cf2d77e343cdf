// Running a problem through generated code and comparing it with the reference interpreter, bit for bit: under an
// ISA cap through the public API, or as a forced plan straight through the executor.
#pragma once

#include "casegen/casegen.hpp"
#include "jit/emit/kernel.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"
#include "support/isa_cap.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pooljit::test {

// Compares the elements of two output tensors bit for bit, and checks that neither run wrote a byte of the
// buffer outside them (a view's gaps keep their poison).
inline void expect_outputs_match(const TensorDesc& desc, const std::vector<std::uint8_t>& got,
                                 const std::vector<std::uint8_t>& want, std::uint8_t got_poison,
                                 std::uint8_t want_poison, const std::string& what) {
    if (const auto d = casegen::first_difference(desc, got.data(), want.data()))
        ADD_FAILURE() << what << " differ at element " << d->element << ": got " << d->got << " (" << d->got_value
                      << "), want " << d->want << " (" << d->want_value << ")";
    if (const auto gap = casegen::first_gap_write(desc, got.data(), got_poison))
        ADD_FAILURE() << what << ": the run wrote byte " << *gap << ", in a gap of the view";
    if (const auto gap = casegen::first_gap_write(desc, want.data(), want_poison))
        ADD_FAILURE() << what << ": the reference wrote byte " << *gap << ", in a gap of the view";
}

// Runs `run(src, dst, indices)` on src and compares values and indices with the reference, bit for bit. The
// outputs start poisoned (differently from the reference's), so an element the run forgot to write differs, and
// a view's gaps must keep their poison.
template <typename Run>
void expect_run_matches_reference(const Problem& p, const std::vector<std::uint8_t>& src, Run run,
                                  const std::string& what) {
    const std::size_t dst_bytes = casegen::byte_size(p.dst_desc());
    const std::size_t index_bytes = p.has_indices ? casegen::byte_size(p.indices_desc()) : 0;
    std::vector<std::uint8_t> got(dst_bytes, 0xA5), want(dst_bytes, 0x5A), got_idx(index_bytes, 0xA5),
        want_idx(index_bytes, 0x5A);
    run(src.data(), got.data(), p.has_indices ? got_idx.data() : nullptr);
    reference::execute(p, src.data(), want.data(), p.has_indices ? want_idx.data() : nullptr);
    expect_outputs_match(p.dst_desc(), got, want, 0xA5, 0x5A, "values on " + what);
    if (p.has_indices) expect_outputs_match(p.indices_desc(), got_idx, want_idx, 0xA5, 0x5A, "indices on " + what);
}

// Adversarial data sends most float rows to the exact (NaN) code; tie data, without NaN, to the fast code.
template <typename Run>
void expect_matches_reference_on_both_data_kinds(const Problem& p, const std::string& line, Run run) {
    const std::uint64_t seed = std::hash<std::string>{}(line);
    for (const auto& [data_name, src] : {std::pair{"adversarial", casegen::adversarial_data(p.src_desc(), seed)},
                                         std::pair{"ties", casegen::tie_data(p.src_desc(), seed)}})
        expect_run_matches_reference(p, src, run, std::string(data_name) + " data");
}

// Creates the problem under POOLJIT_MAX_ISA = isa with `threads` threads; it must be served by jit:isa (no
// demotion), and match the reference on adversarial and tie data.
inline void check_created(const std::string& line, jit::Isa isa, int threads) {
    SCOPED_TRACE(line + " (POOLJIT_MAX_ISA=" + jit::to_string(isa) + ", threads " + std::to_string(threads) + ")");
    const IsaCap cap(jit::to_string(isa));
    set_num_threads(threads);
    const Primitive p = create(parse_problem(line), choice_for(isa));
    EXPECT_EQ(p.impl_name(), std::string("jit:") + jit::to_string(isa));
    expect_matches_reference_on_both_data_kinds(
        p.problem(), line, [&](const void* s, void* d, void* i) { p.execute(s, d, i); });
    set_num_threads(0);
}

// Compiles `plan` (made for p, with options the planner takes only for larger problems) and runs it through the
// executor against the reference.
inline void check_forced_plan(const Problem& p, const jit::KernelPlan& plan, const std::string& line) {
    SCOPED_TRACE(line + " (forced plan on " + jit::to_string(plan.isa) + ")");
    detail::Implementation impl;
    impl.plan = plan;
    impl.kernel = jit::compile(impl.plan);
    impl.impl_name = "forced";
    expect_matches_reference_on_both_data_kinds(
        p, line, [&](const void* s, void* d, void* i) { execute_problem(p, impl, s, d, i); });
}

inline Problem resolve_line(const std::string& line) {
    return std::visit([](const auto& d) { return resolve(d); }, parse_problem(line));
}

// Every data type, as problem strings name them.
inline constexpr const char* all_dtypes[] = {"f32", "f64", "f16", "bf16", "s8", "u8", "s32", "s64"};

// A problem line without dt= in data type dt.
inline std::string with_dtype(const std::string& shape, const char* dt) {
    std::string line = shape;
    line.insert(line.find(' '), std::string(" dt=") + dt);
    return line;
}

// Runs the problem split as the executor splits it for `threads` threads, however small it is, on adversarial
// data (most rows to the exact code) and tie data (the fast code); values and indices compared with the reference.
inline void check_split(const std::string& line, jit::Isa isa, int threads) {
    SCOPED_TRACE(line + " (" + std::string(jit::to_string(isa)) + ", split for " + std::to_string(threads) + " threads)");
    const Problem p = resolve_line(line);
    const std::shared_ptr<const detail::Implementation> impl = detail::choose_implementation(p, isa, choice_for(isa));
    ASSERT_EQ(impl->impl_name, std::string("jit:") + jit::to_string(isa));
    expect_matches_reference_on_both_data_kinds(p, line, [&](const void* s, void* d, void* i) {
        execute_problem_split(p, *impl, s, d, i, threads, true);
    });
}

}  // namespace pooljit::test
