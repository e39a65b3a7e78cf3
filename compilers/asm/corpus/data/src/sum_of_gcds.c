/* archsim asm corpus; written for archsim, BSD-2-Clause. */
static long g2(long x, long y) { if (x < 0) x = -x; if (y < 0) y = -y; while (y) { long t = x % y; x = y; y = t; } return x; }
long sum_of_gcds(long *p, long n) { long s = 0; for (long i = 0; i + 1 < n; i++) s += g2(p[i], p[i + 1]); return s; }
