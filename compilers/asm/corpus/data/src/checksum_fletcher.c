/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long checksum_fletcher(unsigned char *b, long n) { unsigned long s1 = 0, s2 = 0; for (long i = 0; i < n; i++) { s1 = (s1 + b[i]) % 255; s2 = (s2 + s1) % 255; } return (long)((s2 << 8) | s1); }
