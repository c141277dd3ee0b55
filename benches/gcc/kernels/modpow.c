/* b^e mod m by square-and-multiply: unsigned remainders by a varying modulus
   inside a divergent loop over the bits of e (1 to 20 iterations). */
// bench: ret unsigned
// bench: v unsigned b = (unsigned)rnd_int(0, 65535)
// bench: v unsigned e = (unsigned)rnd_int(0, (1 << rnd_int(0, 20)) - 1)
// bench: v unsigned m = (unsigned)rnd_int(2, 65535)
#pragma omp declare simd notinbranch
unsigned modpow(unsigned b, unsigned e, unsigned m) {
    unsigned r = 1 % m;
    b %= m;
    while (e != 0) {
        if (e & 1)
            r = r * b % m;
        b = b * b % m;
        e >>= 1;
    }
    return r;
}
