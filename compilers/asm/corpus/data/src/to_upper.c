/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long to_upper(unsigned char *b, long n) { long c = 0; for (long i = 0; i < n; i++) if (b[i] >= 'a' && b[i] <= 'z') { b[i] -= 32; c++; } return c; }
