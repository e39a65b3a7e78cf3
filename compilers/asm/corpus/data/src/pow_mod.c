/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long pow_mod(long x, long n, long m) {
  if (m <= 1) return 0; long b = x % m; if (b < 0) b += m; long r = 1;
  long e = n < 0 ? -n : n;
  while (e > 0) { if (e & 1) r = r * b % m; b = b * b % m; e >>= 1; }
  return r;
}
