/* Two reads of a small constant table (8 floats) at varying indices: a
   register permute each in batchify's AVX2 clone (emit/tables.rs). */
// bench: ret float
// bench: v int k = rnd_int(0, 1 << 20)
// bench: v float x = rnd_range(-4.0f, 4.0f)
static const float tp_w[8] = {0.5f, -1.25f, 3.0f, 7.5f, -0.0f, 1e-3f, 42.0f, -9.75f};
#pragma omp declare simd notinbranch
float table_pick(int k, float x) {
    return x * tp_w[k & 7] + tp_w[(k >> 3) & 7];
}
