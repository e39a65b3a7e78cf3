/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long is_palindrome_num(long u) { if (u < 0) return 0; long r = 0, t = u; while (t > 0) { r = r * 10 + t % 10; t /= 10; } return r == u; }
