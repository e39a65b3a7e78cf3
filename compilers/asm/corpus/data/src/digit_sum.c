/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long digit_sum(long u) { if (u < 0) u = -u; long s = 0; while (u > 0) { s += u % 10; u /= 10; } return s; }
