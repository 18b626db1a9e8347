// SPDX-License-Identifier: GPL-2.0
#include "stop.h"

volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

void stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t both;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a parent may start us with them blocked (scripts/suite holds SIGINT
	 * while it starts a run); the threads started after inherit this */
	sigemptyset(&both);
	sigaddset(&both, SIGINT);
	sigaddset(&both, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &both, NULL);
}
