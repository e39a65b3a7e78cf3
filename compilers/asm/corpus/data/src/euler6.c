/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long euler6(long n) { long s = 0, q = 0; for (long i = 1; i <= n; i++) { s += i; q += i * i; } return s * s - q; }
