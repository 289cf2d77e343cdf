// The allocation watch of the hostile-input tests. It replaces the global operator new and delete, which a
// program may do once: include this header from exactly one translation unit of an executable (each
// test_hostile_*.cpp is an executable of its own file).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

// While armed, records the largest single operator new request and refuses (std::bad_alloc, without touching
// the allocator) any request above `refused_above`: a create() that sizes a heap block by the tensor shows up
// here instead of exhausting the machine (or aborting under ASan, whose allocator caps requests at 1 TiB).
namespace alloc_watch {
inline std::atomic<bool> armed{false};
inline std::atomic<std::size_t> largest{0};
inline constexpr std::size_t refused_above = std::size_t{64} << 20;  // 64 MiB: no create() needs that much

inline void* allocate(std::size_t n, std::size_t alignment) {
    if (armed.load(std::memory_order_relaxed)) {
        std::size_t seen = largest.load(std::memory_order_relaxed);
        while (n > seen && !largest.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
        }
        if (n > refused_above) throw std::bad_alloc();
    }
    if (n == 0) n = 1;
    void* p = nullptr;
    if (alignment <= alignof(std::max_align_t)) p = std::malloc(n);
    else if (::posix_memalign(&p, alignment, n) != 0) p = nullptr;
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

// Arms the watch for one scope; largest() is the biggest request seen in it.
class Scope {
public:
    Scope() {
        largest.store(0);
        armed.store(true);
    }
    ~Scope() { armed.store(false); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    std::size_t largest_request() const { return largest.load(); }
};
}  // namespace alloc_watch

void* operator new(std::size_t n) { return alloc_watch::allocate(n, 0); }
void* operator new[](std::size_t n) { return alloc_watch::allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return alloc_watch::allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return alloc_watch::allocate(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return alloc_watch::allocate(n, 0);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return alloc_watch::allocate(n, 0);
    } catch (...) {
        return nullptr;
    }
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    try {
        return alloc_watch::allocate(n, static_cast<std::size_t>(a));
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    try {
        return alloc_watch::allocate(n, static_cast<std::size_t>(a));
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
