/* fib: iterative Fibonacci (mod 2^32), for the CLI cold-start measurement:
 * sandboxd fib.wasm --invoke fib --arg 30  ->  832040 */
#include "rt.h"

EXPORT("fib") i32 fib(i32 n) {
  u32 a = 0, b = 1;
  for (i32 i = 0; i < n; i++) {
    u32 t = a + b;
    a = b;
    b = t;
  }
  return (i32)a;
}
