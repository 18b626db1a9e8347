// SPDX-License-Identifier: GPL-2.0
/* The options before anything is given. */
#include <string.h>
#include "options.h"

void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->producers = 1;
	o->warmup = 1;
	o->duration = 5;
	o->hit_ratio = -1;
}
