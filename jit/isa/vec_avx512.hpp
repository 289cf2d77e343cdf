// The AVX-512 trait: how each vector operation the emitters need is spelled on AVX-512 (F, BW, VL, DQ).
// Masks live in opmask registers; partial vectors are masked loads and stores (faults suppressed on masked lanes).
#pragma once

#include "jit/isa/caps.hpp"
#include "jit/isa/vec_trait.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace pooljit::jit {

class Avx512Ops {
public:
    using Vmm = Xbyak::Zmm;
    static constexpr int vector_bytes = 64;
    static constexpr bool needs_vector_masks = false;  // opmasks: no vector registers for masks
    static constexpr const IsaCaps& caps = avx512_caps;
    static_assert(caps.vector_bytes == vector_bytes && caps.opmasks);

    Avx512Ops(Xbyak::CodeGenerator& g, const LaneFormat& format, const TraitResources& r) : g_(g), format_(format), r_(r) {}

    void broadcast_constant32(const Vmm& v, std::uint32_t bits) {
        g_.mov(r_.scratch.cvt32(), bits);
        g_.vpbroadcastd(v, r_.scratch.cvt32());
    }
    void broadcast_constant64(const Vmm& v, std::uint64_t bits) {
        g_.mov(r_.scratch, bits);
        g_.vpbroadcastq(v, r_.scratch);
    }
    void broadcast_gpr(const Vmm& v, const Xbyak::Reg64& r, bool lanes_64) {
        if (lanes_64) g_.vpbroadcastq(v, r);
        else g_.vpbroadcastd(v, r.cvt32());
    }

    // dst <- src, every bit (rings' row maxima and their indices).
    void copy_vector(const Vmm& dst, const Vmm& src) { g_.vmovdqa64(dst, src); }
    void zero_vector(const Vmm& v) { g_.vpxord(v, v, v); }

    void add_lanes(const Vmm& dst, const Vmm& src, bool lanes_64) {
        if (lanes_64) g_.vpaddq(dst, dst, src);
        else g_.vpaddd(dst, dst, src);
    }

    // dst (compare type) <- `valid` elements of format.dtype at src, widened; lanes past `valid` become 0.
    void load_value(const Vmm& dst, const Xbyak::Address& src, int valid) { load_widened(masked(dst, valid), dst, src); }

    // Masked items (ncx border lanes): only the lanes in `bits` are loaded (the others become 0 and fault
    // nothing), merged, or given an index.
    void load_value_lanes(const Vmm& dst, const Xbyak::Address& src, std::uint64_t bits) {
        if (bits == all_lanes()) load_widened(dst, dst, src);
        else load_widened(Vmm(dst.getIdx()) | set_bits(bits) | Xbyak::util::T_z, dst, src);
    }
    // A row's piece of a register (planes in registers over a row pitch): the lanes in `bits` <- the elements at
    // src, widened (the others fault nothing and keep dst's); scratch: bf16's widening, which shifts every lane.
    void load_value_lanes_into(const Vmm& dst, const Xbyak::Address& src, std::uint64_t bits, const Vmm& scratch) {
        const Xbyak::Opmask k = set_bits(bits);
        if (format_.dtype == DType::bf16 && !byte_lanes()) {
            load_widened(Vmm(scratch.getIdx()) | k | Xbyak::util::T_z, scratch, src);
            g_.vmovdqa32(Vmm(dst.getIdx()) | k, scratch);
        } else {
            load_widened(Vmm(dst.getIdx()) | k, dst, src);
        }
    }
    // f16 only: the raw 16-bit patterns of the lanes in `bits`, zero-extended; the other lanes keep dst's.
    void load_raw_lanes_into(const Vmm& dst, const Xbyak::Address& src, std::uint64_t bits) {
        g_.vpmovzxwd(Vmm(dst.getIdx()) | set_bits(bits), src);
    }
    // Byte lanes: the lanes in `bits` from src (the others fault nothing), the others `fill` (the empty value: u8's
    // is 0, which a zeroing load gives).
    void load_byte_lanes_over(const Vmm& dst, const Xbyak::Address& src, std::uint64_t bits, const Vmm& fill) {
        if (!byte_lanes()) throw Error("jit:avx512: load_byte_lanes_over takes byte lanes");
        if (bits == all_lanes()) {
            g_.vmovdqu8(dst, src);
        } else if (format_.compare == CompareType::u8) {
            g_.vmovdqu8(Vmm(dst.getIdx()) | set_bits(bits) | Xbyak::util::T_z, src);
        } else {
            g_.vmovdqa64(dst, fill);
            g_.vmovdqu8(Vmm(dst.getIdx()) | set_bits(bits), src);
        }
    }
    // Lanes [0, valid) of m <- max(m, fresh); the others keep m's (the lowest value: unranked taps-as-lanes items).
    void max_fast_first_lanes_over(const Vmm& m, const Vmm& fresh, int valid, const Vmm&) {
        max_fast_lanes(m, fresh, (std::uint64_t{1} << valid) - 1);
    }
    void max_fast_lanes(const Vmm& acc, const Vmm& fresh, std::uint64_t bits) {
        if (bits == all_lanes()) {
            max_fast(acc, fresh);
            return;
        }
        max_keeping_second(g_, format_.compare, Vmm(acc.getIdx()) | set_bits(bits), fresh, acc);
    }
    void compute_take_fast_lanes(const Vmm& fresh, const Vmm& acc, std::uint64_t bits) {
        constexpr std::uint8_t gt_oq = 0x1E, nle = 6;
        const auto t = bits == all_lanes() ? take_ : take_ | set_bits(bits);
        switch (format_.compare) {
            case CompareType::f32: g_.vcmpps(t, fresh, acc, gt_oq); break;
            case CompareType::f64: g_.vcmppd(t, fresh, acc, gt_oq); break;
            case CompareType::s32: g_.vpcmpd(t, fresh, acc, nle); break;
            case CompareType::u32: g_.vpcmpud(t, fresh, acc, nle); break;
            case CompareType::s64: g_.vpcmpq(t, fresh, acc, nle); break;
            case CompareType::u8: g_.vpcmpub(t, fresh, acc, nle); break;
            case CompareType::s8: g_.vpcmpb(t, fresh, acc, nle); break;
        }
    }
    void broadcast_gpr_lanes(const Vmm& v, const Xbyak::Reg64& r, bool lanes_64, std::uint64_t bits) {
        const Vmm d = Vmm(v.getIdx()) | set_bits(bits);
        if (lanes_64) g_.vpbroadcastq(d, r);
        else g_.vpbroadcastd(d, r.cvt32());
    }

    // f16 only: the raw 16-bit patterns, zero-extended to 32-bit lanes.
    void load_raw(const Vmm& dst, const Xbyak::Address& src, int valid) { g_.vpmovzxwd(masked(dst, valid), src); }

    // take <- lanes where `fresh` replaces `acc` (DESIGN.md section 3: strict greater; NaN by policy).
    void compute_take(const Vmm& fresh, const Vmm& acc) { compute_take_into(take_, fresh, acc); }
    // The same in the lanes `bits` only (take is clear in the others).
    void compute_take_lanes(const Vmm& fresh, const Vmm& acc, std::uint64_t bits) {
        if (bits == all_lanes()) compute_take_into(take_, fresh, acc);
        else compute_take_into(take_ | set_bits(bits), fresh, acc);
    }

    // The fast path, exact while no NaN is in the window (a window with one is recomputed by the exact path):
    // take <- fresh > acc, ordered.
    void compute_take_fast(const Vmm& fresh, const Vmm& acc) {
        constexpr std::uint8_t gt_oq = 0x1E;
        switch (format_.compare) {
            case CompareType::f32: g_.vcmpps(take_, fresh, acc, gt_oq); break;
            case CompareType::f64: g_.vcmppd(take_, fresh, acc, gt_oq); break;
            default: compute_take(fresh, acc); break;
        }
    }
    // Without indices and raw bits: acc <- fresh > acc ? fresh : acc (ties and NaN keep acc: the fast path).
    void max_fast(const Vmm& acc, const Vmm& fresh) { max_keeping_second(g_, format_.compare, acc, fresh, acc); }
    // Without indices and raw bits, NaN-free input: acc <- max(acc, the vector at a), ties taking the memory's.
    // Callers go through their taps last to first, so a tie keeps the earliest tap, as max_fast's first to last
    // does; the load folds into the max.
    // Integer callers may go in any order (equal integers have equal bits: the row code's folded taps).
    void max_fast_earlier(const Vmm& acc, const Xbyak::Address& a, const Vmm&) {
        max_keeping_second(g_, format_.compare, acc, acc, a);
    }
    // NaN watch (the scan before a row's fast code): a running sum of loaded vectors. A NaN anywhere makes the
    // sum NaN; +inf meeting -inf (or an overflow) does too, which only sends the row to its exact code. Lanes
    // past a partial vector were loaded as 0.
    void begin_nan_watch(const Vmm& sum) { g_.vxorps(sum, sum, sum); }
    void note_nan(const Vmm& sum, const Vmm& fresh) { add_float_lanes(g_, format_.compare, sum, fresh); }
    // A sum that has seen a NaN: all-ones lanes are NaN in f32 and f64.
    void mark_nan_seen(const Vmm& sum) { g_.vpternlogd(sum, sum, sum, 0xFF); }
    // The scan of 16-bit floats as stored is written for vector masks; the planner gives it only to traits
    // without opmasks (choose_half_float_scan).
    void note_raw_half_nan(const Vmm&, const Vmm&, const Xbyak::Address&, int) {
        throw Error("jit:avx512: no scan of 16-bit floats as stored (the planner gives it to traits without opmasks)");
    }
    void jump_if_raw_nan_seen(const Vmm*, int, const Xbyak::Label&) {
        throw Error("jit:avx512: no scan of 16-bit floats as stored (the planner gives it to traits without opmasks)");
    }
    void jump_if_nan_seen(const Vmm* sums, int count, const Xbyak::Label& exact_path) {
        constexpr std::uint8_t unord_q = 3;
        const bool f64 = format_.compare == CompareType::f64;
        for (int i = 1; i < count; ++i) add_float_lanes(g_, format_.compare, sums[0], sums[i]);
        if (f64) g_.vcmppd(take_, sums[0], sums[0], unord_q);
        else g_.vcmpps(take_, sums[0], sums[0], unord_q);
        g_.kortestw(take_, take_);
        g_.jnz(exact_path, Xbyak::CodeGenerator::T_NEAR);  // ZF = 0 when any lane is unordered
    }

    // After compute_take_fast: acc <- fresh where it took (a masked move, as the AVX2 form's max).
    void take_fast(const Vmm& acc, const Vmm& fresh) { blend_take(acc, fresh); }
    void blend_take(const Vmm& acc, const Vmm& fresh) {
        if (byte_lanes()) g_.vmovdqu8(acc | take_, fresh);
        else if (lanes_64()) g_.vmovdqa64(acc | take_, fresh);
        else g_.vmovdqa32(acc | take_, fresh);
    }

    // Once per tap, before the blends of its vectors: where the tap's index comes from.
    void prepare_tap_index(const Xbyak::Reg64& index) {
        tap_index_ = index;
        tap_index_address_.reset();
    }
    // Tap passes: the tap's 32-bit index in memory, broadcast into the lanes it takes.
    void prepare_tap_index_from(const Xbyak::Address& index) {
        if (format_.index_lanes_64) throw Error("jit:avx512: tap indices from memory are 32-bit lanes");
        tap_index_address_.emplace(index);
    }
    void blend_take_index(const Vmm& idx) {
        if (tap_index_address_) g_.vpbroadcastd(idx | take_, *tap_index_address_);
        else if (format_.index_lanes_64) g_.vpbroadcastq(idx | take_, tap_index_);
        else g_.vpbroadcastd(idx | take_, tap_index_.cvt32());
    }

    // Where the take mask is set, idx <- the index lanes of src (column rings: a row maximum's indices).
    void blend_take_index_from(const Vmm& idx, const Vmm& src) {
        if (format_.index_lanes_64) g_.vmovdqa64(idx | take_, src);
        else g_.vmovdqa32(idx | take_, src);
    }

    // Taps-as-lanes items: a lane's scan rank (its row's offset in the window) where the tap was taken.
    void blend_take_rank(const Vmm& rank, const Xbyak::Reg64& r) {
        if (lanes_64()) g_.vpbroadcastq(rank | take_, r);
        else g_.vpbroadcastd(rank | take_, r.cvt32());
    }

    // Taps-as-lanes items (input without NaN): lanes [0, valid) of acc hold the maxima of one window's columns,
    // rank the scan rank of the row each came from (ties keep the earlier row). Moves the window's first
    // maximum in scan order (earliest row, then leftmost lane, among the lanes equal to the maximum; +0 and
    // -0 are equal) to lane 0 of acc and of idx (when given), and its lane number to `lane`. m, r, t: scratch.
    void select_first_maximum(const Vmm& acc, const Vmm* idx, const Vmm& rank, int valid, const Vmm& lowest,
                              const Vmm& m, const Vmm& r, const Vmm& t, const Xbyak::Reg64& lane) {
        // take_ is free between items; k0 only feeds kmov.
        const Xbyak::Opmask in_window{2}, at_maximum = take_, first{0};
        // log2 of the lanes the reductions span: the window's lanes rounded up to a power of two.
        int levels = 0;
        while ((1 << levels) < valid) ++levels;
        g_.mov(r_.scratch, (std::uint64_t{1} << valid) - 1);
        g_.kmovq(in_window, r_.scratch);
        g_.vmovdqa64(m, lowest);
        move_lanes(m | in_window, acc);
        across_lanes(m, t, levels, [&](const Vmm& a, const Vmm& b) { max_fast(a, b); });
        compare_equal(at_maximum | in_window, acc, m);
        // One lane at the maximum (the usual case) is the answer; ties go by the earliest row.
        Xbyak::Label one_lane;
        g_.kmovq(r_.scratch, at_maximum);
        g_.mov(lane, r_.scratch);
        g_.dec(lane);
        g_.test(lane, r_.scratch);
        g_.jz(one_lane, Xbyak::CodeGenerator::T_NEAR);
        g_.vpternlogd(r, r, r, 0xFF);  // all ones: never the earliest rank
        move_lanes(r | at_maximum, rank);
        across_lanes(r, t, levels, [&](const Vmm& a, const Vmm& b) {
            if (lanes_64()) g_.vpminuq(a, a, b);
            else g_.vpminud(a, a, b);
        });
        if (lanes_64()) g_.vpcmpeqq(first | at_maximum, rank, r);
        else g_.vpcmpeqd(first | at_maximum, rank, r);
        g_.kmovq(r_.scratch, first);
        g_.L(one_lane);
        g_.bsf(lane, r_.scratch);  // the leftmost such lane
        if (lanes_64()) {
            g_.vpbroadcastq(t, lane);
            g_.vpermq(acc, t, acc);
            if (idx) g_.vpermq(*idx, t, *idx);
        } else {
            g_.vpbroadcastd(t, lane.cvt32());
            g_.vpermd(acc, t, acc);
            if (idx) g_.vpermd(*idx, t, *idx);
        }
    }

    // Planes in registers: dst <- lanes of the pair (first, second) by the lane numbers at `table` (lane s < the
    // register's lanes of first, s >= of second).
    // Byte lanes: vpermi2b, AVX512_VBMI (the plan's byte_permutes).
    void permute_pair(const Vmm& dst, const Xbyak::Address& table, const Vmm& first, const Vmm& second) {
        if (byte_lanes()) {
            g_.vmovdqu8(dst, table);
            g_.vpermi2b(dst, first, second);
        } else if (lanes_64()) {
            g_.vmovdqu64(dst, table);
            g_.vpermi2q(dst, first, second);
        } else {
            g_.vmovdqu32(dst, table);
            g_.vpermi2d(dst, first, second);
        }
    }
    // dst <- src in the lanes `bits` (the others keep theirs); src in compare-type lanes, or index lanes.
    void copy_lanes(const Vmm& dst, const Vmm& src, std::uint64_t bits) {
        if (bits == all_lanes()) move_lanes(dst, src);
        else move_lanes(Vmm(dst.getIdx()) | set_bits(bits), src);
    }
    void copy_index_lanes(const Vmm& idx, const Xbyak::Address& src, std::uint64_t bits) {
        const Vmm d = Vmm(idx.getIdx()) | set_bits(bits);
        if (format_.index_lanes_64) g_.vmovdqu64(d, src);
        else g_.vmovdqu32(d, src);
    }
    // The lanes whose index is stored as -1 (store_indices with fix): `bits`, or, when `add`, also those.
    void set_fix_lanes(std::uint64_t bits, bool add) {
        if (add) {
            g_.korq(fix_, fix_, set_bits(bits));
            return;
        }
        g_.mov(r_.scratch, bits);
        g_.kmovq(fix_, r_.scratch);
    }
    // idx <- the entries at `table` in the lanes where take is set.
    void blend_take_index_from(const Vmm& idx, const Xbyak::Address& table) {
        if (format_.index_lanes_64) g_.vmovdqu64(idx | take_, table);
        else g_.vmovdqu32(idx | take_, table);
    }

    // Whole-plane items (input without NaN): every lane of m <- the maximum over m's lanes; t: scratch.
    void maximum_to_all_lanes(const Vmm& m, const Vmm& t) {
        across_lanes(m, t, lanes_64() ? 3 : 4, [&](const Vmm& a, const Vmm& b) { max_fast(a, b); });
    }
    // bits <- the lanes of fresh that equal m's (+0 equals -0), bit j for lane j.
    void equal_lanes(const Xbyak::Reg64& bits, const Vmm& fresh, const Vmm& m) {
        compare_equal(take_, fresh, m);
        g_.kmovq(bits, take_);
    }

    // Lanes of a float accumulator that hold NaN (an all-NaN window under nan=ignore) -> the fix mask.
    void find_nan_lanes(const Vmm& acc) {
        constexpr std::uint8_t unord_q = 3;
        if (format_.compare == CompareType::f64) g_.vcmppd(fix_, acc, acc, unord_q);
        else g_.vcmpps(fix_, acc, acc, unord_q);
    }
    // f16 exact rows: `valid` elements of raw bits (zero-extended in 32-bit lanes) at dst, as they are.
    void store_raw_f16(const Xbyak::Address& dst, const Vmm& raw, const Vmm&, int valid) {
        g_.vpmovdw(valid < register_lanes() ? dst | set_mask(valid) : dst, raw);
    }
    void move_under_fix(const Vmm& dst, const Vmm& src) {
        if (lanes_64()) g_.vmovdqa64(dst | fix_, src);
        else g_.vmovdqa32(dst | fix_, src);
    }

    // The lanes in `bits` of raw bits (store_raw_f16) at dst, the lanes' own places.
    void store_raw_f16_lanes(const Xbyak::Address& dst, const Vmm& raw, std::uint64_t bits) {
        g_.vpmovdw(dst | set_bits(bits), raw);
    }

    // Compare value -> `valid` elements of format.dtype (f16: `vcvtps2ph`, exact for every value that came from an
    // f16 but NaN; f16 rows that may hold one store their raw bits, store_raw_f16).
    void store_value(const Xbyak::Address& dst, const Vmm& value, const Vmm& scratch, int valid) {
        store_value_at(valid < register_lanes() ? dst | set_mask(valid) : dst, value, scratch);
    }
    // The lanes in `bits` only (a row's piece of a vector of outputs over a row pitch), each at its own place.
    void store_value_lanes(const Xbyak::Address& dst, const Vmm& value, const Vmm& scratch, std::uint64_t bits) {
        store_value_at(bits == all_lanes() ? dst : dst | set_bits(bits), value, scratch);
    }
    void store_value_at(const Xbyak::Address& at, const Vmm& value, const Vmm& scratch) {
        if (byte_lanes()) {
            g_.vmovdqu8(at, value);
            return;
        }
        switch (format_.dtype) {
            case DType::f32: g_.vmovups(at, value); break;
            case DType::f64: g_.vmovupd(at, value); break;
            case DType::s32: g_.vmovdqu32(at, value); break;
            case DType::s64: g_.vmovdqu64(at, value); break;
            case DType::s8: case DType::u8: g_.vpmovdb(at, value); break;
            case DType::f16:
                g_.vcvtps2ph(Xbyak::Ymm(scratch.getIdx()), value, 0);
                g_.vmovdqu16(at, Xbyak::Ymm(scratch.getIdx()));
                break;
            case DType::bf16:
                g_.vpsrld(scratch, value, 16);
                g_.vpmovdw(at, scratch);
                break;
        }
    }

    // Final indices of `valid` lanes: spatial part (idx) + the call's base (base, broadcast) + per-lane offsets
    // (table, 64-bit entries with 64-bit index lanes or s64 indices, else 32-bit), -1 on fix lanes when `fix`.
    void store_indices(const LaneAddress& dst, const LaneAddress& table, const Vmm& idx, const Vmm& base,
                       const Vmm& minus_one, const Vmm& t0, int valid, bool fix) {
        const bool out64 = format_.index_dtype == DType::s64;
        if (format_.index_lanes_64 || !out64) {
            // Same lane count in and out.
            if (format_.index_lanes_64) {
                g_.vpaddq(t0, idx, base);
                g_.vpaddq(t0, t0, table(0));
            } else {
                g_.vpaddd(t0, idx, base);
                g_.vpaddd(t0, t0, table(0));
            }
            if (fix) {
                if (format_.index_lanes_64) g_.vmovdqa64(t0 | fix_, minus_one);
                else g_.vmovdqa32(t0 | fix_, minus_one);
            }
            const Xbyak::Address a = valid < format_.lanes ? dst(0) | set_mask(valid) : dst(0);
            if (out64) g_.vmovdqu64(a, t0);
            else if (format_.index_lanes_64) g_.vpmovqd(a, t0);
            else g_.vmovdqu32(a, t0);
            return;
        }
        // 32-bit lanes, 64-bit output: two halves of 8 lanes.
        for (int half = 0; half < 2; ++half) {
            const int lanes_here = std::min(8, valid - half * 8);
            if (lanes_here <= 0) break;
            if (half == 0) g_.vpmovsxdq(t0, Xbyak::Ymm(idx.getIdx()));
            else {
                g_.vextracti32x8(Xbyak::Ymm(t0.getIdx()), idx, 1);
                g_.vpmovsxdq(t0, Xbyak::Ymm(t0.getIdx()));
            }
            g_.vpaddq(t0, t0, base);
            g_.vpaddq(t0, t0, table(half * 8));
            if (fix) {
                if (half == 1) g_.kshiftrw(fix_, fix_, 8);
                g_.vmovdqa64(t0 | fix_, minus_one);
            }
            const Xbyak::Address a = dst(half * 8);
            g_.vmovdqu64(lanes_here < 8 ? a | set_mask(lanes_here) : a, t0);
        }
    }

    // dst <- the even lanes of the pair (lo, hi): lane j of dst is lane 2j of lo:hi (ncx lanes at stride 2).
    void deinterleave_even(const Vmm& dst, const Vmm& lo, const Vmm& hi) {
        if (lanes_64()) {
            g_.vmovdqu64(dst, g_.ptr[g_.rip + even_qwords_]);
            g_.vpermi2q(dst, lo, hi);
        } else {
            g_.vmovdqu32(dst, g_.ptr[g_.rip + even_dwords_]);
            g_.vpermi2d(dst, lo, hi);
        }
    }
    // Byte lanes: even <- the even bytes of the pair (lo, hi), odd <- the odd ones, in order; lo and hi are
    // clobbered. Each 16-byte lane's evens gathered before its odds (vpshufb), then the even and the odd
    // quadwords of the pair (vpermi2q): no VBMI needed.
    void split_byte_phases(const Vmm& even, const Vmm& odd, const Vmm& lo, const Vmm& hi) {
        g_.vpshufb(lo, lo, g_.ptr[g_.rip + byte_phases_]);
        g_.vpshufb(hi, hi, g_.ptr[g_.rip + byte_phases_]);
        g_.vmovdqu64(even, g_.ptr[g_.rip + even_qwords_]);
        g_.vpermi2q(even, lo, hi);
        g_.vmovdqu64(odd, g_.ptr[g_.rip + odd_qwords_]);
        g_.vpermi2q(odd, lo, hi);
    }
    // dst <- each 16-bit word of src shifted right by 8: a byte pair's second (odd) byte in the first's place.
    void shift_words_right_8(const Vmm& dst, const Vmm& src) { g_.vpsrlw(dst, src, 8); }
    // Byte pairs past the row's edges load under an opmask here (load_byte_lanes_over): no shifted loads or
    // blends are planned with opmasks (SeparableRows::shifted_pair_loads, row_read_reach).
    void shift_bytes_up(const Vmm&, int, const Vmm&, const Vmm&) {
        throw Error("jit:avx512: byte pairs starting in the padding are not planned with opmasks");
    }
    void shift_bytes_down(const Vmm&, int, const Vmm&) {
        throw Error("jit:avx512: shifted byte pair loads are not planned with opmasks");
    }
    void fill_bytes_from(const Vmm&, int, const Vmm&, const Vmm&) {
        throw Error("jit:avx512: byte pairs past the row's end are not planned with opmasks");
    }
    // Byte lanes: even <- the even bytes of the pair (lo, hi), in order (each word truncated to its low byte);
    // lo is clobbered.
    void even_bytes(const Vmm& even, const Vmm& lo, const Vmm& hi) {
        g_.vpmovwb(Xbyak::Ymm(even.getIdx()), lo);
        g_.vpmovwb(Xbyak::Ymm(lo.getIdx()), hi);
        g_.vinserti64x4(even, even, Xbyak::Ymm(lo.getIdx()), 1);
    }
    // Byte lanes: even <- the even bytes of lo, in order, where `outputs` (at most 32) of them are needed.
    void even_bytes_low(const Vmm& even, const Vmm& lo, int outputs) {
        if (outputs > 32) throw Error("jit:avx512: even_bytes_low takes at most a register's 32 even bytes");
        g_.vpmovwb(Xbyak::Ymm(even.getIdx()), lo);
    }
    // bf16 pairs: 2 x 16 elements at src, `valid` (more than 16) of them, as two f32 vectors: even <- elements 0,
    // 2, .., 30, odd <- elements 1, 3, .., 31. One load (masked past `valid`: no byte past them is read), a shift
    // and an and, where two widening loads took a cross-lane zero-extension and a shift each; merges are
    // lane-wise, so the pair keeps this order until store_widened_pair interleaves it. Lanes past `valid`: zero.
    void load_widened_pair(const Vmm& even, const Vmm& odd, const Xbyak::Address& src, int valid) {
        if (valid <= 16) throw Error("jit:avx512: a widened pair holds more than one vector's elements");
        if (valid >= 32) g_.vmovdqu16(odd, src);
        else g_.vmovdqu16(odd | set_mask(valid) | Xbyak::util::T_z, src);
        g_.vpslld(even, odd, 16);
        g_.vpandd(odd, odd, g_.ptr_b[g_.rip + high_words_]);
    }
    // The pair back as 2 x 16 bf16 elements, `valid` of them, at dst (masked past them); even and odd are
    // clobbered: each dword gets the even element's bits low (a shift) and the odd one's high (a word blend).
    void store_widened_pair(const Xbyak::Address& dst, const Vmm& even, const Vmm& odd, int valid) {
        g_.vpsrld(even, even, 16);
        g_.vpblendmw(even | set_bits(0xAAAAAAAAu), even, odd);
        g_.vmovdqu16(valid >= 32 ? dst : dst | set_mask(valid), even);
    }
    // bf16 lanes at stride 2: dst <- the even elements of the words in `bits` (at most 32) at src, as f32 in lane
    // order. One word load (the other words become 0 and fault nothing), each dword's low word shifted up.
    void load_even_words(const Vmm& dst, const Xbyak::Address& src, std::uint64_t bits) {
        if (format_.dtype != DType::bf16 || bits >> 32 != 0) throw Error("jit:avx512: even words are bf16 spans of up to 32 elements");
        if (bits == 0xFFFFFFFFu) g_.vmovdqu16(dst, src);
        else g_.vmovdqu16(Vmm(dst.getIdx()) | set_bits(bits) | Xbyak::util::T_z, src);
        g_.vpslld(dst, dst, 16);
    }
    // bf16 lanes at stride 2, width taps t and t + 1 one element apart (paired tap loads): `lanes` whole dwords
    // at src (one word load, masked past them: nothing past them faults), each holding lane j's two elements:
    // even <- tap t's (the low halves, shifted up), odd <- tap t + 1's (the high halves), as f32 in lane order.
    void load_widened_taps(const Vmm& even, const Vmm& odd, const Xbyak::Address& src, int lanes) {
        if (format_.dtype != DType::bf16 || lanes < 1 || lanes > 16)
            throw Error("jit:avx512: widened tap pairs are bf16 vectors of 1 to 16 lanes");
        if (lanes == 16) g_.vmovdqu16(odd, src);
        else g_.vmovdqu16(odd | set_mask(2 * lanes) | Xbyak::util::T_z, src);
        g_.vpslld(even, odd, 16);
        g_.vpandd(odd, odd, g_.ptr_b[g_.rip + high_words_]);
    }
    void load_even_elements(const Vmm&, const Xbyak::Address&, int, const Vmm&) {
        throw Error("jit:avx512: even-element loads are not planned on AVX-512");
    }
    void load_even_elements_in_pairs(const Vmm&, const Xbyak::Address&, int, bool) {
        throw Error("jit:avx512: even-element loads are not planned on AVX-512");
    }
    // One two-source permute gives the even lanes in order: pair order is lane order here.
    void deinterleave_even_in_pair_order(const Vmm& dst, const Vmm& lo, const Vmm& hi) { deinterleave_even(dst, lo, hi); }
    void restore_pair_order(const Vmm&) {}
    void deinterleave_odd_in_pair_order(const Vmm& dst, const Vmm& lo, const Vmm& hi) { deinterleave_odd(dst, lo, hi); }
    // dst <- the odd lanes of the pair (lo, hi). dst is neither source.
    void deinterleave_odd(const Vmm& dst, const Vmm& lo, const Vmm& hi) {
        if (lanes_64()) {
            g_.vmovdqu64(dst, g_.ptr[g_.rip + odd_qwords_]);
            g_.vpermi2q(dst, lo, hi);
        } else {
            g_.vmovdqu32(dst, g_.ptr[g_.rip + odd_dwords_]);
            g_.vpermi2d(dst, lo, hi);
        }
    }

    // At a jump target the mask register's content is unknown.
    void forget_mask() {
        for (CachedMask& m : masks_)
            if (!m.pinned) m.known = false;
    }
    // Code that merges lanes by masks alone (integer values without indices: no take or fix mask, no first-maximum
    // selection) may hold lane masks in k1-k3 too, before it emits anything.
    void use_every_opmask_for_lanes() {
        if (masks_.size() == 4)
            for (const int k : {1, 2, 3}) masks_.push_back({Xbyak::Opmask(k)});
    }
    // Masks an item's loops use on every pass: loaded once before them (as many as fit; the rest load in place).
    void pin_masks(const std::vector<std::uint64_t>& masks) {
        int pinned = 0;
        for (const std::uint64_t bits : masks) {
            if (pinned + 1 == static_cast<int>(masks_.size())) break;  // one register stays free for the others
            const Xbyak::Opmask& reg = set_bits(bits);
            for (CachedMask& m : masks_)
                if (m.reg.getIdx() == reg.getIdx() && !m.pinned) {
                    m.pinned = true;
                    ++pinned;
                }
        }
    }
    void unpin_masks() {
        for (CachedMask& m : masks_) m.pinned = false;
    }

    void emit_data() {
        g_.align(64);
        g_.L(even_dwords_);
        for (std::uint32_t j = 0; j < 16; ++j) g_.dd(2 * j);
        g_.L(even_qwords_);
        for (std::uint64_t j = 0; j < 8; ++j) g_.dq(2 * j);
        g_.L(odd_dwords_);
        for (std::uint32_t j = 0; j < 16; ++j) g_.dd(2 * j + 1);
        g_.L(odd_qwords_);
        for (std::uint64_t j = 0; j < 8; ++j) g_.dq(2 * j + 1);
        g_.L(byte_phases_);
        for (int lane = 0; lane < 4; ++lane)
            for (int i = 0; i < 16; ++i) g_.db(i < 8 ? 2 * i : 2 * (i - 8) + 1);
        g_.L(high_words_);
        g_.dd(0xFFFF0000u);
    }

private:
    // compute_take with `first` (take, with a write mask or not) as the destination of the first compare.
    void compute_take_into(const Xbyak::Opmask& first, const Vmm& fresh, const Vmm& acc) {
        constexpr std::uint8_t ord_q = 7, nge_uq = 9, nle = 6;
        switch (format_.compare) {
            case CompareType::f32:
            case CompareType::f64: {
                // propagate: a NaN replaces an ordered accumulator, nothing replaces a NaN one.
                // ignore: a NaN never replaces; a real value replaces a NaN first element.
                const Vmm& ordered_side = format_.nan == NanPolicy::propagate ? acc : fresh;
                if (format_.compare == CompareType::f64) {
                    g_.vcmppd(first, ordered_side, ordered_side, ord_q);
                    g_.vcmppd(take_ | take_, acc, fresh, nge_uq);
                } else {
                    g_.vcmpps(first, ordered_side, ordered_side, ord_q);
                    g_.vcmpps(take_ | take_, acc, fresh, nge_uq);
                }
                break;
            }
            case CompareType::s32: g_.vpcmpd(first, fresh, acc, nle); break;
            case CompareType::u32: g_.vpcmpud(first, fresh, acc, nle); break;
            case CompareType::s64: g_.vpcmpq(first, fresh, acc, nle); break;
            case CompareType::u8: g_.vpcmpub(first, fresh, acc, nle); break;
            case CompareType::s8: g_.vpcmpb(first, fresh, acc, nle); break;
        }
    }

    // k (with its write mask, if any) <- the lanes where a equals b in the compare type (+0 equals -0).
    void compare_equal(const Xbyak::Opmask& k, const Vmm& a, const Vmm& b) {
        constexpr std::uint8_t eq_oq = 0;
        switch (format_.compare) {
            case CompareType::f32: g_.vcmpps(k, a, b, eq_oq); break;
            case CompareType::f64: g_.vcmppd(k, a, b, eq_oq); break;
            case CompareType::s32: case CompareType::u32: g_.vpcmpeqd(k, a, b); break;
            case CompareType::u8: case CompareType::s8: g_.vpcmpeqb(k, a, b); break;
            case CompareType::s64: g_.vpcmpeqq(k, a, b); break;
        }
    }

    // The widening load of format.dtype into `to` (dst with its write mask, if any).
    void load_widened(const Vmm& to, const Vmm& dst, const Xbyak::Address& src) {
        if (byte_lanes()) {
            g_.vmovdqu8(to, src);
            return;
        }
        switch (format_.dtype) {
            case DType::f32: g_.vmovups(to, src); break;
            case DType::f64: g_.vmovupd(to, src); break;
            case DType::s32: g_.vmovdqu32(to, src); break;
            case DType::s64: g_.vmovdqu64(to, src); break;
            case DType::s8: g_.vpmovsxbd(to, src); break;
            case DType::u8: g_.vpmovzxbd(to, src); break;
            case DType::f16: g_.vcvtph2ps(to, src); break;
            case DType::bf16:
                g_.vpmovzxwd(to, src);
                g_.vpslld(dst, dst, 16);
                break;
        }
    }

    void move_lanes(const Vmm& dst, const Vmm& src) {
        if (byte_lanes()) g_.vmovdqu8(dst, src);
        else if (lanes_64()) g_.vmovdqa64(dst, src);
        else g_.vmovdqa32(dst, src);
    }
    // Lanes [0, 2^levels) of a <- op over those lanes (lane groups swapped: halves, quarters, pairs,
    // neighbours, the narrowest last); t: scratch.
    template <typename Op>
    void across_lanes(const Vmm& a, const Vmm& t, int levels, Op op) {
        const int lane_bits = lanes_64() ? 3 : 4;  // log2 of the lanes in a register
        for (int level = std::min(levels, lane_bits) - 1; level >= 0; --level) {
            switch (level + (lanes_64() ? 1 : 0)) {  // in 32-bit lane units
                case 3: g_.vshufi64x2(t, a, a, 0x4E); break;  // swap 256-bit halves
                case 2: g_.vshufi64x2(t, a, a, 0xB1); break;  // swap 128-bit quarters within each half
                case 1: g_.vpshufd(t, a, 0x4E); break;        // swap 64-bit halves of each quarter
                default: g_.vpshufd(t, a, 0xB1); break;       // swap neighbouring 32-bit lanes
            }
            op(a, t);
        }
    }

    bool lanes_64() const { return format_.compare == CompareType::f64 || format_.compare == CompareType::s64; }
    // Compare-type lanes a register holds; a plan with 64-bit index lanes beside 32-bit compare lanes uses half.
    int register_lanes() const { return 64 / lane_bytes(format_.compare); }
    std::uint64_t all_lanes() const { return register_lanes() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << register_lanes()) - 1; }
    bool byte_lanes() const { return lane_bytes(format_.compare) == 1; }

    // The partial-vector mask, loaded only when straight-line code does not hold it already.
    const Xbyak::Opmask& set_mask(int valid) { return set_bits((std::uint64_t{1} << valid) - 1); }
    // Lane masks live in a few opmask registers, reused while straight-line code (or a pinned item) holds them;
    // the least recently used unpinned one is reloaded.
    const Xbyak::Opmask& set_bits(std::uint64_t bits) {
        ++clock_;
        CachedMask* victim = nullptr;
        for (CachedMask& m : masks_) {
            if (m.known && m.bits == bits) {
                m.used = clock_;
                return m.reg;
            }
            if (!m.pinned && (victim == nullptr || !m.known || (victim->known && m.used < victim->used))) victim = &m;
        }
        g_.mov(r_.scratch, bits);
        g_.kmovq(victim->reg, r_.scratch);
        *victim = {victim->reg, bits, true, false, clock_};
        return victim->reg;
    }
    Vmm masked(const Vmm& v, int valid) {
        if (valid >= register_lanes()) return v;
        return Vmm(v.getIdx()) | set_mask(valid) | Xbyak::util::T_z;
    }

    Xbyak::CodeGenerator& g_;
    const LaneFormat format_;
    TraitResources r_;
    Xbyak::Reg64 tap_index_;
    std::optional<Xbyak::Address> tap_index_address_;  // prepare_tap_index_from's, until prepare_tap_index
    struct CachedMask {
        Xbyak::Opmask reg;
        std::uint64_t bits = 0;
        bool known = false;   // reg holds bits at this point of the code
        bool pinned = false;  // loaded before an item's loops: valid across their labels until unpinned
        std::uint64_t used = 0;
    };
    // k4-k7; k1-k3 too for code that takes lane masks only (use_every_opmask_for_lanes).
    std::vector<CachedMask> masks_ = {{Xbyak::Opmask(4)}, {Xbyak::Opmask(5)}, {Xbyak::Opmask(6)}, {Xbyak::Opmask(7)}};
    std::uint64_t clock_ = 0;
    Xbyak::Label even_dwords_, even_qwords_, odd_dwords_, odd_qwords_;
    Xbyak::Label byte_phases_;  // each 16-byte lane's even bytes, then its odd ones (split_byte_phases)
    Xbyak::Label high_words_;  // 0xFFFF0000, broadcast: the high 16 bits of each dword (load_widened_pair)
    const Xbyak::Opmask take_{1}, fix_{3};  // k2: select_first_maximum; k4-k7: lane masks
};

}  // namespace pooljit::jit
