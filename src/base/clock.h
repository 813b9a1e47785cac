/* clock.h - seconds on a monotonic clock (animation ticks, the quiz's timer). */
#ifndef MHAVIZ_CLOCK_H
#define MHAVIZ_CLOCK_H

/* Seconds since an arbitrary fixed point; never goes back. */
double clock_now(void);

#endif
