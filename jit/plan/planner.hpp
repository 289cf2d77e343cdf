// The planner's steps, one class whose member functions live by what they decide (jit/plan.cpp says which file
// holds which), and the constants that steps in more than one of those files read. Internal to jit/: the class is
// hidden from the library's exports, as the anonymous namespace of the one file it came from kept it.
#pragma once

#include "jit/isa/caps.hpp"
#include "jit/plan/plan.hpp"
#include "jit/plan/plan_rows.hpp"
#include "jit/plan/registers.hpp"

#include <pooljit/types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pooljit::jit {

// Width taps up to this count are unrolled; longer windows (a 1-D kernel of 200 taps) loop.
constexpr std::int64_t max_unrolled_width_taps = 8;
// The column ring unrolls its width taps up to this many (SPP's 9: one new row maximum and 9 merges an output
// instead of 81 taps).
constexpr std::int64_t max_column_ring_width_taps = 16;
// Channels-last rows read by fewer windows per input element than this are bound by memory (k2 s2, k3 s2, a
// global pool); k2 s1 and denser windows by compares.
constexpr double min_reads_of_compare_bound_rows = 4.0;
// Width taps a window needs for two chains of maxima a kernel row (KernelPlan::row_chains): 2 a chain.
constexpr std::int64_t min_row_chain_taps = 4;
// Column rings (channels last): ring_rows x vectors_per_block registers (twice that with indices), five eighths
// of the register file (20 of AVX-512's 32, beside the accumulators, their indices and 3 to 5 others).
constexpr int column_ring_register_eighths = 5;
// Beyond this many output rows along an outer axis the executor computes a row's taps itself (no table that
// grows with the output).
constexpr std::int64_t max_table_rows = std::int64_t{1} << 16;

class [[gnu::visibility("hidden")]] Planner {
public:
    Planner(const Problem& p, const IsaCaps& caps, const PlanOptions& options);

    // The steps in their run order (plan.cpp).
    KernelPlan plan() &&;

private:
    // A step's decision: taken, with what it chose, or declined, with why.
    void chose(const char* step, const std::string& what) { plan_.choices.push_back(std::string(step) + ": " + what); }
    void declined(const char* step, const std::string& why) {
        plan_.choices.push_back(std::string(step) + ": no, " + why);
    }
    bool fits_registers(const KernelPlan& candidate) const {
        return vector_registers_needed(candidate, caps_) <= caps_.vector_registers;
    }
    std::string registers_text(const KernelPlan& candidate) const {
        return std::to_string(vector_registers_needed(candidate, caps_)) + " vector registers of " +
               std::to_string(caps_.vector_registers);
    }
    std::int64_t elem() const { return static_cast<std::int64_t>(size_of(p_.dtype)); }
    std::int64_t dilation_of(int a) const { return adaptive_ ? 1 : p_.dilation[static_cast<std::size_t>(a)]; }
    // Channels-last code whose channels are consecutive in runs shorter than C (blocked layouts, views whose
    // channels are apart): a call's block stays inside one run.
    bool channels_apart() const { return !lanes_are_outputs_ && memory_.channel_run < p_.channels; }

    // The measured choice (PlanOptions::choice): what it asks for, and its refusal where the problem rules it out.
    const PlanChoice& choice() const { return options_.choice; }
    [[noreturn]] void unhonoured(const char* part, const std::string& why) const {
        throw UnhonouredChoice(std::string("plan choice ") + part + " cannot be honoured: " + why);
    }
    bool reuse_is(PlanChoice::Reuse r) const { return choice().reuse == r; }
    // The checks after the steps whose answers a choice named: each was taken.
    void check_choice_honoured();

    // plan.cpp: lanes, blocking, the width's code and the facts the code and the executor walk.
    void choose_lanes();
    std::string byte_rows_declined() const;
    std::string byte_plane_registers_declined();
    std::string byte_lanes_taken() const;
    bool byte_pairs_shape() const;
    bool long_index_chains() const;
    void choose_vector_blocking();
    void choose_channel_blocks();
    void balance_channel_blocks();
    void choose_width_code();
    void choose_width_ranges();
    void set_strides();
    void set_prefetch();
    bool sweep_prefetch_rows() const;
    void set_indices();
    void set_tiling();
    void set_expected_work();  // plan_work.cpp

    // plan_nan.cpp: a scan before the fast copy of a float row, or a watch within it.
    void choose_nan_scan();
    void choose_planar_nan_watch();
    void choose_row_code_nan_watch();
    void watch_instead_of_scan(const char* step, const std::string& why);
    void choose_half_float_scan();
    void choose_watch_chains();
    void choose_shared_watch();

    // plan_items.cpp: the shapes, loads and unrolling of the fast copy's items.
    void choose_fast_row();
    void choose_whole_plane();
    void choose_byte_planes();
    void take_plane_code();  // plan_flat.cpp
    std::string flat_planes_declined() const;
    void choose_flat_planes();
    void choose_blocked_pixels();  // plan_blocked_pixels.cpp
    std::string byte_bands_declined() const;  // plan_bands.cpp
    void choose_byte_bands();
    void choose_widened_pairs();
    void choose_even_element_loads();
    void choose_paired_tap_loads();
    void choose_tail_back_reads();
    void set_byte_pair_reach();
    void choose_row_chains();
    std::string blocked_sweep_declined() const;
    void choose_tap_passes();
    void choose_outer_unroll();
    std::string vertical_rows_declined() const;  // plan_vertical.cpp
    void choose_vertical_rows();
    std::int64_t most_common_taps(std::size_t axis) const;

    // plan_reuse.cpp: rings, separable buffers and planes in registers.
    void choose_row_ring();
    bool column_ring_shape() const;
    bool column_ring_indices() const;
    void choose_column_ring();
    // windows_may_abut: windows a whole window apart (sharing no row) count too (byte rows).
    bool separable_row_steps(std::int64_t& interval, std::int64_t& row_step, bool windows_may_abut = false) const;
    std::string separable_pixels_declined() const;
    std::string separable_row_indices_declined() const;
    SeparableRows separable_pixels_of(int vectors) const;
    int separable_pixel_vectors() const;
    bool separable_block_fits(std::int64_t lanes, int vectors) const;
    bool padded_byte_pairs_allowed() const;
    void choose_separable_pixels();
    void choose_planes();
    void take_planes(PlanePlan plane);
    void choose_separable();
    void choose_separable_accumulators();

    const Problem& p_;
    const IsaCaps& caps_;
    const PlanOptions options_;
    const MemoryFacts memory_;
    const bool adaptive_, lanes_are_outputs_;
    KernelPlan plan_;
    std::size_t wa_ = 0;  // the innermost spatial axis
    WidthAxis axis_{};
    std::vector<PositionRun> runs_;
    std::int64_t multipliers_[3] = {0, 0, 0};
    bool huge_index_plane_ = false, small_plane_ = false, half_vectors_ = false, window_relative_ = false;
    // Planar u8/s8 rows compared in byte lanes (choose_lanes): through separable rows (byte_rows_shape), or, where
    // byte_planes_in_registers_, small planes in registers (byte_plane_ holds their permutes for choose_planes).
    bool byte_rows_ = false, byte_planes_in_registers_ = false;
    PlanePlan byte_plane_;
};

}  // namespace pooljit::jit
