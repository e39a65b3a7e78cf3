/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long byte_xor(unsigned char *b, long n, long x) { for (long i = 0; i < n; i++) b[i] ^= (unsigned char)x; return n; }
