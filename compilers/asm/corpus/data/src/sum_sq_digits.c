/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long sum_sq_digits(long u) { if (u < 0) u = -u; long s = 0; while (u) { long d = u % 10; s += d * d; u /= 10; } return s; }
