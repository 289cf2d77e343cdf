// The primitive cache: an LRU map from CacheKey to a shared future of the compiled Implementation. The slot is
// inserted before compiling so that concurrent creators of the same key wait for one compile (oneDNN's
// primitive cache does the same).
#include "runtime/cache.hpp"

#include "runtime/dispatch.hpp"
#include "runtime/log.hpp"

#include <pooljit/pooljit.hpp>

#include <tbb/parallel_for.h>
#include <xxhash.h>

#include <array>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <exception>
#include <future>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace pooljit::detail {

CacheKey make_cache_key(const Problem& problem, const PlanChoice& choice) {
    CacheKey key{problem, jit::max_isa(), choice};
    key.byte_permutes = key.isa == jit::Isa::avx512 && jit::cpu_features().avx512_vbmi;
    // The batch size and the steps between images are run-time arguments: the code is the same for every N.
    key.problem.batch = 0;
    key.problem.src_strides.n = key.problem.dst_strides.n = key.problem.indices_strides.n = 0;
    return key;
}

std::uint64_t hash_of(const CacheKey& key) {
    // The fields are copied into a padding-free buffer: hashing the struct's bytes would hash its padding too.
    // A field missing here only weakens the hash; equality still compares the whole key.
    std::array<std::int64_t, 64> fields{};
    std::size_t count = 0;
    auto add = [&](std::int64_t value) { fields[count++] = value; };
    auto add_spatial = [&](const Problem::Spatial& values) {
        for (std::int64_t v : values) add(v);
    };
    const Problem& p = key.problem;
    add(static_cast<std::int64_t>(p.op));
    add(static_cast<std::int64_t>(p.dtype));
    add(static_cast<std::int64_t>(p.layout));
    add(p.spatial_rank);
    add(p.batch);
    add(p.channels);
    add_spatial(p.in);
    add_spatial(p.out);
    add_spatial(p.kernel);
    add_spatial(p.stride);
    add_spatial(p.dilation);
    add_spatial(p.pad_begin);
    add_spatial(p.pad_end);
    add(static_cast<std::int64_t>(p.nan));
    add(p.has_indices ? 1 : 0);
    add(static_cast<std::int64_t>(p.index_dtype));
    add(p.axis);
    add(static_cast<std::int64_t>(p.order));
    add(p.block);
    for (const Problem::Strides* s : {&p.src_strides, &p.dst_strides, &p.indices_strides}) {
        add(s->n);
        add(s->c);
        add_spatial(s->spatial);
    }
    add(static_cast<std::int64_t>(key.isa) | std::int64_t{key.byte_permutes} << 8);
    const PlanChoice& c = key.choice;
    add(static_cast<std::int64_t>(c.isa) | static_cast<std::int64_t>(c.nan) << 8 | static_cast<std::int64_t>(c.reuse) << 16 |
        static_cast<std::int64_t>(c.planes) << 24 | static_cast<std::int64_t>(c.pairs) << 32 |
        static_cast<std::int64_t>(c.masked) << 40 | static_cast<std::int64_t>(c.tap_pairs) << 48 |
        static_cast<std::int64_t>(c.ranks) << 56);
    add(static_cast<std::int64_t>(c.bands) | static_cast<std::int64_t>(c.vertical) << 8 | static_cast<std::int64_t>(c.ranges) << 16);
    add(std::int64_t{c.sweep_bytes} << 32 | static_cast<std::uint32_t>(c.separable_kib));
    add(std::int64_t{c.prefetch_kib} << 32 | static_cast<std::uint32_t>(c.chunk_kib));
    add(std::int64_t{c.threads} << 32 | static_cast<std::uint32_t>(c.grain));
    return XXH3_64bits(fields.data(), count * sizeof(std::int64_t));
}

namespace {

using ImplementationPtr = std::shared_ptr<const Implementation>;

constexpr std::size_t default_capacity = 1024;

std::size_t capacity_from_environment() {
    const char* text = std::getenv("POOLJIT_CACHE_CAPACITY");
    if (text == nullptr || *text == '\0') return default_capacity;
    const std::string_view value(text);
    std::size_t capacity = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), capacity);
    if (error != std::errc() || end != value.data() + value.size())
        throw Error("POOLJIT_CACHE_CAPACITY = " + std::string(value) +
                    ", must be a non-negative integer (entries; 0 disables the cache)");
    return capacity;
}

// The key with its hash computed once: the map never rehashes the ~200-byte Problem.
struct HashedKey {
    CacheKey key;
    std::uint64_t hash = 0;
    friend bool operator==(const HashedKey& a, const HashedKey& b) { return a.hash == b.hash && a.key == b.key; }
};
struct HashedKeyHash {
    std::size_t operator()(const HashedKey& k) const { return static_cast<std::size_t>(k.hash); }
};

// One compile, finished or in flight. Its identity tells a failed compiler whether the map still holds its
// own slot (it may have been evicted or cleared, and the key re-inserted by someone else, meanwhile).
struct Slot {
    std::shared_future<ImplementationPtr> result;
};

class PrimitiveCache {
public:
    struct Reservation {
        std::shared_future<ImplementationPtr> existing;  // valid: a hit, wait on it
        std::shared_ptr<Slot> inserted;                  // non-null: this caller compiles into it
    };

    // Under the lock: a hit (touches the entry), or a miss that inserts `pending` (unless caching is off).
    Reservation find_or_reserve(const HashedKey& key, const std::shared_future<ImplementationPtr>& pending) {
        std::lock_guard lock(mutex_);
        const std::size_t limit = capacity_locked();
        if (const auto found = index_.find(key); found != index_.end()) {
            recency_.splice(recency_.begin(), recency_, found->second);
            ++stats_.hits;
            return {found->second->slot->result, nullptr};
        }
        ++stats_.misses;
        if (limit == 0) return {};
        auto slot = std::make_shared<Slot>(Slot{pending});
        recency_.push_front(Entry{key, slot});
        index_.emplace(key, recency_.begin());
        evict_beyond_locked(limit);
        return {{}, slot};
    }

    void record_compile(const Implementation& impl) {
        std::lock_guard lock(mutex_);
        stats_.compile_microseconds += static_cast<double>(impl.compile_microseconds);
        if (!impl.demotion.empty()) {
            ++stats_.demotions;
            ++demotions_since_start_;
        }
    }

    std::uint64_t demotions_since_start() {
        std::lock_guard lock(mutex_);
        return demotions_since_start_;
    }

    // A failed compile is not cached: the next create of the key tries again.
    void forget(const HashedKey& key, const std::shared_ptr<Slot>& slot) {
        std::lock_guard lock(mutex_);
        const auto found = index_.find(key);
        if (found == index_.end() || found->second->slot != slot) return;
        recency_.erase(found->second);
        index_.erase(found);
    }

    cache::Stats stats() {
        std::lock_guard lock(mutex_);
        cache::Stats s = stats_;
        s.entries = index_.size();
        return s;
    }

    void reset_stats() {
        std::lock_guard lock(mutex_);
        stats_ = {};
    }

    void set_capacity(std::size_t capacity) {
        std::lock_guard lock(mutex_);
        capacity_ = capacity;
        evict_beyond_locked(capacity);
    }

    std::size_t capacity() {
        std::lock_guard lock(mutex_);
        return capacity_locked();
    }

    void clear() {
        std::lock_guard lock(mutex_);
        index_.clear();
        recency_.clear();
    }

    void reread_capacity() {
        std::lock_guard lock(mutex_);
        capacity_.reset();
    }

private:
    // POOLJIT_CACHE_CAPACITY is read at first need, unless set_capacity came first. An invalid value throws
    // and leaves the capacity unread, so every create reports it rather than silently running uncached.
    std::size_t capacity_locked() {
        if (!capacity_) capacity_ = capacity_from_environment();
        return *capacity_;
    }

    void evict_beyond_locked(std::size_t limit) {
        while (recency_.size() > limit) {
            index_.erase(recency_.back().key);
            recency_.pop_back();
            ++stats_.evictions;
        }
    }

    struct Entry {
        HashedKey key;
        std::shared_ptr<Slot> slot;
    };
    std::mutex mutex_;
    std::list<Entry> recency_;  // front: most recently used
    std::unordered_map<HashedKey, std::list<Entry>::iterator, HashedKeyHash> index_;
    std::optional<std::size_t> capacity_;
    cache::Stats stats_;
    std::uint64_t demotions_since_start_ = 0;
};

PrimitiveCache& the_cache() {
    static PrimitiveCache cache;
    return cache;
}

std::atomic<CompileFunction> compiler_override{nullptr};

ImplementationPtr compile_implementation(const CacheKey& key) {
    const CompileFunction compiler = compiler_override.load(std::memory_order_acquire);
    return compiler != nullptr ? compiler(key.problem) : choose_implementation(key.problem, key.isa, key.choice, key.byte_permutes);
}

}  // namespace

CacheLookup find_or_compile(const Problem& problem, const PlanChoice& choice) {
    HashedKey key{make_cache_key(problem, choice), 0};
    key.hash = hash_of(key.key);
    PrimitiveCache& cache = the_cache();

    std::promise<ImplementationPtr> compiled;
    const PrimitiveCache::Reservation reservation = cache.find_or_reserve(key, compiled.get_future().share());
    if (reservation.existing.valid()) return {reservation.existing.get(), true, key.hash};  // rethrows a failure

    ImplementationPtr impl;
    try {
        // The key's problem (batch 0), not the caller's: the cached code must be a function of the key alone.
        // The ISA cap and the byte permutes read once, for key and code.
        impl = compile_implementation(key.key);
    } catch (...) {
        if (reservation.inserted) cache.forget(key, reservation.inserted);
        compiled.set_exception(std::current_exception());  // the waiters see the same exception
        throw;
    }
    compiled.set_value(impl);
    cache.record_compile(*impl);
    publish_compiled_code(key.hash, *impl);
    return {impl, false, key.hash};
}

std::uint64_t demotions_since_start() { return the_cache().demotions_since_start(); }

void set_compiler_for_testing(CompileFunction compiler) { compiler_override.store(compiler, std::memory_order_release); }

void reread_capacity_for_testing() { the_cache().reread_capacity(); }

}  // namespace pooljit::detail

namespace pooljit::cache {

Stats stats() { return detail::the_cache().stats(); }
void reset_stats() { detail::the_cache().reset_stats(); }
void set_capacity(std::size_t capacity) { detail::the_cache().set_capacity(capacity); }
std::size_t capacity() { return detail::the_cache().capacity(); }
void clear() { detail::the_cache().clear(); }

void warmup(const std::vector<AnyPoolDesc>& descs) {
    // Each failure is kept by position so that the one reported does not depend on scheduling: the first in
    // the list, once every descriptor has been tried.
    std::vector<std::exception_ptr> failures(descs.size());
    tbb::parallel_for(std::size_t{0}, descs.size(), [&](std::size_t i) {
        try {
            (void)pooljit::create(descs[i]);
        } catch (...) {
            failures[i] = std::current_exception();
        }
    });
    for (const std::exception_ptr& failure : failures)
        if (failure) std::rethrow_exception(failure);
}

}  // namespace pooljit::cache
