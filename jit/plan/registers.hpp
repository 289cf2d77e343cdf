// The vector register budget: which registers a plan's code takes, by role. The planner asks it whether a
// strategy fits the ISA's registers (vector_registers_needed), and the emitters hand out exactly these
// registers, so the two cannot disagree.
#pragma once

#include "jit/isa/caps.hpp"
#include "jit/plan/plan.hpp"

#include <algorithm>
#include <iterator>

namespace pooljit::jit {

constexpr int max_vectors = 4;
// Running NaN sums a watched vector of the block may take its taps' loads into, in turn (KernelPlan::watch_chains).
constexpr int max_watch_chains = 4;
// Separable rows and pixels: at most this many maxima in flight beyond the block's accumulators.
constexpr int max_separable_extras = 8;

// Separable pixels and rows with indices, on a trait without opmasks: vector registers that also hold maxima in
// flight (their indices, too) besides the ones no role takes. The row code takes them only within one tap or one
// store (the tap's broadcast index, a widened mask, a tail mask or a stride-2 load) or as a constant loaded once
// (-1, loaded again when the separable code leaves for the row code), and the two codes never interleave. 0
// elsewhere.
inline int separable_alias_registers(const KernelPlan& plan, const IsaCaps& caps) {
    return plan.separable.enabled() && plan.has_indices && !caps.opmasks ? 4 : 0;
}

// Vector registers a trait without opmasks keeps for its masks and broadcasts (-1: the plan never needs it).
struct TraitVectorRoles {
    int take = -1;       // lanes where a fresh value replaces the accumulator
    int lane_mask = -1;  // transient lane masks (NaN lanes, compare scratch)
    int tail_mask = -1;  // the valid lanes of a partial vector
    int tap_index = -1;  // the current tap's index, broadcast
    int wide_mask = -1;  // a lane mask widened to 64-bit lanes
};

// Running NaN sums of a whole-plane item or separable rows: the plan's whole_plane_sums for a looped whole plane,
// one elsewhere.
inline int plane_sums(const KernelPlan& plan) { return plan.loop_whole_plane ? plan.whole_plane_sums : 1; }

// Vector registers by role, handed out once each, so no number means two things within one code: only the
// separable pixels' and rows' maxima with indices share registers with roles of the row code
// (separable_alias_registers).
struct VectorRoles {
    int acc[max_vectors] = {-1, -1, -1, -1}, raw[max_vectors] = {-1, -1, -1, -1}, idx[max_vectors] = {-1, -1, -1, -1};
    // Watched rows: the running sums of the values vector v of the block loads, plan.watch_chains of them taken
    // in turn by its taps: sum c of vector v is watch[c * max_vectors + v].
    int watch[max_vectors * max_watch_chains];
    // Two chains of maxima a kernel row (plan.row_chains): chain c of vector v is row_chain[c * max_vectors + v].
    int row_chain[2 * max_vectors] = {-1, -1, -1, -1, -1, -1, -1, -1};
    int fresh = -1, fresh_raw = -1, chan_base = -1, minus_one = -1, scratch = -1, empty_value = -1;
    int pair_hi = -1;  // ncx lanes at stride 2: the second of two loaded vectors (scratch is the first)
    int item_base = -1;  // window-relative indices: the call's base plus the window's index
    int rank = -1;       // taps-as-lanes items: the scan rank of the row each lane's maximum came from
    // Whole-plane items and separable rows of floats: the first of plane_sums(plan) running sums that notice a NaN.
    int plane_sum = -1;
    int ring = -1;       // row-maxima rings: the first of ring_rows x vectors registers, row by row
    // Separable rows and pixels: the maxima in flight beyond the block's accumulators, their value registers
    // first, then (with indices) as many index registers, one for each.
    int separable[2 * max_separable_extras];
    TraitVectorRoles trait;
    int used = 0;

    VectorRoles(const KernelPlan& plan, const IsaCaps& caps) {
        std::fill(std::begin(watch), std::end(watch), -1);
        std::fill(std::begin(separable), std::end(separable), -1);
        const int vectors = plan.vectors_per_block;
        const bool f16 = plan.dtype == DType::f16, indices = plan.has_indices;
        const auto any_fast = [&](bool Segment::*what) {
            return std::any_of(plan.fast_segments.begin(), plan.fast_segments.end(), [&](const Segment& s) { return s.*what; });
        };
        for (int v = 0; v < vectors; ++v) acc[v] = used++;
        if (f16)
            for (int v = 0; v < vectors; ++v) raw[v] = used++;
        if (indices)
            for (int v = 0; v < vectors; ++v) idx[v] = used++;
        if (plan.watch_rows_for_nan)
            for (int c = 0; c < plan.watch_chains; ++c)
                for (int v = 0; v < vectors; ++v) watch[c * max_vectors + v] = used++;
        if (plan.row_chains > 1)
            for (int c = 0; c < 2; ++c)
                for (int v = 0; v < vectors; ++v) row_chain[c * max_vectors + v] = used++;
        fresh = used++;
        if (f16) fresh_raw = used++;
        if (indices) {
            chan_base = used++;
            minus_one = used++;
        }
        scratch = used++;
        empty_value = used++;
        if (plan.strategy == Strategy::ncx_width) pair_hi = used++;
        if (indices && plan.index_relative_to_window) item_base = used++;
        if (plan.taps_as_lanes_ranked) rank = used++;
        if ((any_fast(&Segment::whole_plane) && plan.scan_rows_for_nan) || (plan.separable.enabled() && plan.is_float)) {
            plane_sum = used;
            used += plane_sums(plan);
        }
        const int ring_vectors = static_cast<int>(plan.ring_rows) * vectors * (indices ? 2 : 1);
        if (ring_vectors > 0) {
            ring = used;
            used += ring_vectors;
        }
        if (!caps.opmasks) {
            // Compares that take a lane (indices, floats' exact code, 64-bit integer max), NaN lanes (floats).
            if (indices || plan.is_float || plan.compare == CompareType::s64) trait.take = used++;
            if (plan.is_float) trait.lane_mask = used++;
            trait.tail_mask = used++;
            if (indices) {
                trait.tap_index = used++;
                trait.wide_mask = used++;
            }
        }
        const int extras = std::clamp(plan.separable.accumulators - vectors, 0, max_separable_extras);
        // Planar rows load partial vectors of their input through the tail mask while maxima in flight are
        // live: their fourth alias is the register of the row code's loads at stride 2.
        const int fourth = plan.strategy == Strategy::nxc_channels ? trait.tail_mask : pair_hi;
        const int aliases[] = {trait.tap_index, trait.wide_mask, fourth, minus_one};
        const int alias_count = separable_alias_registers(plan, caps);
        for (int r = 0; r < extras * (indices ? 2 : 1); ++r) separable[r] = r < alias_count ? aliases[r] : used++;
    }
};

// Vector registers the plan's code takes on an ISA with these capabilities.
inline int vector_registers_needed(const KernelPlan& plan, const IsaCaps& caps) { return VectorRoles(plan, caps).used; }

}  // namespace pooljit::jit
