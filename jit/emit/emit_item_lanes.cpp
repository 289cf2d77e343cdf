// An item's lanes: loading a vector of them (one load, a deinterleaved pair, or a gather through the stack),
// starting the accumulators, merging one tap into them, and storing values and indices (empty windows
// included). Taps-as-lanes items merge a row of taps and pick the first maximum across the lanes here too.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

#include <algorithm>
#include <utility>

namespace pooljit::jit {

// Vector v of an item whose lane 0 is at base + offset, into dst (raw: f16 bits): one load; at lane stride 2,
// two loads and a deinterleave, its lanes in the trait's pair order (store_item restores lane order); else lane
// by lane into the gather area. In a masked item (tap >= 0) only
// elements inside the input are loaded. width_tap: the segment's real width tap at base + offset (-1: not known).
template <typename Ops>
void WindowEmitter<Ops>::load_item_vector(const ItemShape& s, int v, const Reg64& base, std::int64_t offset,
                                          const Vmm& dst, bool raw, int tap, std::int64_t width_tap) {
    const bool masked = s.masked != nullptr && tap >= 0;
    const auto load = [&](const Vmm& to, const Address& a, int n, std::uint64_t bits) {
        if constexpr (!Ops::needs_vector_masks) {
            if (masked) {
                ops_.load_value_lanes(to, a, bits);
                return;
            }
        }
        if (raw) ops_.load_raw(to, a, n);
        else ops_.load_value(to, a, n);
    };
    const std::int64_t first_lane = std::int64_t{v} * plan_.lanes;
    const int capacity = register_lanes();
    if (const std::int64_t back = back_read_bytes(s, v); back > 0 && !raw) {
        ops_.load_value(dst, at(base, offset + first_lane * elem() - back), capacity);
        return;
    }
    if (s.lane_step == 1 || s.lanes == 1) {  // one lane: no neighbour to gather
        load(dst, at(base, offset + first_lane * elem()), s.whole_register_loads ? capacity : valid(s, v),
             masked ? lane_bits(s, v, tap) : 0);
        return;
    }
    if (s.lane_step == 2) {
        // valid lanes span 2 * valid - 1 elements: all real taps of real outputs, nothing past them (or whole
        // registers, where the plan says they stay inside the row).
        const std::int64_t start = offset + first_lane * 2 * elem();
        const int span = s.whole_register_loads ? 2 * capacity : 2 * valid(s, v) - 1;
        if (even_element_loads(s) && !raw) {
            // Whole dwords (bf16) or words (bytes) from the element before the span, or up to the element after
            // it, where the row has that element: the even elements widen in place with no odd one to leave out.
            const EvenSpanRoom room = even_span_room(s, v, width_tap);
            if (room == EvenSpanRoom::none)  // also whole-register segments: the plan marks no room there
                ops_.load_even_elements(dst, at(base, start), span, vec(regs_.pair_hi));
            else if (room == EvenSpanRoom::before)
                ops_.load_even_elements_in_pairs(dst, at(base, start - elem()), valid(s, v), true);
            else ops_.load_even_elements_in_pairs(dst, at(base, start), valid(s, v), false);
            return;
        }
        if (plan_.even_word_loads && !raw) {
            // One word load of the span (masked to its elements, and in a masked item to those inside the input),
            // each dword's even element shifted up in place: lane order, which is the trait's pair order.
            const std::uint64_t bits = masked ? span_bits(s, first_lane * 2, span, tap) : (std::uint64_t{1} << span) - 1;
            ops_.load_even_words(dst, at(base, start), bits);
            return;
        }
        const int low = std::min(capacity, span);
        load(vec(regs_.scratch), at(base, start), low, masked ? span_bits(s, first_lane * 2, low, tap) : 0);
        if (span > capacity)
            load(vec(regs_.pair_hi), at(base, start + capacity * elem()), span - capacity,
                 masked ? span_bits(s, first_lane * 2 + capacity, span - capacity, tap) : 0);
        if (in_pair_order(s)) ops_.deinterleave_even_in_pair_order(dst, vec(regs_.scratch), vec(regs_.pair_hi));
        else ops_.deinterleave_even(dst, vec(regs_.scratch), vec(regs_.pair_hi));
        return;
    }
    if constexpr (Ops::needs_vector_masks) {  // AVX2: in registers (no masked items here)
        if (!masked) {
            ops_.gather_value(dst, valid(s, v), raw, vec(regs_.pair_hi), [&](int lane) {
                return at(base, wrap_add(offset, wrap_mul(first_lane + lane, s.lane_step, elem())));
            });
            return;
        }
    }
    for (int lane = 0; lane < valid(s, v); ++lane) {
        if (masked && !tap_inside(s, (first_lane + lane) * s.lane_step, tap)) continue;
        const std::int64_t off = wrap_add(offset, wrap_mul(first_lane + lane, s.lane_step, elem()));
        const Address from = at(base, off);
        copy_bytes(*this, rsp + slot_gather + lane * static_cast<int>(elem()), from.getRegExp(),
                   static_cast<int>(elem()), scratch_);
    }
    load(dst, ptr[rsp + slot_gather], plan_.lanes, all_lanes(s, v));  // stale lanes of the area are never stored
}

template <typename Ops>
void WindowEmitter<Ops>::init_from_first_tap(const ItemShape& s, const Reg64& base) {
    for (int v = 0; v < vectors(s); ++v) {
        if (widened_pair(s, v)) {
            ops_.load_widened_pair(vec(regs_.acc[v]), vec(regs_.acc[v + 1]), at(base, std::int64_t{v} * plan_.lanes * elem()),
                                   pair_valid(s, v));
            ++v;
            continue;
        }
        load_item_vector(s, v, base, 0, vec(regs_.acc[v]), false, -1, 0);
        if (raw_bits()) load_item_vector(s, v, base, 0, vec(regs_.raw[v]), true, -1, 0);
        if (plan_.has_indices) ops_.broadcast_gpr(vec(regs_.idx[v]), tap_index_, plan_.index_lanes_64);
    }
}

// The fast path starts from the type's lowest value (and the first tap's index) and merges every tap, the
// first included, so the window is read once: a strict compare keeps the first index when every element is
// the lowest, whose bits are then the accumulator's. It runs only on input without NaN; the exact path
// starts from the first element (f16's exact path with each lane's raw bits beside its compare value).
// In a masked item a lane's first real tap may be a later one: its index is the one kept on ties.
template <typename Ops>
void WindowEmitter<Ops>::init_lowest(const ItemShape& s) {
    if constexpr (!Ops::needs_vector_masks) {
        if (s.taps_as_lanes && plan_.taps_as_lanes_ranked) ops_.zero_vector(vec(regs_.rank));  // the window's first row
    }
    for (int v = 0; v < vectors(s); ++v) {
        vmovaps(vec(regs_.acc[v]), vec(regs_.empty_value));
        if (!plan_.has_indices) continue;
        ops_.broadcast_gpr(vec(regs_.idx[v]), tap_index_, plan_.index_lanes_64);
        if constexpr (!Ops::needs_vector_masks) {
            if (s.masked == nullptr) continue;
            std::uint64_t covered = lane_bits(s, v, 0);
            for (int t = 1; t < s.masked->taps && covered != all_lanes(s, v); ++t) {
                const std::uint64_t first_here = lane_bits(s, v, t) & ~covered;
                if (first_here == 0) continue;
                covered |= first_here;
                mov(tap_count_, tap_index_);
                add_imm(tap_count_, wrap_mul(t, plan_.index_tap_step_w));
                ops_.broadcast_gpr_lanes(vec(regs_.idx[v]), tap_count_, plan_.index_lanes_64, first_here);
            }
        }
    }
}

// Merges the tap at base + offset (its index in tap_index_, or already prepared) into every vector of the item.
// The fast path compares as if no NaN were present and notes any NaN it loads; the exact path applies the NaN
// policy.
template <typename Ops>
void WindowEmitter<Ops>::merge_tap(const ItemShape& s, const Reg64& base, std::int64_t offset, bool fast, int tap,
                                   bool index_prepared) {
    if (s.taps_as_lanes) {
        merge_row_of_taps(s, base, offset);
        return;
    }
    if (plan_.has_indices && !index_prepared) ops_.prepare_tap_index(tap_index_);
    for (int v = 0; v < vectors(s); ++v) {
        if constexpr (!Ops::needs_vector_masks) {
            if (s.masked != nullptr && tap >= 0) {
                // Fast rows only (no NaN): merged in the lanes where the tap is inside the input.
                const std::uint64_t bits = lane_bits(s, v, tap);
                if (bits == 0) continue;
                load_item_vector(s, v, base, offset, vec(regs_.fresh), false, tap);
                if (plan_.watch_rows_for_nan && tap_watched(tap)) ops_.note_nan(vec(next_watch(v)), vec(regs_.fresh));
                if (!plan_.has_indices) {
                    ops_.max_fast_lanes(vec(regs_.acc[v]), vec(regs_.fresh), bits);
                    continue;
                }
                ops_.compute_take_fast_lanes(vec(regs_.fresh), vec(regs_.acc[v]), bits);
                ops_.blend_take(vec(regs_.acc[v]), vec(regs_.fresh));
                ops_.blend_take_index(vec(regs_.idx[v]));
                continue;
            }
        }
        if (widened_pair(s, v)) {  // values of two vectors from one load: no indices, no raw bits
            ops_.load_widened_pair(vec(regs_.fresh), vec(regs_.scratch),
                                   at(base, offset + std::int64_t{v} * plan_.lanes * elem()), pair_valid(s, v));
            merge_loaded_values(v, vec(regs_.fresh), fast, tap);
            merge_loaded_values(v + 1, vec(regs_.scratch), fast, tap);
            ++v;
            continue;
        }
        if (folds_tap_load(s, v, fast, tap)) {
            const Address a = at(base, offset + std::int64_t{v} * plan_.lanes * elem() - back_read_bytes(s, v));
            if (first_tap_moves_) ops_.load_value(vec(regs_.acc[v]), a, register_lanes());
            else ops_.max_fast_earlier(vec(regs_.acc[v]), a, vec(regs_.fresh));
            continue;
        }
        load_item_vector(s, v, base, offset, vec(regs_.fresh), false, -1, tap);
        if (fast && plan_.watch_rows_for_nan && tap_watched(tap)) ops_.note_nan(vec(next_watch(v)), vec(regs_.fresh));
        if (fast && !plan_.has_indices && !raw_bits()) {
            if (first_tap_moves_) vmovaps(vec(regs_.acc[v]), vec(regs_.fresh));
            else ops_.max_fast(vec(regs_.acc[v]), vec(regs_.fresh));
            continue;
        }
        if (raw_bits()) load_item_vector(s, v, base, offset, vec(regs_.fresh_raw), true);
        if (fast) {
            ops_.compute_take_fast(vec(regs_.fresh), vec(regs_.acc[v]));
            ops_.take_fast(vec(regs_.acc[v]), vec(regs_.fresh));
        } else {
            ops_.compute_take(vec(regs_.fresh), vec(regs_.acc[v]));
            ops_.blend_take(vec(regs_.acc[v]), vec(regs_.fresh));
        }
        if (raw_bits()) ops_.blend_take(vec(regs_.raw[v]), vec(regs_.fresh_raw));
        if (plan_.has_indices) ops_.blend_take_index(vec(regs_.idx[v]));
    }
}

// Fast items of plans with paired_tap_loads at lane stride 2 (no masks, no widening loads but bf16's, no indices,
// no raw bits): width taps t and t + 1, one element apart, come from one pair of loads (bf16: one load of whole
// dwords, whose low and high halves are the two taps).
template <typename Ops>
bool WindowEmitter<Ops>::merges_tap_pairs(const ItemShape& s, bool fast) const {
    return plan_.paired_tap_loads && fast && !plan_.has_indices && !f16() && !s.taps_as_lanes && s.masked == nullptr &&
           s.lane_step == 2 && s.lanes > 1 && (!even_element_loads(s) || plan_.dtype == DType::bf16) &&
           plan_.src_tap_stride_w == elem();
}

// Width taps `tap` (at base + offset) and tap + 1 into every vector of a fast item (merges_tap_pairs): the
// even elements of the span from tap's first element are tap's lanes, the odd ones tap + 1's, merged in that
// order. The span holds 2 * valid elements, the union of the two taps' spans (or whole registers, where the
// plan says they stay inside the row).
template <typename Ops>
void WindowEmitter<Ops>::merge_tap_pair(const ItemShape& s, const Reg64& base, std::int64_t offset, int tap) {
    const int capacity = register_lanes();
    const Vmm lo = vec(regs_.scratch), hi = vec(regs_.pair_hi), fresh = vec(regs_.fresh);
    for (int v = 0; v < vectors(s); ++v) {
        const std::int64_t start = offset + std::int64_t{v} * plan_.lanes * 2 * elem();
        if (plan_.dtype == DType::bf16) {  // one load of whole dwords: tap's elements low, tap + 1's high
            ops_.load_widened_taps(fresh, lo, at(base, start), s.whole_register_loads ? capacity : valid(s, v));
            merge_loaded_values(v, fresh, true, tap);
            const bool first_tap = std::exchange(first_tap_moves_, false);
            merge_loaded_values(v, lo, true, tap + 1);
            first_tap_moves_ = first_tap;
            continue;
        }
        const int span = s.whole_register_loads ? 2 * capacity : 2 * valid(s, v);
        ops_.load_value(lo, at(base, start), std::min(capacity, span));
        if (span > capacity) ops_.load_value(hi, at(base, start + capacity * elem()), span - capacity);
        if (in_pair_order(s)) ops_.deinterleave_even_in_pair_order(fresh, lo, hi);
        else ops_.deinterleave_even(fresh, lo, hi);
        merge_loaded_values(v, fresh, true, tap);
        const bool first_tap = std::exchange(first_tap_moves_, false);  // the odd tap merges into it
        if (in_pair_order(s)) ops_.deinterleave_odd_in_pair_order(fresh, lo, hi);
        else ops_.deinterleave_odd(fresh, lo, hi);
        merge_loaded_values(v, fresh, true, tap + 1);
        first_tap_moves_ = first_tap;
    }
}

// A loaded vector of values (no indices, no raw bits) into accumulator v: a max and the NaN watch in the fast
// copy, the NaN policy's compare and blend in the exact one.
template <typename Ops>
void WindowEmitter<Ops>::merge_loaded_values(int v, const Vmm& fresh, bool fast, int tap) {
    if (fast) {
        if (plan_.watch_rows_for_nan && tap_watched(tap)) ops_.note_nan(vec(next_watch(v)), fresh);
        if (first_tap_moves_) vmovaps(vec(regs_.acc[v]), fresh);
        else ops_.max_fast(vec(regs_.acc[v]), fresh);
        return;
    }
    ops_.compute_take(fresh, vec(regs_.acc[v]));
    ops_.blend_take(vec(regs_.acc[v]), fresh);
}

// Taps-as-lanes items (fast rows only): one input row of the window, its width taps in the lanes. Ranked items
// (KernelPlan::taps_as_lanes_ranked, opmasks) keep each lane's scan rank beside its maximum; others keep only the
// maximum, lane by lane (lanes past the window keep the lowest value): the first element equal to it is searched
// for at the store where its bits or index need it.
template <typename Ops>
void WindowEmitter<Ops>::merge_row_of_taps(const ItemShape& s, const Reg64& row, std::int64_t offset) {
    if (!plan_.taps_as_lanes_ranked) {
        load_item_vector(s, 0, row, offset, vec(regs_.fresh), false);
        if (s.lanes < register_lanes())
            ops_.max_fast_first_lanes_over(vec(regs_.acc[0]), vec(regs_.fresh), static_cast<int>(s.lanes), vec(regs_.empty_value));
        else ops_.max_fast(vec(regs_.acc[0]), vec(regs_.fresh));
        return;
    }
    if constexpr (Ops::needs_vector_masks) {
        throw Error("jit: ranked taps-as-lanes items need opmasks");
    } else {
        if (plan_.has_indices) ops_.prepare_tap_index(tap_index_);
        load_item_vector(s, 0, row, offset, vec(regs_.fresh), false);
        ops_.compute_take_fast(vec(regs_.fresh), vec(regs_.acc[0]));
        ops_.blend_take(vec(regs_.acc[0]), vec(regs_.fresh));
        if (plan_.has_indices) ops_.blend_take_index(vec(regs_.idx[0]));
        lea(scratch_, ptr[row + static_cast<std::int32_t>(offset)]);  // offset is 0: rows are whole vectors
        sub(scratch_, window_);
        ops_.blend_take_rank(vec(regs_.rank), scratch_);
    }
}

// Taps-as-lanes items: the window's first maximum in scan order, picked across the lanes, and its index.
template <typename Ops>
void WindowEmitter<Ops>::store_first_maximum(const ItemShape& s) {
    if (!plan_.taps_as_lanes_ranked) {
        // The maximum in every lane; stored as it is unless indices or a float zero need the first element
        // equal to it (+0 equals -0: that element's bits are the answer).
        const Vmm m = vec(regs_.acc[0]);
        ops_.maximum_to_all_lanes(m, vec(regs_.scratch));
        if (!plan_.has_indices && !plan_.is_float) {
            ops_.store_value(at(dst_, 0), m, vec(regs_.scratch), 1);
            return;
        }
        Label search, stored;
        if (!plan_.has_indices) {
            jump_if_float_zero(m, tap_count_, search);
            ops_.store_value(at(dst_, 0), m, vec(regs_.scratch), 1);
            jmp(stored, T_NEAR);
            place(search);
        }
        search_window_rows(s);
        if (!plan_.has_indices) place(stored);
        return;
    }
    if constexpr (!Ops::needs_vector_masks) {
        const Reg64 lane = tap_count_;  // free outside the width-tap loop
        const Vmm idx = vec(plan_.has_indices ? regs_.idx[0] : regs_.acc[0]);
        ops_.select_first_maximum(vec(regs_.acc[0]), plan_.has_indices ? &idx : nullptr, vec(regs_.rank),
                                  static_cast<int>(s.lanes), vec(regs_.empty_value), vec(regs_.fresh),
                                  vec(regs_.pair_hi), vec(regs_.scratch), lane);
        ops_.store_value(at(dst_, 0), vec(regs_.acc[0]), vec(regs_.scratch), 1);
        if (!plan_.has_indices) return;
        const int entry = plan_.wide_index_math ? 8 : 4;
        lea(big_offset_, ptr[rip + lane_table(1)]);
        const LaneAddress table = [&](int) { return ptr[big_offset_ + lane * entry]; };
        const LaneAddress out = [&](int) { return ptr[indices_]; };
        ops_.store_indices(out, table, idx, vec(regs_.chan_base), vec(regs_.minus_one), vec(regs_.scratch), 1, false);
    }
}

// Taps-as-lanes items without opmasks: the window's rows in scan order (window_ its first tap, window_index_
// that tap's index) until the first with a lane equal to the maximum in acc[0]; that element's bits go to dst
// and, with indices, its index. The maximum is one of the window's elements, so a row has it.
template <typename Ops>
void WindowEmitter<Ops>::search_window_rows(const ItemShape& s) {
    const bool d_axis = plan_.spatial_rank >= 3, h_axis = plan_.spatial_rank >= 2, indices = plan_.has_indices;
    const Vmm m = vec(regs_.acc[0]), fresh = vec(regs_.fresh);
    const Reg64 lanes = tap_count_;
    Label d_loop, h_loop, found;
    mov(d_ptr_, window_);
    if (indices) mov(ptr[rsp + slot_d_index], window_index_);
    start_outer_d_count();
    place(d_loop);
    mov(h_ptr_, d_ptr_);
    if (indices) mov(h_index_, ptr[rsp + slot_d_index]);
    if (h_axis) mov(h_count_, ptr[rsp + slot_taps_h]);
    place(h_loop);
    load_item_vector(s, 0, h_ptr_, 0, fresh, false);
    ops_.equal_lanes(lanes, fresh, m);
    if (s.lanes < register_lanes()) and_(lanes, static_cast<std::int32_t>((std::uint64_t{1} << s.lanes) - 1));
    else test(lanes, lanes);  // a mask move sets no flags
    jnz(found, T_NEAR);
    if (h_axis) {
        add_imm(h_ptr_, plan_.src_tap_stride_h);
        if (indices) add_imm(h_index_, plan_.index_tap_step_h);
        dec(h_count_);
        jnz(h_loop, T_NEAR);
    }
    if (d_axis) {
        add_imm(d_ptr_, plan_.src_tap_stride_d);
        if (indices) {
            mov(scratch_, ptr[rsp + slot_d_index]);
            add_imm(scratch_, plan_.index_tap_step_d);
            mov(ptr[rsp + slot_d_index], scratch_);
        }
        dec(qword[rsp + slot_d_count]);
        jnz(d_loop, T_NEAR);
    }
    mov(lanes, 1);  // not reached (see above); lane 0 of the last row rather than an undefined one
    place(found);
    bsf(lanes, lanes);
    const int e = static_cast<int>(elem());
    copy_bytes(*this, dst_, h_ptr_ + lanes * e, e, scratch_);
    if (!indices) return;
    mov(scratch_, ptr[rsp + slot_channel_index_base]);
    add(scratch_, h_index_);
    if (plan_.index_tap_step_w != 1) mul_imm(lanes, plan_.index_tap_step_w);
    add(scratch_, lanes);
    if (plan_.index_dtype == DType::s64) mov(qword[indices_], scratch_);
    else mov(dword[indices_], scratch_.cvt32());
}

template <typename Ops>
void WindowEmitter<Ops>::store_item(const ItemShape& s) {
    if (s.taps_as_lanes) {
        store_first_maximum(s);
        return;
    }
    // Only a row that holds a NaN can leave one in an accumulator (an all-NaN window under nan=ignore).
    const bool fix = exact_row() && plan_.nan == NanPolicy::ignore;
    int base = regs_.chan_base;
    if (plan_.has_indices && plan_.index_relative_to_window) {
        ops_.broadcast_gpr(vec(regs_.item_base), window_index_, plan_.wide_index_math);
        ops_.add_lanes(vec(regs_.item_base), vec(regs_.chan_base), plan_.wide_index_math);
        base = regs_.item_base;
    }
    for (int v = 0; v < vectors(s); ++v) {
        if (in_pair_order(s)) {  // merged in pair order (load_item_vector): lanes in order first
            ops_.restore_pair_order(vec(regs_.acc[v]));
            if (raw_bits()) ops_.restore_pair_order(vec(regs_.raw[v]));
            if (plan_.has_indices) ops_.restore_pair_order(vec(regs_.idx[v]));
        }
        if (fix) {
            ops_.find_nan_lanes(vec(regs_.acc[v]));
            ops_.move_under_fix(vec(regs_.acc[v]), vec(regs_.empty_value));
            if (raw_bits()) {  // the empty window's raw bits: f16's -inf
                ops_.broadcast_constant32(vec(regs_.scratch), 0xFC00u);
                ops_.move_under_fix(vec(regs_.raw[v]), vec(regs_.scratch));
            }
        }
        const std::int64_t first_lane = std::int64_t{v} * plan_.lanes;
        if (widened_pair(s, v)) {  // values only
            if (fix) {
                ops_.find_nan_lanes(vec(regs_.acc[v + 1]));
                ops_.move_under_fix(vec(regs_.acc[v + 1]), vec(regs_.empty_value));
            }
            ops_.store_widened_pair(at(dst_, first_lane * elem()), vec(regs_.acc[v]), vec(regs_.acc[v + 1]),
                                    valid(s, v) + valid(s, v + 1));
            ++v;
            continue;
        }
        if constexpr (Ops::needs_vector_masks) {
            if (back_read_bytes(s, v) > 0) {
                ops_.store_value_top(at(dst_, first_lane * elem()), vec(regs_.acc[v]), vec(regs_.scratch), valid(s, v));
                continue;  // (no indices: KernelPlan::tail_back_reads)
            }
        }
        const Address values = at(dst_, first_lane * elem());
        if (raw_bits()) ops_.store_raw_f16(values, vec(regs_.raw[v]), vec(regs_.scratch), valid(s, v));
        else ops_.store_value(values, vec(regs_.acc[v]), vec(regs_.scratch), valid(s, v));
        if (plan_.has_indices) store_lane_indices(s, v, vec(base), fix);
    }
}

// Vector v's index lanes (regs_.idx[v]) to the indices output: the channel part `base` and each lane's part of
// the lane table added.
template <typename Ops>
void WindowEmitter<Ops>::store_lane_indices(const ItemShape& s, int v, const Vmm& base, bool fix) {
    const std::int64_t first_lane = std::int64_t{v} * plan_.lanes;
    const std::int64_t entry = plan_.wide_index_math ? 8 : 4;
    lea(big_offset_, ptr[rip + lane_table(s.lane_step)]);
    const LaneAddress table = [&, first_lane, entry](int lane) {
        return ptr[big_offset_ + static_cast<std::int32_t>((first_lane + lane) * entry)];
    };
    const LaneAddress out = [&, first_lane](int lane) {
        return ptr[indices_ + static_cast<std::int32_t>((first_lane + lane) * index_elem())];
    };
    ops_.store_indices(out, table, vec(regs_.idx[v]), base, vec(regs_.minus_one), vec(regs_.scratch), valid(s, v), fix);
}

// Empty windows: the lowest value and index -1 in every lane of the item.
template <typename Ops>
void WindowEmitter<Ops>::store_empty_item(const ItemShape& s) {
    for (int v = 0; v < vectors(s); ++v) {
        const std::int64_t first_lane = std::int64_t{v} * plan_.lanes;
        ops_.store_value(at(dst_, first_lane * elem()), vec(regs_.empty_value), vec(regs_.scratch), valid(s, v));
    }
    if (!plan_.has_indices) return;
    for (std::int64_t lane = 0; lane < s.lanes; ++lane) {
        const auto off = static_cast<std::int32_t>(lane * index_elem());
        if (plan_.index_dtype == DType::s64) mov(qword[indices_ + off], -1);
        else mov(dword[indices_ + off], -1);
    }
}

// For the two traits compile() picks; emit_window.cpp instantiates the rest of the class.
template void WindowEmitter<Avx512Ops>::load_item_vector(const ItemShape&, int, const Reg64&, std::int64_t, const Vmm&,
                                                         bool, int, std::int64_t);
template void WindowEmitter<Avx512Ops>::init_from_first_tap(const ItemShape&, const Reg64&);
template void WindowEmitter<Avx512Ops>::init_lowest(const ItemShape&);
template void WindowEmitter<Avx512Ops>::merge_tap(const ItemShape&, const Reg64&, std::int64_t, bool, int, bool);
template bool WindowEmitter<Avx512Ops>::merges_tap_pairs(const ItemShape&, bool) const;
template void WindowEmitter<Avx512Ops>::merge_tap_pair(const ItemShape&, const Reg64&, std::int64_t, int);
template void WindowEmitter<Avx512Ops>::merge_loaded_values(int, const Vmm&, bool, int);
template void WindowEmitter<Avx512Ops>::store_item(const ItemShape&);
template void WindowEmitter<Avx512Ops>::store_lane_indices(const ItemShape&, int, const Vmm&, bool);
template void WindowEmitter<Avx512Ops>::store_empty_item(const ItemShape&);
template void WindowEmitter<Avx2Ops>::load_item_vector(const ItemShape&, int, const Reg64&, std::int64_t, const Vmm&,
                                                       bool, int, std::int64_t);
template void WindowEmitter<Avx2Ops>::init_from_first_tap(const ItemShape&, const Reg64&);
template void WindowEmitter<Avx2Ops>::init_lowest(const ItemShape&);
template void WindowEmitter<Avx2Ops>::merge_tap(const ItemShape&, const Reg64&, std::int64_t, bool, int, bool);
template bool WindowEmitter<Avx2Ops>::merges_tap_pairs(const ItemShape&, bool) const;
template void WindowEmitter<Avx2Ops>::merge_tap_pair(const ItemShape&, const Reg64&, std::int64_t, int);
template void WindowEmitter<Avx2Ops>::merge_loaded_values(int, const Vmm&, bool, int);
template void WindowEmitter<Avx2Ops>::store_item(const ItemShape&);
template void WindowEmitter<Avx2Ops>::store_lane_indices(const ItemShape&, int, const Vmm&, bool);
template void WindowEmitter<Avx2Ops>::store_empty_item(const ItemShape&);

}  // namespace pooljit::jit
