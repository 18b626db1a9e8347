/* SPDX-License-Identifier: GPL-2.0 */
/* Ctrl-C and SIGTERM: a flag every long step checks, so a run stops and
 * keeps what it measured. */
#ifndef MAPBENCH_STOP_H
#define MAPBENCH_STOP_H
#include <signal.h>

/* The signal that asked to stop, 0 while none has. */
extern volatile sig_atomic_t stop_requested;
/* SIGINT and SIGTERM set stop_requested, blocked or not before; sleeps are
 * interrupted, not restarted. Before any thread starts. */
void stop_on_signals(void);

#endif
