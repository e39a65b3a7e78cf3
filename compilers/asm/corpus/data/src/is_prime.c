/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long is_prime(long u) {
  if (u < 2) return 0;
  for (long d = 2; d * d <= u; d++) if (u % d == 0) return 0;
  return 1;
}
