/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long reverse_digits(long u) { if (u < 0) u = -u; long r = 0; while (u > 0) { r = r * 10 + u % 10; u /= 10; } return r; }
