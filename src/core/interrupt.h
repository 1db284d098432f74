// interrupt.h — a process-wide stop request, set by SIGINT/SIGTERM.
//
// The step loop (cli_run) looks at it once per step; every iterative solver (src/core/solvers/*)
// looks at it once per iteration and returns early (not converged), so a long solve stops
// within one iteration instead of running to solver.max_iterations. The handler only stores
// the signal number in a volatile sig_atomic_t: nothing else is async-signal-safe.
#ifndef CSIM_INTERRUPT_H
#define CSIM_INTERRUPT_H

#include <signal.h>

extern volatile sig_atomic_t intr_signal_g;  // 0, or the signal that asked to stop

// install SIGINT and SIGTERM handlers that set intr_signal_g (cleared first)
void intr_install(void);

// restore the handlers intr_install replaced
void intr_restore(void);

// 0, or the number of the signal that asked to stop (cheap: one volatile load)
static inline int intr_requested(void) {
  return (int)intr_signal_g;
}

#endif  // CSIM_INTERRUPT_H
