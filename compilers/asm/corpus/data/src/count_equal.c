/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long count_equal(long *p, long n, long x) { long c = 0; for (long i = 0; i < n; i++) c += p[i] == x; return c; }
