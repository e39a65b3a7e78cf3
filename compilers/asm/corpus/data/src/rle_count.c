/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long rle_count(unsigned char *b, long n) { if (n <= 0) return 0; long runs = 1; for (long i = 1; i < n; i++) runs += b[i] != b[i - 1]; return runs; }
