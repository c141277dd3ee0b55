/* Mandelbrot escape count, at most 256 iterations: a divergent loop whose
   trip count differs from lane to lane (1 to 256 over the grid). */
// bench: ret int
// bench: v float cx = grid_x(i, n)
// bench: v float cy = grid_y(i, n)
#pragma omp declare simd notinbranch
int mandel(float cx, float cy) {
    float x = 0.0f, y = 0.0f;
    int it = 0;
    while (it < 256 && x * x + y * y <= 4.0f) {
        float xt = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = xt;
        it++;
    }
    return it;
}
