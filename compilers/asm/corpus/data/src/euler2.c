/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long euler2(long n) { long a = 1, b = 2, s = 0, lim = n * 1000; while (a <= lim) { if ((a & 1) == 0) s += a; long t = a + b; a = b; b = t; } return s; }
