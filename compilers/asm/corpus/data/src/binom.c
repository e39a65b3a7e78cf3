/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long binom(long n, long y) { if (y < 0 || y > n) return 0; long r = 1; for (long i = 1; i <= y; i++) r = r * (n - y + i) / i; return r; }
