/* Grid drivers for the Mandelbrot benchmark. This one file is compiled three
 * times, once per driver, each with its own flags (see benches/README.md):
 *
 *   -DGRID_SCALAR            grid_scalar: one call of `mandel` per pixel
 *   -DGRID_X8  -mavx2        grid_x8:     one call of the 8-lane clone per 8 pixels
 *   -DGRID_X16 -mavx512f     grid_x16:    one call of the 16-lane clone per 16 pixels
 *
 * The whole file gets the -m flag, not a target attribute on the function:
 * clang decides per translation unit how __m256/__m512 arguments are passed.
 *
 * `mandel` and its clones live in another object (batchify's output module)
 * and there is no LTO, so clang sees only their declarations here: it cannot
 * inline `mandel` into grid_scalar, nor vectorize grid_scalar's loop around
 * the opaque call. The benchmark's set-up checks the assembly for this.
 *
 * Pixel (i, j) of a w x h grid is the point cx = -2 + 3*i/w, cy = -1.5 + 3*j/h.
 * All three drivers compute it with the same operations, and everything is
 * compiled with -ffp-contract=off, so every lane sees exactly the coordinates
 * the scalar driver passes. */
#if defined(GRID_X8) || defined(GRID_X16)
#include <immintrin.h>
#endif

unsigned mandel(float cx, float cy);

static inline float coord_x(int i, int w) { return -2.0f + 3.0f * ((float)i / (float)w); }
static inline float coord_y(int j, int h) { return -1.5f + 3.0f * ((float)j / (float)h); }

#if defined(GRID_SCALAR)
void grid_scalar(unsigned *out, int w, int h) {
    for (int j = 0; j < h; j++) {
        float cy = coord_y(j, h);
        for (int i = 0; i < w; i++)
            out[(long)j * w + i] = mandel(coord_x(i, w), cy);
    }
}
#endif

#if defined(GRID_X8)
__m256i _ZGVdN8vv_mandel(__m256 cx, __m256 cy);

void grid_x8(unsigned *out, int w, int h) {
    for (int j = 0; j < h; j++) {
        float cy = coord_y(j, h);
        __m256 vcy = _mm256_set1_ps(cy);
        int i = 0;
        for (; i + 8 <= w; i += 8) {
            float xs[8];
            for (int k = 0; k < 8; k++)
                xs[k] = coord_x(i + k, w);
            __m256i n = _ZGVdN8vv_mandel(_mm256_loadu_ps(xs), vcy);
            _mm256_storeu_si256((__m256i *)(out + (long)j * w + i), n);
        }
        for (; i < w; i++) /* a row that is not a multiple of 8 */
            out[(long)j * w + i] = mandel(coord_x(i, w), cy);
    }
}
#endif

#if defined(GRID_X16)
__m512i _ZGVeN16vv_mandel(__m512 cx, __m512 cy);

void grid_x16(unsigned *out, int w, int h) {
    for (int j = 0; j < h; j++) {
        float cy = coord_y(j, h);
        __m512 vcy = _mm512_set1_ps(cy);
        int i = 0;
        for (; i + 16 <= w; i += 16) {
            float xs[16];
            for (int k = 0; k < 16; k++)
                xs[k] = coord_x(i + k, w);
            __m512i n = _ZGVeN16vv_mandel(_mm512_loadu_ps(xs), vcy);
            _mm512_storeu_si512((void *)(out + (long)j * w + i), n);
        }
        for (; i < w; i++) /* a row that is not a multiple of 16 */
            out[(long)j * w + i] = mandel(coord_x(i, w), cy);
    }
}
#endif
