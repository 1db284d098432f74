// clock.h — a monotonic wall clock (s) for the stage timers (/timing in the output). The
// first call may take 2 ms (calibration); step_data_reset makes it, so no step does.
#ifndef CSIM_CLOCK_H
#define CSIM_CLOCK_H

double clock_now(void);

#endif  // CSIM_CLOCK_H
