// Whole-plane items (ncx rows of one output whose window is the whole plane: global pools, adaptive pools to one
// bin): the window is one contiguous span, so instead of merging taps with indices the item takes the maximum
// over the span's vectors (one max per vector, the order of no consequence), spreads it to every lane, and finds
// the first element in memory order equal to it: memory order is scan order, and +0 equals -0, so this is the
// element the scan would select. Its bits are copied to dst (a -0 or +0 stays itself) and its offset in the plane
// is its spatial index. Without indices only a float maximum of zero needs that search: elements equal to any
// other maximum have its bits (integers always), so the maximum is stored as it is. Planes of a few vectors are
// straight-line code; longer ones (KernelPlan::loop_whole_plane) loop over the span, with several maxima in
// flight, each with its own NaN sum, and search it until the first equal vector.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

namespace pooljit::jit {

template <typename Ops>
void WindowEmitter<Ops>::emit_whole_plane(const ItemShape& s) {
    const std::int64_t vectors_in_plane = (s.lanes + plan_.lanes - 1) / plan_.lanes;
    if (s.lanes < plan_.lanes || exact_row()) throw Error("jit: a whole-plane item needs the fast path and a full first vector");
    // The maximum spreads across every lane of the register: all of them must be the plane's (no half vectors
    // beside 64-bit index lanes, no byte lanes, which the spread does not cover).
    if (plan_.lanes != register_lanes() || lane_bytes(plan_.compare) < 4)
        throw Error("jit: a whole-plane item needs whole registers of 32- or 64-bit lanes");
    // Float rows have no NaN scan before this item: it watches the plane's vectors itself and leaves for the
    // exact copy of the row before it has stored anything.
    const bool watch = nan_exit_ != nullptr;
    if (watch && regs_.plane_sum < 0) throw Error("jit: a whole-plane item of a float row needs its NaN watch register");
    const Reg64 offset = tap_count_;
    const bool store_maximum = plan_.whole_plane_stores_maximum;  // but for a float maximum of zero
    Label search, stored;
    if (plan_.loop_whole_plane) emit_whole_plane_loop_maximum(s, watch);
    else emit_whole_plane_straight_maximum(s, vectors_in_plane, watch);
    const Vmm m = vec(regs_.acc[0]);
    if (store_maximum) {
        if (plan_.is_float) jump_if_float_zero(m, h_ptr_, search);
        ops_.store_value(at(dst_, 0), m, vec(regs_.scratch), 1);
        if (!plan_.is_float) return;
        jmp(stored, T_NEAR);
        place(search);
    }
    if (plan_.loop_whole_plane) emit_whole_plane_loop_search(s, offset);
    else emit_whole_plane_straight_search(s, vectors_in_plane, offset);
    const int e = static_cast<int>(elem());
    copy_bytes(*this, dst_, window_ + offset * e, e, scratch_);
    if (plan_.has_indices) {
        mov(scratch_, ptr[rsp + slot_channel_index_base]);
        add(scratch_, window_index_);
        add(scratch_, offset);
        if (plan_.index_dtype == DType::s64) mov(qword[indices_], scratch_);
        else mov(dword[indices_], scratch_.cvt32());
    }
    if (store_maximum) place(stored);
}

// acc[0] <- the plane's maximum in every lane; every vector unrolled.
template <typename Ops>
void WindowEmitter<Ops>::emit_whole_plane_straight_maximum(const ItemShape& s, std::int64_t vectors_in_plane, bool watch) {
    const Vmm m = vec(regs_.acc[0]), fresh = vec(regs_.fresh), t = vec(regs_.scratch);
    const Vmm sum = watch ? vec(regs_.plane_sum) : m;
    const auto load = [&](const Vmm& to, std::int64_t v) {
        ops_.load_value(to, at(window_, v * plan_.lanes * elem()), valid(s, static_cast<int>(v)));
    };
    if (watch) ops_.begin_nan_watch(sum);
    load(m, 0);
    if (watch) ops_.note_nan(sum, m);
    for (std::int64_t v = 1; v < vectors_in_plane; ++v) {
        if (plan_.widened_pairs && v + 1 < vectors_in_plane && valid(s, static_cast<int>(v) + 1) == plan_.lanes) {
            merge_whole_plane_pair(m, m, at(window_, v * plan_.lanes * elem()), watch, sum, sum);
            ++v;
            continue;
        }
        load(fresh, v);
        if (watch) ops_.note_nan(sum, fresh);
        const int n = valid(s, static_cast<int>(v));
        if (n == plan_.lanes) ops_.max_fast(m, fresh);
        else ops_.max_fast_lanes(m, fresh, (std::uint64_t{1} << n) - 1);  // lanes past the plane are not its
    }
    if (watch) ops_.jump_if_nan_seen(&sum, 1, *nan_exit_);
    ops_.maximum_to_all_lanes(m, t);
}

// offset <- the plane offset of the first element equal to the maximum in acc[0]; every vector unrolled.
template <typename Ops>
void WindowEmitter<Ops>::emit_whole_plane_straight_search(const ItemShape& s, std::int64_t vectors_in_plane,
                                                          const Reg64& offset) {
    const Vmm m = vec(regs_.acc[0]), fresh = vec(regs_.fresh);
    const auto load = [&](const Vmm& to, std::int64_t v) {
        ops_.load_value(to, at(window_, v * plan_.lanes * elem()), valid(s, static_cast<int>(v)));
    };
    // The first element equal to the maximum, without a branch (where it lies is data, so a branch would be
    // mispredicted): each vector's equal lanes as bits, 64 to a group, and the first set bit of the first
    // group that has one. Groups go last to first so that an earlier group's offset replaces a later one's.
    // The maximum is one of the plane's elements, so some group has a bit, and lanes past the plane come after
    // every element in this order: they may match, but never first.
    const Reg64 group_bits = h_count_, lane_bits = h_ptr_, candidate = d_ptr_;
    const std::int64_t per_group = 64 / plan_.lanes;
    const std::int64_t groups = (vectors_in_plane + per_group - 1) / per_group;
    for (std::int64_t g = groups - 1; g >= 0; --g) {
        const std::int64_t first = g * per_group, last = std::min(vectors_in_plane, first + per_group);
        for (std::int64_t v = first; v < last; ++v) {
            load(fresh, v);
            ops_.equal_lanes(v == first ? group_bits : lane_bits, fresh, m);
            if (v == first) continue;
            shl(lane_bits, static_cast<int>((v - first) * plan_.lanes));
            or_(group_bits, lane_bits);
        }
        bsf(candidate, group_bits);  // ZF = 1 when the group has no bit (candidate is then undefined)
        if (g * 64 != 0) lea(candidate, ptr[candidate + static_cast<std::int32_t>(g * 64)]);  // flags kept
        if (g == groups - 1) mov(offset, candidate);  // garbage only when an earlier group replaces it
        else cmovnz(offset, candidate);
    }
}

// The maximum of a plane of many vectors: a loop of vectors_per_block vectors a pass into as many maxima (the
// block's accumulators) and as many NaN sums, the vectors left over and the partial last one unrolled.
template <typename Ops>
void WindowEmitter<Ops>::emit_whole_plane_loop_maximum(const ItemShape& s, bool watch) {
    const Vmm m = vec(regs_.acc[0]), fresh = vec(regs_.fresh), t = vec(regs_.scratch);
    const int chains = plan_.vectors_per_block;  // the block's accumulators hold the maxima in flight
    const int sum_count = watch ? plane_sums(plan_) : 1;
    if (sum_count < 1 || sum_count > chains) throw Error("jit: a looped whole-plane item needs from one NaN sum to one a maximum");
    Vmm sums[max_vectors] = {m, m, m, m};  // maximum c adds its vectors to sums[c]: sum c % sum_count
    for (int c = 0; watch && c < chains; ++c) sums[c] = vec(regs_.plane_sum + c % sum_count);
    const std::int64_t full = s.lanes / plan_.lanes;  // whole vectors; a partial one may follow
    const std::int64_t bytes_per_vector = plan_.lanes * elem();
    const std::int64_t passes = full / chains;
    const Reg64 cursor = tap_ptr_, count = h_count_;
    if (full < chains) throw Error("jit: a looped whole-plane item needs a whole vector per chain");
    for (int c = 0; c < chains; ++c) {
        ops_.load_value(vec(regs_.acc[c]), at(window_, c * bytes_per_vector), plan_.lanes);
        if (watch && c < sum_count) ops_.begin_nan_watch(sums[c]);
        if (watch) ops_.note_nan(sums[c], vec(regs_.acc[c]));
    }
    lea(cursor, ptr[window_ + static_cast<std::int32_t>(chains * bytes_per_vector)]);
    if (passes > 1) {
        Label pass;
        mov(count, passes - 1);
        place(pass);
        for (int c = 0; c < chains; ++c) {
            const Address at_c = ptr[cursor + static_cast<std::int32_t>(c * bytes_per_vector)];
            if (plan_.widened_pairs && c + 1 < chains) {
                merge_whole_plane_pair(vec(regs_.acc[c]), vec(regs_.acc[c + 1]), at_c, watch, sums[c], sums[c + 1]);
                ++c;
                continue;
            }
            ops_.load_value(fresh, at_c, plan_.lanes);
            if (watch) ops_.note_nan(sums[c], fresh);
            ops_.max_fast(vec(regs_.acc[c]), fresh);
        }
        add(cursor, static_cast<std::int32_t>(chains * bytes_per_vector));
        dec(count);
        jnz(pass, T_NEAR);
    }
    for (std::int64_t v = passes * chains; v < full; ++v) {
        const auto c = static_cast<std::size_t>(v % chains);
        ops_.load_value(fresh, ptr[cursor + static_cast<std::int32_t>((v - passes * chains) * bytes_per_vector)], plan_.lanes);
        if (watch) ops_.note_nan(sums[c], fresh);
        ops_.max_fast(vec(regs_.acc[c]), fresh);
    }
    const int rest = static_cast<int>(s.lanes - full * plan_.lanes);
    if (rest > 0) {
        ops_.load_value(fresh, at(window_, full * bytes_per_vector), rest);
        if (watch) ops_.note_nan(sums[0], fresh);
        ops_.max_fast_lanes(m, fresh, (std::uint64_t{1} << rest) - 1);  // lanes past the plane are not its
    }
    for (int c = 1; c < chains; ++c) ops_.max_fast(m, vec(regs_.acc[c]));
    if (watch) ops_.jump_if_nan_seen(sums, sum_count, *nan_exit_);
    ops_.maximum_to_all_lanes(m, t);
}

// Two whole vectors of bf16 at `from` as one load (plan.widened_pairs): the even elements into maximum m0 (and,
// watched, NaN sum s0), the odd ones into m1 (and s1). The order is of no consequence to a maximum or a sum.
template <typename Ops>
void WindowEmitter<Ops>::merge_whole_plane_pair(const Vmm& m0, const Vmm& m1, const Address& from, bool watch,
                                                const Vmm& s0, const Vmm& s1) {
    const Vmm even = vec(regs_.fresh), odd = vec(regs_.scratch);
    ops_.load_widened_pair(even, odd, from, 2 * static_cast<int>(plan_.lanes));
    if (watch) {
        ops_.note_nan(s0, even);
        ops_.note_nan(s1, odd);
    }
    ops_.max_fast(m0, even);
    ops_.max_fast(m1, odd);
}

// offset <- the plane offset of the first element equal to the maximum in acc[0]: a loop over the vectors until
// the first one holding an equal element (one taken exit, so the branch is predicted but once).
template <typename Ops>
void WindowEmitter<Ops>::emit_whole_plane_loop_search(const ItemShape& s, const Reg64& offset) {
    const Vmm m = vec(regs_.acc[0]), fresh = vec(regs_.fresh);
    const std::int64_t full = s.lanes / plan_.lanes;
    const std::int64_t bytes_per_vector = plan_.lanes * elem();
    const int rest = static_cast<int>(s.lanes - full * plan_.lanes);
    const Reg64 cursor = tap_ptr_, count = h_count_, bits = h_ptr_;
    // The maximum is one of the plane's elements: the loop over the whole vectors stops at the first that has an
    // equal lane; where none has, the partial last vector does (its lanes past the plane come after every
    // element: they may match, but never first).
    Label search, found;
    mov(cursor, window_);
    xor_(offset, offset);
    mov(count, full);
    place(search);
    ops_.load_value(fresh, ptr[cursor], plan_.lanes);
    ops_.equal_lanes(bits, fresh, m);
    test(bits, bits);
    jnz(found, T_NEAR);
    add(cursor, static_cast<std::int32_t>(bytes_per_vector));
    add(offset, static_cast<std::int32_t>(plan_.lanes));
    dec(count);
    jnz(search, T_NEAR);
    if (rest > 0) {
        ops_.load_value(fresh, ptr[cursor], rest);
        ops_.equal_lanes(bits, fresh, m);
    }
    place(found);
    bsf(bits, bits);
    add(offset, bits);
}

// For the two traits compile() picks; emit_window.cpp instantiates the rest of the class.
template void WindowEmitter<Avx512Ops>::emit_whole_plane(const ItemShape&);
template void WindowEmitter<Avx2Ops>::emit_whole_plane(const ItemShape&);

}  // namespace pooljit::jit
