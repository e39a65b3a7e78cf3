/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long linear_search(long *p, long n, long x) { for (long i = 0; i < n; i++) if (p[i] == x) return i; return -1; }
