/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long count_primes(long n) {
  long c = 0;
  for (long k = 2; k <= n * 8; k++) { long p = 1; for (long d = 2; d * d <= k; d++) if (k % d == 0) { p = 0; break; } c += p; }
  return c;
}
