/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long count_divisors(long n) { long k = n + 1, c = 0; for (long d = 1; d <= k; d++) if (k % d == 0) c++; return c; }
