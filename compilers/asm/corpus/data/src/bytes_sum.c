/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long bytes_sum(unsigned char *b, long n) { long s = 0; for (long i = 0; i < n; i++) s += b[i]; return s; }
