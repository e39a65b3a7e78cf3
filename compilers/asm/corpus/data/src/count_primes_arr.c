/* archsim asm corpus; written for archsim, BSD-2-Clause. */
static long prime_p(long u) { if (u < 2) return 0; for (long d = 2; d * d <= u; d++) if (u % d == 0) return 0; return 1; }
long count_primes_arr(long *p, long n) { long c = 0; for (long i = 0; i < n; i++) c += prime_p(p[i] < 0 ? -p[i] : p[i]); return c; }
