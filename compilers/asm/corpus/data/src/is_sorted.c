/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long is_sorted(long *p, long n) { for (long i = 1; i < n; i++) if (p[i - 1] > p[i]) return 0; return 1; }
