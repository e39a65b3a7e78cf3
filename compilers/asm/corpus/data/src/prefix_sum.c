/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long prefix_sum(long *p, long n) { long s = 0; for (long i = 0; i < n; i++) { s += p[i]; p[i] = s; } return s; }
