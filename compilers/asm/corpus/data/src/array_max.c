/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long array_max(long *p, long n) { if (n <= 0) return 0; long m = p[0]; for (long i = 1; i < n; i++) if (p[i] > m) m = p[i]; return m; }
