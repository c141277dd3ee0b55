// Scalar kernels of the exact-math benchmark (run.sh): clang -O2
// -fno-math-errno turns fmodf/fmod into `frem`.
#include <math.h>
float fm(float x, float y) { return fmodf(x, y); }
double fmd(double x, double y) { return fmod(x, y); }
int sdiv32(int a, int b) { return a / b; }
unsigned urem32(unsigned a, unsigned b) { return a % b; }
