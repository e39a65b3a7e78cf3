/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long strlen_bounded(unsigned char *b, long n) { long i = 0; while (i < n && b[i] != 0) i++; return i; }
