/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long dot(long *p, long *q, long n) { long s = 0; for (long i = 0; i < n; i++) s += p[i] * q[i]; return s; }
