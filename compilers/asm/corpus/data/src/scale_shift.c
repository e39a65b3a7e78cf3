/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long scale_shift(long *p, long n, long x) { for (long i = 0; i < n; i++) p[i] = (p[i] * x) >> 2; return n; }
