/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long array_fill(long *p, long n, long x) { for (long i = 0; i < n; i++) p[i] = x + i; return n; }
