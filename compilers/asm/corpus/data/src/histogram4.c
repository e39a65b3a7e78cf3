/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long histogram4(long *p, long *q, long n) { for (long i = 0; i < 4; i++) q[i] = 0; for (long i = 0; i < n; i++) q[p[i] & 3]++; return n; }
