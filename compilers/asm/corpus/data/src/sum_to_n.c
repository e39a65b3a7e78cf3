/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long sum_to_n(long n) { long s = 0; for (long i = 1; i <= n; i++) s += i; return s; }
