// SPDX-License-Identifier: GPL-2.0
/* The tracepoints declared in trace.h, defined once for the module. */
#define CREATE_TRACE_POINTS
#include "trace.h"
