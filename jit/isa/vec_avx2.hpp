// The AVX2 trait: the same operations as vec_avx512.hpp on 16 ymm registers without opmasks. Lane masks are
// vectors (compare results, blended with vblendv); partial 32/64-bit vectors load with vmaskmov (faults suppressed on
// masked lanes) and store their exact bytes in pieces (vmovdqu xmm, vmovq, vpextr*: a vmaskmov store is microcoded
// on AMD Zen 2 and 3); partial 8/16-bit vectors, which have no masked form, load and store their exact bytes in
// pieces through the halves of a register, so no byte outside the tensors is touched. 64-bit integer max is
// vpcmpgtq plus a blend.
#pragma once

#include "jit/isa/caps.hpp"
#include "jit/isa/vec_trait.hpp"

#include <algorithm>

namespace pooljit::jit {

class Avx2Ops {
public:
    using Vmm = Xbyak::Ymm;
    static constexpr int vector_bytes = 32;
    static constexpr bool needs_vector_masks = true;
    static constexpr const IsaCaps& caps = avx2_caps;
    static_assert(caps.vector_bytes == vector_bytes && !caps.opmasks);

    Avx2Ops(Xbyak::CodeGenerator& g, const LaneFormat& format, const TraitResources& r) : g_(g), format_(format), r_(r) {}

    void broadcast_constant32(const Vmm& v, std::uint32_t bits) {
        g_.mov(r_.scratch.cvt32(), bits);
        g_.vmovd(Xbyak::Xmm(v.getIdx()), r_.scratch.cvt32());
        g_.vpbroadcastd(v, Xbyak::Xmm(v.getIdx()));
    }
    void broadcast_constant64(const Vmm& v, std::uint64_t bits) {
        g_.mov(r_.scratch, bits);
        g_.vmovq(Xbyak::Xmm(v.getIdx()), r_.scratch);
        g_.vpbroadcastq(v, Xbyak::Xmm(v.getIdx()));
    }
    void broadcast_gpr(const Vmm& v, const Xbyak::Reg64& r, bool lanes_64) {
        g_.vmovq(Xbyak::Xmm(v.getIdx()), r);
        if (lanes_64) g_.vpbroadcastq(v, Xbyak::Xmm(v.getIdx()));
        else g_.vpbroadcastd(v, Xbyak::Xmm(v.getIdx()));
    }

    // dst <- src, every bit (rings' row maxima and their indices).
    void copy_vector(const Vmm& dst, const Vmm& src) { g_.vmovdqa(dst, src); }
    void zero_vector(const Vmm& v) { g_.vpxor(v, v, v); }

    void add_lanes(const Vmm& dst, const Vmm& src, bool lanes_64) {
        if (lanes_64) g_.vpaddq(dst, dst, src);
        else g_.vpaddd(dst, dst, src);
    }

    // dst (compare type) <- `valid` elements of format.dtype at src, widened; lanes past `valid` are unspecified.
    void load_value(const Vmm& dst, const Xbyak::Address& src, int valid) {
        if (byte_lanes()) {  // u8/s8 in their own bytes
            if (valid < 16) {
                xmm_from_memory(Xbyak::Xmm(dst.getIdx()), src.getRegExp(), valid);
            } else if (valid == 16) {
                g_.vmovdqu(Xbyak::Xmm(dst.getIdx()), g_.xword[src.getRegExp()]);
            } else if (valid < register_lanes() && valid % 4 == 0 && r_.tail_mask >= 0) {
                // A channel tail of whole dwords: a masked dword load (faults suppressed past the valid bytes).
                g_.vpmaskmovd(dst, set_mask(valid, 1), src);
            } else if (valid < register_lanes()) {
                // Another tail of 17 to 31 bytes, in registers: the bytes past 16 into the low half, the first 16
                // inserted above them, the halves swapped. Not through a stack area: a load that several narrower
                // stores must forward to stalls (a 24-channel u8 pixel ran 35x the time of a 32-channel one).
                xmm_from_memory(Xbyak::Xmm(dst.getIdx()), src.getRegExp() + 16, valid - 16);
                g_.vinserti128(dst, dst, g_.xword[src.getRegExp()], 1);
                g_.vpermq(dst, dst, 0x4E);
            } else {
                g_.vmovdqu(dst, src);
            }
            return;
        }
        if (valid < register_lanes()) {
            switch (format_.dtype) {
                case DType::f32: g_.vmaskmovps(dst, set_mask(valid, 4), src); return;
                case DType::s32: g_.vpmaskmovd(dst, set_mask(valid, 4), src); return;
                case DType::f64: g_.vmaskmovpd(dst, set_mask(valid, 8), src); return;
                case DType::s64: g_.vpmaskmovq(dst, set_mask(valid, 8), src); return;
                default:  // narrow data: the exact bytes into the low half, widened from the register
                    if (valid == 1) {
                        load_one_narrow(dst, src);
                        return;
                    }
                    xmm_from_memory(Xbyak::Xmm(dst.getIdx()), src.getRegExp(), valid * static_cast<int>(size_of(format_.dtype)));
                    widen(dst, Xbyak::Xmm(dst.getIdx()));
                    return;
            }
        }
        load_full(dst, src);
    }

    // One narrow element, widened in every lane: a broadcast load reads exactly its bytes and, unlike an insert,
    // does not wait for the register's previous value (the tap before, in a chain of single-lane taps).
    void load_one_narrow(const Vmm& dst, const Xbyak::Address& src) {
        const Xbyak::Xmm low(dst.getIdx());
        switch (format_.dtype) {
            case DType::bf16:  // each dword holds the element twice: its high half is the f32 value
                g_.vpbroadcastw(dst, g_.word[src.getRegExp()]);
                g_.vpand(dst, dst, g_.ptr[g_.rip + high_words_]);
                return;
            case DType::f16:
                g_.vpbroadcastw(low, g_.word[src.getRegExp()]);
                g_.vcvtph2ps(dst, low);
                return;
            case DType::u8:
            case DType::s8:
                g_.vpbroadcastb(low, g_.byte[src.getRegExp()]);
                widen(dst, low);
                return;
            default: throw Error("jit:avx2: load_one_narrow is for 8- and 16-bit data");
        }
    }

    // f16 only: the raw 16-bit patterns, zero-extended to 32-bit lanes.
    void load_raw(const Vmm& dst, const Xbyak::Address& src, int valid) {
        if (valid < register_lanes()) {
            xmm_from_memory(Xbyak::Xmm(dst.getIdx()), src.getRegExp(), valid * 2);
            g_.vpmovzxwd(dst, Xbyak::Xmm(dst.getIdx()));
        } else {
            g_.vpmovzxwd(dst, src);
        }
    }

    // take <- lanes where `fresh` replaces `acc` (DESIGN.md section 3: strict greater; NaN by policy).
    void compute_take(const Vmm& fresh, const Vmm& acc) {
        constexpr std::uint8_t ord_q = 7, nge_uq = 9;
        switch (format_.compare) {
            case CompareType::f32:
            case CompareType::f64: {
                // propagate: a NaN replaces an ordered accumulator, nothing replaces a NaN one.
                // ignore: a NaN never replaces; a real value replaces a NaN first element.
                const Vmm& ordered_side = format_.nan == NanPolicy::propagate ? acc : fresh;
                if (format_.compare == CompareType::f64) {
                    g_.vcmppd(take(), ordered_side, ordered_side, ord_q);
                    g_.vcmppd(lane_mask(), acc, fresh, nge_uq);
                } else {
                    g_.vcmpps(take(), ordered_side, ordered_side, ord_q);
                    g_.vcmpps(lane_mask(), acc, fresh, nge_uq);
                }
                g_.vandps(take(), take(), lane_mask());
                break;
            }
            case CompareType::s32: g_.vpcmpgtd(take(), fresh, acc); break;
            case CompareType::s64: g_.vpcmpgtq(take(), fresh, acc); break;
            case CompareType::u32: case CompareType::u8: case CompareType::s8:
                throw Error("jit:avx2: unsigned 32-bit and byte compares are not planned on AVX2");
        }
    }

    // The fast path, exact while no NaN is in the window (a window with one is recomputed by the exact path):
    // take <- fresh > acc, ordered.
    void compute_take_fast(const Vmm& fresh, const Vmm& acc) {
        constexpr std::uint8_t gt_oq = 0x1E;
        switch (format_.compare) {
            case CompareType::f32: g_.vcmpps(take(), fresh, acc, gt_oq); break;
            case CompareType::f64: g_.vcmppd(take(), fresh, acc, gt_oq); break;
            default: compute_take(fresh, acc); break;
        }
    }
    // Without indices and raw bits: acc <- fresh > acc ? fresh : acc (ties and NaN keep acc: the fast path).
    void max_fast(const Vmm& acc, const Vmm& fresh) {
        if (format_.compare == CompareType::s64) {
            g_.vpcmpgtq(take(), fresh, acc);
            g_.vblendvpd(acc, acc, fresh, take());
            return;
        }
        max_keeping_second(g_, format_.compare, acc, fresh, acc);
    }
    // Without indices and raw bits, NaN-free input: acc <- max(acc, the vector at a), ties taking the memory's.
    // Callers go through their taps last to first, so a tie keeps the earliest tap, as max_fast's first to last
    // does; the load folds into the max (s64's compare and blend load it into fresh first).
    // Integer callers may go in any order (equal integers have equal bits: the row code's folded taps).
    void max_fast_earlier(const Vmm& acc, const Xbyak::Address& a, const Vmm& fresh) {
        if (format_.compare == CompareType::s64) {
            g_.vmovdqu(fresh, a);
            max_fast(acc, fresh);
            return;
        }
        max_keeping_second(g_, format_.compare, acc, acc, a);
    }
    // NaN watch (the scan before a row's fast code): a running sum of loaded vectors. A NaN anywhere makes the
    // sum NaN; +inf meeting -inf (or an overflow) does too, which only sends the row to its exact code. Lanes
    // past a partial vector were loaded as 0.
    void begin_nan_watch(const Vmm& sum) { g_.vxorps(sum, sum, sum); }
    void note_nan(const Vmm& sum, const Vmm& fresh) { add_float_lanes(g_, format_.compare, sum, fresh); }
    // A sum that has seen a NaN: all-ones lanes are NaN in f32 and f64.
    void mark_nan_seen(const Vmm& sum) { g_.vpcmpeqd(sum, sum, sum); }
    // 16-bit floats as stored (bf16, f16): `bytes` (16 or 32) of raw elements from src into fresh; their NaN lanes
    // (the magnitude's bits above the infinity's) become all-ones words OR-ed into `seen`, which begins at zero.
    void note_raw_half_nan(const Vmm& seen, const Vmm& fresh, const Xbyak::Address& src, int bytes) {
        if (bytes == 32) g_.vmovdqu(fresh, src);
        else g_.vmovdqu(Xbyak::Xmm(fresh.getIdx()), src);
        const Xbyak::Label& inf = format_.dtype == DType::f16 ? f16_inf_words_ : bf16_inf_words_;
        half_nan_words_used_ = true;
        const auto ops = [&](const auto& s, const auto& f) {
            g_.vpand(f, f, g_.ptr[g_.rip + magnitude_words_]);
            g_.vpcmpgtw(f, f, g_.ptr[g_.rip + inf]);
            g_.vpor(s, s, f);
        };
        if (bytes == 32) ops(seen, fresh);
        else ops(Xbyak::Xmm(seen.getIdx()), Xbyak::Xmm(fresh.getIdx()));
    }
    void jump_if_raw_nan_seen(const Vmm* seen, int count, const Xbyak::Label& exact_path) {
        for (int i = 1; i < count; ++i) g_.vpor(seen[0], seen[0], seen[i]);
        g_.vptest(seen[0], seen[0]);
        g_.jnz(exact_path, Xbyak::CodeGenerator::T_NEAR);
    }
    void jump_if_nan_seen(const Vmm* sums, int count, const Xbyak::Label& exact_path) {
        constexpr std::uint8_t unord_q = 3;
        const bool f64 = format_.compare == CompareType::f64;
        for (int i = 1; i < count; ++i) add_float_lanes(g_, format_.compare, sums[0], sums[i]);
        if (f64) g_.vcmppd(lane_mask(), sums[0], sums[0], unord_q);
        else g_.vcmpps(lane_mask(), sums[0], sums[0], unord_q);
        g_.vtestps(lane_mask(), lane_mask());  // ZF = 0 when any lane's sign bit (all-ones compare result) is set
        g_.jnz(exact_path, Xbyak::CodeGenerator::T_NEAR);
    }

    // Whole-plane items (input without NaN): m <- max(m, fresh) in the lanes `bits`, the first lanes of the vector
    // (fresh's other lanes hold whatever lay past the plane; they are replaced by m's first). fresh is clobbered.
    void max_fast_lanes(const Vmm& m, const Vmm& fresh, std::uint64_t bits) {
        int valid = 0;
        while (valid < 64 && (bits >> valid & 1)) ++valid;
        if (bits != (std::uint64_t{1} << valid) - 1) throw Error("jit:avx2: max_fast_lanes takes the first lanes only");
        const Vmm mask = set_mask(valid, lane_bytes(format_.compare));
        if (lanes_64()) g_.vblendvpd(fresh, m, fresh, mask);  // fresh <- mask ? fresh : m
        else g_.vblendvps(fresh, m, fresh, mask);
        max_fast(m, fresh);
    }
    // As max_fast_lanes, the lanes past `valid` of fresh taken from `lowest` (the type's lowest value in every
    // lane) rather than from m: the blend does not wait for m, so the maxima form a chain of one max each.
    void max_fast_first_lanes_over(const Vmm& m, const Vmm& fresh, int valid, const Vmm& lowest) {
        const Vmm mask = set_mask(valid, lane_bytes(format_.compare));
        if (lanes_64()) g_.vblendvpd(fresh, lowest, fresh, mask);
        else g_.vblendvps(fresh, lowest, fresh, mask);
        max_fast(m, fresh);
    }
    // Whole-plane items: every lane of m <- the maximum over m's lanes; t: scratch.
    void maximum_to_all_lanes(const Vmm& m, const Vmm& t) {
        g_.vperm2i128(t, m, m, 0x01);  // the 128-bit halves swapped
        max_fast(m, t);
        g_.vpshufd(t, m, 0x4E);  // the 64-bit halves of each 128-bit half swapped
        max_fast(m, t);
        if (lanes_64()) return;
        g_.vpshufd(t, m, 0xB1);  // neighbouring 32-bit lanes swapped
        max_fast(m, t);
    }
    // bits <- the lanes of fresh that equal m's (+0 equals -0), bit j for lane j. fresh is clobbered.
    void equal_lanes(const Xbyak::Reg64& bits, const Vmm& fresh, const Vmm& m) {
        constexpr std::uint8_t eq_oq = 0;
        switch (format_.compare) {
            case CompareType::f32: g_.vcmpps(fresh, fresh, m, eq_oq); break;
            case CompareType::f64: g_.vcmppd(fresh, fresh, m, eq_oq); break;
            case CompareType::s32: g_.vpcmpeqd(fresh, fresh, m); break;
            case CompareType::s64: g_.vpcmpeqq(fresh, fresh, m); break;
            default: throw Error("jit:avx2: equal_lanes is for 32- and 64-bit lanes");
        }
        if (lanes_64()) g_.vmovmskpd(bits.cvt32(), fresh);
        else g_.vmovmskps(bits.cvt32(), fresh);
    }

    void blend_take(const Vmm& acc, const Vmm& fresh) { blend(acc, fresh, take(), lanes_64()); }
    // After compute_take_fast: acc <- fresh where it took. A max keeping acc on ties and NaN (MAXPS returns its
    // second operand then) is the same lanes as the blend, for every input: one blend a merge fewer where an index
    // blend follows (Zen 3: two variable blends a merge ran 1.3-1.5x the time of a max and a blend).
    void take_fast(const Vmm& acc, const Vmm& fresh) {
        if (format_.compare == CompareType::s64) blend_take(acc, fresh);
        else max_keeping_second(g_, format_.compare, acc, fresh, acc);
    }

    // Once per tap, before the blends of its vectors: the tap's index, broadcast.
    void prepare_tap_index(const Xbyak::Reg64& index) { broadcast_gpr(tap_index(), index, format_.index_lanes_64); }
    // Tap passes: the tap's 32-bit index in memory, broadcast.
    void prepare_tap_index_from(const Xbyak::Address& index) {
        if (format_.index_lanes_64) throw Error("jit:avx2: tap indices from memory are 32-bit lanes");
        g_.vpbroadcastd(tap_index(), index);
    }
    void blend_take_index(const Vmm& idx) { blend(idx, tap_index(), index_mask(take()), format_.index_lanes_64); }
    // Rings: the lanes that took a later row's maximum take that row's index too.
    void blend_take_index_from(const Vmm& idx, const Vmm& src) { blend(idx, src, index_mask(take()), format_.index_lanes_64); }
    // Separable pixels: the same from memory (32-bit index lanes beside 32-bit compare lanes).
    void blend_take_index_from(const Vmm& idx, const Xbyak::Address& src) {
        if (format_.index_lanes_64 || lanes_64()) throw Error("jit:avx2: index lanes from memory are 32-bit lanes");
        g_.vblendvps(idx, idx, src, take());
    }

    // Lanes of a float accumulator that hold NaN (an all-NaN window under nan=ignore) -> the fix mask.
    void find_nan_lanes(const Vmm& acc) {
        constexpr std::uint8_t unord_q = 3;
        if (format_.compare == CompareType::f64) g_.vcmppd(lane_mask(), acc, acc, unord_q);
        else g_.vcmpps(lane_mask(), acc, acc, unord_q);
    }
    void move_under_fix(const Vmm& dst, const Vmm& src) { blend(dst, src, lane_mask(), lanes_64()); }
    // f16 exact rows: `valid` elements of raw bits (zero-extended in 32-bit lanes) at dst, as they are.
    void store_raw_f16(const Xbyak::Address& dst, const Vmm& raw, const Vmm& scratch, int valid) {
        const Xbyak::Xmm narrow(scratch.getIdx());
        if (valid == 1) return g_.vpextrw(dst, Xbyak::Xmm(raw.getIdx()), 0);
        g_.vpackusdw(scratch, raw, raw);
        g_.vpermq(scratch, scratch, 0x08);
        if (valid < register_lanes()) xmm_to_memory(dst.getRegExp(), narrow, valid * 2);
        else g_.vmovdqu(dst, narrow);
    }

    // Compare value -> `valid` elements of format.dtype (f16: `vcvtps2ph`, exact for every value that came from an
    // f16 but NaN; f16 rows that may hold one store their raw bits, store_raw_f16).
    void store_value(const Xbyak::Address& dst, const Vmm& value, const Vmm& scratch, int valid) {
        const bool partial = valid < register_lanes();
        const bool same_width = byte_lanes() || size_of(format_.dtype) == static_cast<std::size_t>(lane_bytes(format_.compare));
        if (same_width) {  // u8/s8 in byte lanes, f32, s32, f64, s64: the register holds the stored bytes
            if (partial) ymm_to_memory(dst.getRegExp(), value, Xbyak::Xmm(scratch.getIdx()), valid * lane_bytes(format_.compare));
            else g_.vmovdqu(dst, value);
            return;
        }
        if (valid == 1) {  // one element: straight from lane 0, no packs (a whole plane's or a row tail's output)
            const Xbyak::Xmm lane0(value.getIdx());
            switch (format_.dtype) {
                case DType::bf16: g_.vpextrw(dst, lane0, 1); return;  // the f32's high half
                case DType::f16:
                    g_.vcvtps2ph(Xbyak::Xmm(scratch.getIdx()), lane0, 0);
                    g_.vpextrw(dst, Xbyak::Xmm(scratch.getIdx()), 0);
                    return;
                case DType::u8: case DType::s8: g_.vpextrb(dst, lane0, 0); return;  // the value's low byte
                default: break;
            }
        }
        const Xbyak::Xmm narrow(scratch.getIdx());
        switch (format_.dtype) {
            case DType::f32: case DType::s32: case DType::f64: case DType::s64:
                throw Error("jit:avx2: store_value: 32- and 64-bit data are stored as they are");
            // Narrowing packs are exact: every lane already holds a value of the narrow type.
            case DType::s8:
                g_.vpackssdw(scratch, value, value);
                g_.vpermq(scratch, scratch, 0x08);  // 64-bit lanes 0 and 2: the eight words in order
                g_.vpacksswb(narrow, narrow, narrow);
                break;
            case DType::u8:
                g_.vpackusdw(scratch, value, value);
                g_.vpermq(scratch, scratch, 0x08);
                g_.vpackuswb(narrow, narrow, narrow);
                break;
            case DType::f16: g_.vcvtps2ph(narrow, value, 0); break;
            case DType::bf16:
                g_.vpsrld(scratch, value, 16);
                g_.vpackusdw(scratch, scratch, scratch);
                g_.vpermq(scratch, scratch, 0x08);
                break;
        }
        const int elem = static_cast<int>(size_of(format_.dtype));
        if (partial) {
            xmm_to_memory(dst.getRegExp(), narrow, valid * elem);
        } else if (elem == 1) {
            g_.vmovq(dst, narrow);
        } else {
            g_.vmovdqu(dst, narrow);
        }
    }

    // The top `valid` lanes of a register of data as stored (a channel tail read back from its last channel) ->
    // `valid` elements at dst: the high half's last bytes in one store, the rest shifted down and stored in
    // pieces. value is kept.
    void store_value_top(const Xbyak::Address& dst, const Vmm& value, const Vmm& scratch, int valid) {
        const int bytes = valid * lane_bytes(format_.compare);
        const Xbyak::Xmm low(value.getIdx()), moved(scratch.getIdx());
        if (bytes >= 16) {
            g_.vextracti128(g_.xword[dst.getRegExp() + (bytes - 16)], value, 1);
            if (bytes == 16) return;
            g_.vpsrldq(moved, low, static_cast<std::uint8_t>(32 - bytes));
            xmm_to_memory(dst.getRegExp(), moved, bytes - 16);
        } else {
            g_.vextracti128(moved, value, 1);
            g_.vpsrldq(moved, moved, static_cast<std::uint8_t>(16 - bytes));
            xmm_to_memory(dst.getRegExp(), moved, bytes);
        }
    }

    // Final indices of `valid` lanes: spatial part (idx) + the call's base (base, broadcast) + per-lane offsets
    // (table, 64-bit entries with 64-bit index lanes or s64 indices, else 32-bit), -1 on fix lanes when `fix`.
    void store_indices(const LaneAddress& dst, const LaneAddress& table, const Vmm& idx, const Vmm& base,
                       const Vmm& minus_one, const Vmm& t0, int valid, bool fix) {
        const bool out64 = format_.index_dtype == DType::s64;
        const bool partial = valid < format_.lanes;
        if (!format_.index_lanes_64) {
            if (!out64) {
                g_.vpaddd(t0, idx, base);
                g_.vpaddd(t0, t0, table(0));
                if (fix) blend(t0, minus_one, lane_mask(), false);
                store_lanes(dst(0), t0, valid * 4);
                return;
            }
            // 32-bit lanes, 64-bit output: two halves of four lanes.
            for (int half = 0; half < 2; ++half) {
                const int lanes_here = std::min(4, valid - half * 4);
                if (lanes_here <= 0) break;
                const Xbyak::Xmm t0x(t0.getIdx()), wide_x(wide_mask().getIdx());
                if (half == 0) g_.vpmovsxdq(t0, Xbyak::Xmm(idx.getIdx()));
                else {
                    g_.vextracti128(t0x, idx, 1);
                    g_.vpmovsxdq(t0, t0x);
                }
                g_.vpaddq(t0, t0, base);
                g_.vpaddq(t0, t0, table(half * 4));
                if (fix) {
                    if (half == 0) g_.vpmovsxdq(wide_mask(), Xbyak::Xmm(lane_mask().getIdx()));
                    else {
                        g_.vextracti128(wide_x, lane_mask(), 1);
                        g_.vpmovsxdq(wide_mask(), wide_x);
                    }
                    g_.vpor(t0, t0, wide_mask());  // all-ones lanes are -1
                }
                const Xbyak::Address a = dst(half * 4);
                store_lanes(a, t0, lanes_here * 8);
            }
            return;
        }
        // 64-bit lanes (four).
        g_.vpaddq(t0, idx, base);
        g_.vpaddq(t0, t0, table(0));
        if (fix) blend(t0, minus_one, index_mask(lane_mask()), true);
        if (out64) {
            store_lanes(dst(0), t0, valid * 8);
            return;
        }
        const Xbyak::Xmm t0x(t0.getIdx());
        g_.vpshufd(t0, t0, 0x08);           // per 128-bit half: the low dwords of both qwords first
        g_.vpermq(t0, t0, 0x08);            // the two halves' pairs together: four dwords
        if (partial) xmm_to_memory(dst(0).getRegExp(), t0x, valid * 4);
        else g_.vmovdqu(dst(0), t0x);
    }

    // dst <- the even lanes of the pair (lo, hi): lane j of dst is lane 2j of lo:hi (ncx lanes at stride 2). Two
    // shuffles, no index vectors: the even lanes of each 128-bit half side by side, then the halves' quadwords in
    // order. dst may be lo or hi; both sources are kept.
    void deinterleave_even(const Vmm& dst, const Vmm& lo, const Vmm& hi) {
        if (lanes_64()) g_.vunpcklpd(dst, lo, hi);  // lo0 hi0 lo2 hi2
        else g_.vshufps(dst, lo, hi, 0x88);         // lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6
        g_.vpermpd(dst, dst, 0xD8);                 // quadwords 0, 2, 1, 3
    }
    // dst <- the even lanes of the pair (lo, hi) in pair order: one in-lane shuffle, the quadwords of the even lanes
    // as [0, 2, 1, 3] (lanes 0 1 4 5 2 3 6 7 of 32-bit data). Lane-wise merges keep that order, so planar items
    // at stride 2 merge every tap in it and restore_pair_order puts each vector in order once, before its store:
    // a cross-lane permute a tap was a sixth of the item's work (VGG pool5's 4 taps a vector).
    void deinterleave_even_in_pair_order(const Vmm& dst, const Vmm& lo, const Vmm& hi) {
        if (lanes_64()) g_.vunpcklpd(dst, lo, hi);
        else g_.vshufps(dst, lo, hi, 0x88);
    }
    void restore_pair_order(const Vmm& v) { g_.vpermpd(v, v, 0xD8); }
    // dst <- the odd lanes of the pair (lo, hi), the same way.
    void deinterleave_odd(const Vmm& dst, const Vmm& lo, const Vmm& hi) {
        deinterleave_odd_in_pair_order(dst, lo, hi);
        g_.vpermpd(dst, dst, 0xD8);
    }
    void deinterleave_odd_in_pair_order(const Vmm& dst, const Vmm& lo, const Vmm& hi) {
        if (lanes_64()) g_.vunpckhpd(dst, lo, hi);  // lo1 hi1 lo3 hi3
        else g_.vshufps(dst, lo, hi, 0xDD);         // lo1 lo3 hi1 hi3 | lo5 lo7 hi5 hi7
    }

    // Byte lanes: even <- the even bytes of the pair (lo, hi), odd <- the odd ones, in order; lo and hi are
    // clobbered. Each 16-byte lane's evens gathered before its odds (vpshufb), then the quadwords of the two
    // sources unpacked and put in order.
    void split_byte_phases(const Vmm& even, const Vmm& odd, const Vmm& lo, const Vmm& hi) {
        even_bytes(even, lo, hi);  // leaves each lane of lo and hi as its evens, then its odds
        g_.vpunpckhqdq(odd, lo, hi);
        g_.vpermq(odd, odd, 0xD8);
    }

    // dst <- each 16-bit word of src shifted right by 8: a byte pair's second (odd) byte in the first's place.
    void shift_words_right_8(const Vmm& dst, const Vmm& src) { g_.vpsrlw(dst, src, 8); }
    // Byte lanes: dst's bytes moved up by `count` (1 to 15) across the whole register, fill's low bytes in the
    // first `count` (a row's padding before its first element); scratch is clobbered.
    void shift_bytes_up(const Vmm& dst, int count, const Vmm& fill, const Vmm& scratch) {
        g_.vperm2i128(scratch, fill, dst, 0x20);  // fill's low half, then dst's low half
        g_.vpalignr(dst, dst, scratch, static_cast<std::uint8_t>(16 - count));
    }
    // Byte lanes: dst's bytes moved down by `count` (1 to 31) across the whole register (the bytes above: zero or
    // unspecified); scratch is clobbered.
    void shift_bytes_down(const Vmm& dst, int count, const Vmm& scratch) {
        g_.vperm2i128(scratch, dst, dst, 0x81);  // dst's high half, then zero
        g_.vpalignr(dst, scratch, dst, static_cast<std::uint8_t>(count));
    }
    // Byte lanes: dst's bytes from `valid` (1 to 31) up replaced by fill's (the row's end inside a register:
    // windows past it read the empty value); scratch is clobbered. The mask is the table's first `valid` bytes set.
    void fill_bytes_from(const Vmm& dst, int valid, const Vmm& fill, const Vmm& scratch) {
        g_.lea(r_.scratch, g_.ptr[g_.rip + mask_table_]);
        g_.vmovdqu(scratch, g_.ptr[r_.scratch + (32 - valid)]);
        g_.vpblendvb(dst, fill, dst, scratch);
    }
    // Byte lanes: even <- the even bytes of the pair (lo, hi), in order; lo and hi are left with each 16-byte
    // lane's evens gathered before its odds.
    void even_bytes(const Vmm& even, const Vmm& lo, const Vmm& hi) {
        g_.vpshufb(lo, lo, g_.ptr[g_.rip + byte_phases_]);
        g_.vpshufb(hi, hi, g_.ptr[g_.rip + byte_phases_]);
        g_.vpunpcklqdq(even, lo, hi);  // lo evens 0-7, hi evens 0-7 | lo evens 8-15, hi evens 8-15
        g_.vpermq(even, even, 0xD8);
    }

    // Byte lanes: even <- the even bytes of lo, in order, where `outputs` (at most 16) of them are needed: bytes
    // past them are unspecified. One shuffle where the outputs fit the low half's evens, a permute for the rest.
    void even_bytes_low(const Vmm& even, const Vmm& lo, int outputs) {
        if (outputs > 16) throw Error("jit:avx2: even_bytes_low takes at most a register's 16 even bytes");
        g_.vpshufb(even, lo, g_.ptr[g_.rip + byte_phases_]);
        if (outputs > 8) g_.vpermq(even, even, 0x08);  // the high half's evens after the low half's
    }

    // bf16 pairs: 2 x 8 elements at src, `valid` (more than 8) of them, as two f32 vectors: even <- elements 0, 2, .., 14,
    // odd <- elements 1, 3, .., 15. One load, a shift and an and, where two widening loads took a shuffle and a
    // shift each; merges are lane-wise, so the pair keeps this order until store_widened_pair interleaves it.
    // Past `valid` elements the lanes are unspecified.
    void load_widened_pair(const Vmm& even, const Vmm& odd, const Xbyak::Address& src, int valid) {
        const Xbyak::Xmm odd_low(odd.getIdx()), even_low(even.getIdx());
        if (valid <= 8) throw Error("jit:avx2: a widened pair holds more than one vector's elements");
        if (valid >= 16) {
            g_.vmovdqu(odd, src);
        } else {
            g_.vmovdqu(odd_low, g_.xword[src.getRegExp()]);
            xmm_from_memory(even_low, src.getRegExp() + 16, (valid - 8) * 2);
            g_.vinserti128(odd, odd, even_low, 1);
        }
        g_.vpslld(even, odd, 16);
        g_.vpand(odd, odd, g_.ptr[g_.rip + high_words_]);
    }
    // The pair back as 2 x 8 bf16 elements, `valid` of them, at dst; even and odd are clobbered.
    void store_widened_pair(const Xbyak::Address& dst, const Vmm& even, const Vmm& odd, int valid) {
        g_.vpsrld(even, even, 16);
        g_.vpblendw(even, even, odd, 0xAA);  // each dword: the even element's bits low, the odd one's high
        if (valid >= 16) g_.vmovdqu(dst, even);
        else ymm_to_memory(dst.getRegExp(), even, Xbyak::Xmm(odd.getIdx()), valid * 2);
    }

    // Planar lanes at stride 2 of bf16, u8 or s8: dst <- the even elements of the `span` elements at src (2 x 8 at
    // most), widened to the compare type, in order. One load of the span: bf16 shifts each dword's low half up
    // (its even element, as f32); bytes zero-extend words to dwords and keep the low byte of each (u8: an and;
    // s8: shifted up and back arithmetically). No byte past the span is read. tmp: a vector register for the
    // span's second 16 bytes.
    void load_even_elements(const Vmm& dst, const Xbyak::Address& src, int span, const Vmm& tmp) {
        const int bytes = span * static_cast<int>(size_of(format_.dtype));
        const Xbyak::Xmm low(dst.getIdx()), high(tmp.getIdx());
        if (bytes > 32 || format_.dtype == DType::f16 || size_of(format_.dtype) > 2)
            throw Error("jit:avx2: even-element loads are for bf16, u8 and s8 spans of up to 32 bytes");
        if (format_.dtype == DType::bf16) {
            if (bytes == 32) {
                g_.vmovdqu(dst, src);
            } else if (bytes > 16) {
                g_.vmovdqu(low, g_.xword[src.getRegExp()]);
                xmm_from_memory(high, src.getRegExp() + 16, bytes - 16);
                g_.vinserti128(dst, dst, high, 1);
            } else if (bytes == 16) {
                g_.vmovdqu(low, g_.xword[src.getRegExp()]);
            } else {
                xmm_from_memory(low, src.getRegExp(), bytes);
            }
            g_.vpslld(dst, dst, 16);
            return;
        }
        if (bytes == 16) {
            g_.vpmovzxwd(dst, g_.xword[src.getRegExp()]);
        } else {
            xmm_from_memory(low, src.getRegExp(), bytes);
            g_.vpmovzxwd(dst, low);
        }
        if (format_.dtype == DType::u8) {
            g_.vpand(dst, dst, g_.ptr[g_.rip + low_bytes_]);
        } else {
            g_.vpslld(dst, dst, 24);
            g_.vpsrad(dst, dst, 24);
        }
    }

    // As load_even_elements, where the row has an element before the span (at src, from_before) or one after it
    // (src the span's start): `lanes` whole bf16 dwords (one load, masked past them) or byte words, each holding
    // one even element, in its high half (from before) or its low half, with no odd element to leave out.
    // Even-word loads need opmasks (IsaCaps::even_word_loads): not planned on AVX2.
    void load_even_words(const Vmm&, const Xbyak::Address&, std::uint64_t) {
        throw Error("jit:avx2: even-word loads are not planned on AVX2");
    }
    void load_even_elements_in_pairs(const Vmm& dst, const Xbyak::Address& src, int lanes, bool from_before) {
        const Xbyak::Xmm low(dst.getIdx());
        if (lanes < 1 || lanes > 8 || format_.dtype == DType::f16 || size_of(format_.dtype) > 2)
            throw Error("jit:avx2: even-element loads are for bf16, u8 and s8 vectors of 1 to 8 lanes");
        if (format_.dtype == DType::bf16) {
            if (lanes == 8) g_.vmovdqu(dst, src);
            else if (lanes == 4) g_.vmovdqu(low, g_.xword[src.getRegExp()]);
            else if (lanes < 4) xmm_from_memory(low, src.getRegExp(), 4 * lanes);
            else g_.vpmaskmovd(dst, set_mask(lanes, 4), src);
            if (from_before) g_.vpand(dst, dst, g_.ptr[g_.rip + high_words_]);
            else g_.vpslld(dst, dst, 16);
            return;
        }
        if (lanes == 8) {
            g_.vpmovzxwd(dst, g_.xword[src.getRegExp()]);
        } else {
            xmm_from_memory(low, src.getRegExp(), 2 * lanes);
            g_.vpmovzxwd(dst, low);
        }
        if (format_.dtype == DType::u8) {
            if (from_before) g_.vpsrld(dst, dst, 8);
            else g_.vpand(dst, dst, g_.ptr[g_.rip + low_bytes_]);
        } else {
            g_.vpslld(dst, dst, from_before ? 16 : 24);
            g_.vpsrad(dst, dst, 24);
        }
    }

    // bf16 lanes at stride 2, width taps t and t + 1 one element apart (paired tap loads): `lanes` whole dwords
    // at src (one load, masked past them), each holding lane j's two elements: even <- tap t's (the low halves,
    // shifted up), odd <- tap t + 1's (the high halves), as f32 in lane order.
    void load_widened_taps(const Vmm& even, const Vmm& odd, const Xbyak::Address& src, int lanes) {
        const Xbyak::Xmm low(odd.getIdx());
        if (lanes < 1 || lanes > 8 || format_.dtype != DType::bf16)
            throw Error("jit:avx2: widened tap pairs are bf16 vectors of 1 to 8 lanes");
        if (lanes == 8) g_.vmovdqu(odd, src);
        else if (lanes == 4) g_.vmovdqu(low, g_.xword[src.getRegExp()]);
        else if (lanes < 4) xmm_from_memory(low, src.getRegExp(), 4 * lanes);
        else g_.vpmaskmovd(odd, set_mask(lanes, 4), src);
        g_.vpslld(even, odd, 16);
        g_.vpand(odd, odd, g_.ptr[g_.rip + high_words_]);
    }

    // At a jump target the mask register's content is unknown.
    void forget_mask() { mask_dwords_ = -1; }

    // dst (compare type; raw: f16's bits zero-extended) <- `count` elements, one a lane, lane i's at address_of(i)
    // (called just before its load, so it may set up a register), built in registers with element inserts;
    // lanes past `count` are zero. The stack gather's narrow stores followed by a vector load could not be
    // forwarded: a stall per tap (adaptive 13 -> 3 bins, 2 to 3 lanes 4 apart, ran 108 us a 256-plane tensor).
    // Each insert reads exactly its element. hi: a vector register for lanes 4 to 7 of 32-bit data.
    template <typename AddressOf>
    void gather_value(const Vmm& dst, int count, bool raw, const Vmm& hi, AddressOf address_of) {
        const int bytes = static_cast<int>(size_of(format_.dtype)), per_xmm = 16 / bytes;
        const auto fill = [&](const Xbyak::Xmm& x, int first) {
            for (int i = first; i < std::min(count, first + per_xmm); ++i) {
                const auto slot = static_cast<std::uint8_t>(i - first);
                if (slot == 0 && bytes < 4) g_.vpxor(x, x, x);
                const Xbyak::Address a = address_of(i);
                switch (bytes) {
                    case 8: slot == 0 ? g_.vmovq(x, a) : g_.vpinsrq(x, x, a, slot); break;
                    case 4: slot == 0 ? g_.vmovd(x, a) : g_.vpinsrd(x, x, a, slot); break;
                    case 2: g_.vpinsrw(x, x, a, slot); break;
                    default: g_.vpinsrb(x, x, a, slot); break;
                }
            }
        };
        const Xbyak::Xmm low(dst.getIdx()), high(hi.getIdx());
        fill(low, 0);  // a VEX write to the low half zeroes the rest of dst
        if (count > per_xmm) {
            fill(high, per_xmm);
            g_.vinserti128(dst, dst, high, 1);
        }
        if (bytes >= 4) return;
        if (raw) g_.vpmovzxwd(dst, low);
        else widen(dst, low);
    }

    // Constant data, placed after the code: the source of partial-vector masks.
    void emit_data() {
        g_.align(32);
        g_.L(mask_table_);
        for (int i = 0; i < 8; ++i) g_.dd(0xFFFFFFFFu);
        for (int i = 0; i < 8; ++i) g_.dd(0);
        g_.L(high_words_);
        for (int i = 0; i < 8; ++i) g_.dd(0xFFFF0000u);
        g_.L(low_bytes_);
        for (int i = 0; i < 8; ++i) g_.dd(0x000000FFu);
        g_.L(byte_phases_);
        for (int lane = 0; lane < 2; ++lane)
            for (int i = 0; i < 16; ++i) g_.db(i < 8 ? 2 * i : 2 * (i - 8) + 1);
        if (!half_nan_words_used_) return;  // only code that tests raw 16-bit floats carries these
        g_.L(magnitude_words_);
        for (int i = 0; i < 8; ++i) g_.dd(0x7FFF7FFFu);
        g_.L(bf16_inf_words_);
        for (int i = 0; i < 8; ++i) g_.dd(0x7F807F80u);
        g_.L(f16_inf_words_);
        for (int i = 0; i < 8; ++i) g_.dd(0x7C007C00u);
    }

private:
    // The vector registers the emitter gave the trait (TraitResources, from jit/plan/registers.hpp); a role it did not give is a bug.
    Vmm reg(int index, const char* role) const {
        if (index < 0) throw Error(std::string("jit:avx2: the plan gave the trait no register for ") + role);
        return Vmm(index);
    }
    Vmm take() const { return reg(r_.take, "compare results"); }
    Vmm lane_mask() const { return reg(r_.lane_mask, "lane masks"); }
    Vmm tail_mask() const { return reg(r_.tail_mask, "partial-vector masks"); }
    Vmm tap_index() const { return reg(r_.tap_index, "tap indices"); }
    Vmm wide_mask() const { return reg(r_.wide_mask, "widened masks"); }

    bool lanes_64() const { return format_.compare == CompareType::f64 || format_.compare == CompareType::s64; }
    // Compare-type lanes a register holds; a plan with 64-bit index lanes beside 32-bit compare lanes uses half.
    int register_lanes() const { return 32 / lane_bytes(format_.compare); }
    bool byte_lanes() const { return lane_bytes(format_.compare) == 1; }

    // A compare-lane mask as a mask of index lanes: the same register, or (32-bit compare lanes beside 64-bit
    // index lanes) its low four dword masks sign-extended to qwords.
    Vmm index_mask(const Vmm& mask) {
        if (!format_.index_lanes_64 || lanes_64()) return mask;
        g_.vpmovsxdq(wide_mask(), Xbyak::Xmm(mask.getIdx()));
        return wide_mask();
    }

    void blend(const Vmm& dst, const Vmm& src, const Vmm& mask, bool lanes_64) {
        if (lanes_64) g_.vblendvpd(dst, dst, src, mask);
        else g_.vblendvps(dst, dst, src, mask);
    }

    // The first `valid` lanes of `lane_bytes`-byte lanes set: 32 bytes from the table, 8 - valid dwords in.
    // Loaded only when straight-line code does not hold this mask already.
    Vmm set_mask(int valid, int lane_bytes) {
        const int set_dwords = valid * lane_bytes / 4;
        if (mask_dwords_ == set_dwords) return tail_mask();
        g_.lea(r_.scratch, g_.ptr[g_.rip + mask_table_]);
        g_.vmovdqu(tail_mask(), g_.ptr[r_.scratch + (8 - set_dwords) * 4]);
        mask_dwords_ = set_dwords;
        return tail_mask();
    }

    static std::uint8_t lane(int index) { return static_cast<std::uint8_t>(index); }
    // The `bytes` bytes at src (fewer than 16) into the low bytes of x, widest pieces first, touching no byte past
    // them; x's other bytes are unspecified.
    void xmm_from_memory(const Xbyak::Xmm& x, const Xbyak::RegExp& src, int bytes) {
        int done = 0;
        if (bytes < 4) g_.vpxor(x, x, x);  // an insert first: cut its dependence on x's previous value
        for (const int width : {8, 4, 2, 1})
            for (; bytes - done >= width; done += width) {
                const Xbyak::RegExp at = src + done;
                switch (width) {
                    case 8: done == 0 ? g_.vmovq(x, g_.qword[at]) : g_.vpinsrq(x, x, g_.qword[at], 1); break;
                    case 4: done == 0 ? g_.vmovd(x, g_.dword[at]) : g_.vpinsrd(x, x, g_.dword[at], lane(done / 4)); break;
                    case 2: g_.vpinsrw(x, x, g_.word[at], lane(done / 2)); break;
                    default: g_.vpinsrb(x, x, g_.byte[at], lane(done)); break;
                }
            }
    }
    // The low `bytes` bytes of x (fewer than 16) to dst, widest pieces first, touching no byte past them.
    void xmm_to_memory(const Xbyak::RegExp& dst, const Xbyak::Xmm& x, int bytes) {
        int done = 0;
        for (const int width : {8, 4, 2, 1})
            for (; bytes - done >= width; done += width) {
                const Xbyak::RegExp at = dst + done;
                switch (width) {
                    case 8: done == 0 ? g_.vmovq(g_.qword[at], x) : g_.vpextrq(g_.qword[at], x, 1); break;
                    case 4: done == 0 ? g_.vmovd(g_.dword[at], x) : g_.vpextrd(g_.dword[at], x, lane(done / 4)); break;
                    case 2: g_.vpextrw(g_.word[at], x, lane(done / 2)); break;
                    default: g_.vpextrb(g_.byte[at], x, lane(done)); break;
                }
            }
    }
    // The first `bytes` bytes of v (fewer than 32) to dst, touching no byte past them: the low half whole or in
    // pieces, then the high half through `high` (which may be v itself when v is not needed after). Not a
    // vmaskmov store: on AMD Zen 2 and 3 it is microcoded, about 20 cycles each (VGG pool5's 7-output rows,
    // one partial store a row, ran at a third of the speed of ORT's NCHW graph on a Zen 3 EPYC).
    void ymm_to_memory(const Xbyak::RegExp& dst, const Vmm& v, const Xbyak::Xmm& high, int bytes) {
        const Xbyak::Xmm low(v.getIdx());
        if (bytes < 16) {
            xmm_to_memory(dst, low, bytes);
            return;
        }
        g_.vmovdqu(g_.xword[dst], low);
        if (bytes == 16) return;
        g_.vextracti128(high, v, 1);
        xmm_to_memory(dst + 16, high, bytes - 16);
    }
    // `bytes` bytes of the index vector t0 (a temporary: its high half may be overwritten) to dst.
    void store_lanes(const Xbyak::Address& dst, const Vmm& t0, int bytes) {
        if (bytes >= 32) g_.vmovdqu(dst, t0);
        else ymm_to_memory(dst.getRegExp(), t0, Xbyak::Xmm(t0.getIdx()), bytes);
    }
    // dst (compare type) <- the narrow elements in the low bytes of x, widened (x may be dst's own low half).
    void widen(const Vmm& dst, const Xbyak::Xmm& x) {
        switch (format_.dtype) {
            case DType::s8: g_.vpmovsxbd(dst, x); break;
            case DType::u8: g_.vpmovzxbd(dst, x); break;
            case DType::f16: g_.vcvtph2ps(dst, x); break;
            case DType::bf16:
                g_.vpmovzxwd(dst, x);
                g_.vpslld(dst, dst, 16);
                break;
            default: throw Error("jit:avx2: widen is for 8- and 16-bit data");
        }
    }

    void load_full(const Vmm& dst, const Xbyak::Address& src) {
        switch (format_.dtype) {
            case DType::f32: g_.vmovups(dst, src); break;
            case DType::f64: g_.vmovupd(dst, src); break;
            case DType::s32: case DType::s64: g_.vmovdqu(dst, src); break;
            case DType::s8: g_.vpmovsxbd(dst, src); break;
            case DType::u8: g_.vpmovzxbd(dst, src); break;
            case DType::f16: g_.vcvtph2ps(dst, src); break;
            case DType::bf16:
                g_.vpmovzxwd(dst, src);
                g_.vpslld(dst, dst, 16);
                break;
        }
    }

    Xbyak::CodeGenerator& g_;
    const LaneFormat format_;
    TraitResources r_;
    Xbyak::Label mask_table_;
    Xbyak::Label high_words_;  // the high 16 bits of each dword (load_widened_pair, load_widened_taps)
    Xbyak::Label low_bytes_;   // the low 8 bits of each dword (load_even_elements)
    Xbyak::Label byte_phases_;  // each 16-byte lane's even bytes, then its odd ones (split_byte_phases)
    // 16-bit floats' magnitude bits, and the infinities of bf16 and f16 (note_raw_half_nan).
    Xbyak::Label magnitude_words_, bf16_inf_words_, f16_inf_words_;
    bool half_nan_words_used_ = false;
    int mask_dwords_ = -1;  // dwords set in tail_mask() at this point of straight-line code (-1: unknown)
};

}  // namespace pooljit::jit
