/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long triangle_row(long n) { long c = 1, s = 0; for (long k = 0; k <= n; k++) { s += c; c = c * (n - k) / (k + 1); } return s; }
