/* The kernels as scalar C functions (see lanes.h). */
#define CL_SCALAR
#include "lanes.h"
#define N_LAST 7
#include "kernels.h"
