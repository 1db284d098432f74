// clock.c — the wall clock of the stage timers (clock.h).
#include "core/clock.h"

#include <time.h>

static double mono_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// The stage timers read the clock six times a step. clock_gettime costs 26 ns here against
// 10 ns for the time-stamp counter, 0.16 us of a resting cube's 2.6 us step; so on x86-64 with an
// invariant TSC (CPUID 0x80000007 EDX bit 8: constant rate, never stopped, what Linux's tsc
// clocksource also requires) the timers read the counter, its period measured once per process
// over 2 ms of CLOCK_MONOTONIC. Elsewhere, or without that bit, clock_gettime.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <pthread.h>
#include <x86intrin.h>

static double tsc_period;  // seconds per tick; 0: clock_gettime
static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;

static void tsc_calibrate(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000007u, &a, &b, &c, &d) || !(d & (1u << 8))) return;
  double t0 = mono_clock(), t1;
  unsigned long long k0 = __rdtsc(), k1;
  do {
    t1 = mono_clock();
    k1 = __rdtsc();
  } while (t1 - t0 < 2e-3);
  if (k1 > k0) tsc_period = (t1 - t0) / (double)(k1 - k0);
}

double clock_now(void) {
  pthread_once(&tsc_once, tsc_calibrate);
  return tsc_period > 0 ? tsc_period * (double)__rdtsc() : mono_clock();
}
#else
double clock_now(void) { return mono_clock(); }
#endif
