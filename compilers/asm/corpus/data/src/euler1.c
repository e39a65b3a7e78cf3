/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long euler1(long n) { long s = 0; for (long i = 0; i < n * 10; i++) if (i % 3 == 0 || i % 5 == 0) s += i; return s; }
