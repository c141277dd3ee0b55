/* The kernels as explicit N-lane reference models (see lanes.h). */
#define CL_REFERENCE
#include "lanes.h"
#define N_LAST 7
#include "kernels.h"
