// ThreadSanitizer cannot see absl::Mutex, absl::CondVar or absl::Notification when
// Abseil is the distribution's uninstrumented build: their locking is atomics and
// futexes inside libabsl_synchronization, so every access they order would be
// reported as a race. This library, preloaded into the ThreadSanitizer test runs
// (scripts/sanitize.sh), interposes their exported functions, calls the real ones
// and tells ThreadSanitizer what they did: a release before a lock is given up, an
// acquire after it is taken. That is the happens-before an instrumented Abseil
// would report itself (it has the same annotations when built with TSan). Lock
// order checking is turned off, as every service's main does: the distribution's
// Abseil is a debug build whose deadlock detector keeps a graph of every mutex
// under a spin lock of its own, which ThreadSanitizer cannot see either. The names
// are Abseil's (inline namespace debian3).
//
// absl::Status shares its message between copies under a reference count that is
// dropped inside the library too (Status::UnrefNonInlined): each drop is a release,
// and the drop that frees the message acquires what every earlier one released.
//
// Abseil evaluates a waiter's Condition inside the library, in the waiting thread
// or in the thread that unlocks: each wait is therefore given a Condition of its
// own that evaluates the caller's inside an acquire and a release of the mutex.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/synchronization/mutex.h"

extern "C" {
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
}

namespace {

// absl::Duration and absl::Time: two words, trivially copyable, passed by value.
struct Duration {
  int64_t hi;
  uint32_t lo;
};
struct Time {
  Duration d;
};

template <typename F>
F Real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "absl_sync_annotations: %s not found\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

// A wait's condition, evaluated as if inside the critical section of `mu`.
struct Guarded {
  void* mu;
  const absl::Condition* condition;
};

bool EvalGuarded(Guarded* g) {
  // Condition's first member is its evaluator, bool (*)(const Condition*); null
  // for the condition that is always true.
  bool (*eval)(const absl::Condition*);
  std::memcpy(&eval, g->condition, sizeof(eval));
  __tsan_acquire(g->mu);
  const bool met = eval == nullptr || eval(g->condition);
  __tsan_release(g->mu);
  return met;
}

// Before the tests run (the library depends on Abseil's, so that is loaded first).
__attribute__((constructor)) void NoLockOrderChecks() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace

// Declares `guarded`, the condition to hand to the real function.
#define GUARD(mu, cond)                                                    \
  Guarded g{mu, static_cast<const absl::Condition*>(cond)};                \
  const absl::Condition guarded(&EvalGuarded, &g)

#define REAL(name, type) static const auto real = Real<type>(#name)

extern "C" {

// Mutex: locks.
void _ZN4absl7debian35Mutex4LockEv(void* mu) {
  REAL(_ZN4absl7debian35Mutex4LockEv, void (*)(void*));
  real(mu);
  __tsan_acquire(mu);
}
void _ZN4absl7debian35Mutex10ReaderLockEv(void* mu) {
  REAL(_ZN4absl7debian35Mutex10ReaderLockEv, void (*)(void*));
  real(mu);
  __tsan_acquire(mu);
}
bool _ZN4absl7debian35Mutex7TryLockEv(void* mu) {
  REAL(_ZN4absl7debian35Mutex7TryLockEv, bool (*)(void*));
  const bool locked = real(mu);
  if (locked) __tsan_acquire(mu);
  return locked;
}
bool _ZN4absl7debian35Mutex13ReaderTryLockEv(void* mu) {
  REAL(_ZN4absl7debian35Mutex13ReaderTryLockEv, bool (*)(void*));
  const bool locked = real(mu);
  if (locked) __tsan_acquire(mu);
  return locked;
}
void _ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE(void* mu, const void* cond) {
  REAL(_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE, void (*)(void*, const void*));
  GUARD(mu, cond);
  real(mu, &guarded);
  __tsan_acquire(mu);
}
void _ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE(void* mu, const void* cond) {
  REAL(_ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE,
       void (*)(void*, const void*));
  GUARD(mu, cond);
  real(mu, &guarded);
  __tsan_acquire(mu);
}
bool _ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE(
    void* mu, const void* cond, Duration timeout) {
  REAL(_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE,
       bool (*)(void*, const void*, Duration));
  GUARD(mu, cond);
  const bool met = real(mu, &guarded, timeout);
  __tsan_acquire(mu);  // held either way
  return met;
}
bool _ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE(
    void* mu, const void* cond, Time deadline) {
  REAL(_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE,
       bool (*)(void*, const void*, Time));
  GUARD(mu, cond);
  const bool met = real(mu, &guarded, deadline);
  __tsan_acquire(mu);
  return met;
}

// Mutex: unlocks.
void _ZN4absl7debian35Mutex6UnlockEv(void* mu) {
  REAL(_ZN4absl7debian35Mutex6UnlockEv, void (*)(void*));
  __tsan_release(mu);
  real(mu);
}
void _ZN4absl7debian35Mutex12ReaderUnlockEv(void* mu) {
  REAL(_ZN4absl7debian35Mutex12ReaderUnlockEv, void (*)(void*));
  __tsan_release(mu);
  real(mu);
}

// Mutex: waits that give the lock up and take it back.
void _ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE(void* mu, const void* cond) {
  REAL(_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE, void (*)(void*, const void*));
  __tsan_release(mu);
  GUARD(mu, cond);
  real(mu, &guarded);
  __tsan_acquire(mu);
}
bool _ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE(
    void* mu, const void* cond, Duration timeout) {
  REAL(_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE,
       bool (*)(void*, const void*, Duration));
  __tsan_release(mu);
  GUARD(mu, cond);
  const bool met = real(mu, &guarded, timeout);
  __tsan_acquire(mu);
  return met;
}
bool _ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE(
    void* mu, const void* cond, Time deadline) {
  REAL(_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE,
       bool (*)(void*, const void*, Time));
  __tsan_release(mu);
  GUARD(mu, cond);
  const bool met = real(mu, &guarded, deadline);
  __tsan_acquire(mu);
  return met;
}

// CondVar: the mutex is given up while waiting.
void _ZN4absl7debian37CondVar4WaitEPNS0_5MutexE(void* cv, void* mu) {
  REAL(_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE, void (*)(void*, void*));
  __tsan_release(mu);
  real(cv, mu);
  __tsan_acquire(mu);
}
bool _ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE(
    void* cv, void* mu, Duration timeout) {
  REAL(_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE,
       bool (*)(void*, void*, Duration));
  __tsan_release(mu);
  const bool timed_out = real(cv, mu, timeout);
  __tsan_acquire(mu);
  return timed_out;
}
bool _ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE(void* cv, void* mu,
                                                                       Time deadline) {
  REAL(_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE,
       bool (*)(void*, void*, Time));
  __tsan_release(mu);
  const bool timed_out = real(cv, mu, deadline);
  __tsan_acquire(mu);
  return timed_out;
}

// Notification: Notify happens before every wait that sees it.
void _ZN4absl7debian312Notification6NotifyEv(void* n) {
  REAL(_ZN4absl7debian312Notification6NotifyEv, void (*)(void*));
  __tsan_release(n);
  real(n);
}
void _ZNK4absl7debian312Notification19WaitForNotificationEv(const void* n) {
  REAL(_ZNK4absl7debian312Notification19WaitForNotificationEv, void (*)(const void*));
  real(n);
  __tsan_acquire(const_cast<void*>(n));
}
bool _ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE(
    const void* n, Duration timeout) {
  REAL(_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE,
       bool (*)(const void*, Duration));
  const bool notified = real(n, timeout);
  if (notified) __tsan_acquire(const_cast<void*>(n));
  return notified;
}
bool _ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE(
    const void* n, Time deadline) {
  REAL(_ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE,
       bool (*)(const void*, Time));
  const bool notified = real(n, deadline);
  if (notified) __tsan_acquire(const_cast<void*>(n));
  return notified;
}

// Status: a copy's reference dropped. Every drop releases; only the last frees, and
// the library does not say which one that is, so each also acquires (an ordering
// that the reference count's acq_rel decrement gives every dropper anyway).
void _ZN4absl7debian36Status15UnrefNonInlinedEm(uintptr_t rep) {
  REAL(_ZN4absl7debian36Status15UnrefNonInlinedEm, void (*)(uintptr_t));
  void* shared = reinterpret_cast<void*>(rep);
  __tsan_release(shared);
  __tsan_acquire(shared);
  real(rep);
}

}  // extern "C"
