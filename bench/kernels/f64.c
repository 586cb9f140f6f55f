/* f64: numeric code. A small n-body integration and a Mandelbrot escape-time count.
 * Returns the bit pattern of the final energy mixed with the iteration count, so native
 * and interpreter results can be compared bit for bit. */
#include "rt.h"

#define NB 6

typedef struct {
  double x, y, z, vx, vy, vz, m;
} Body;

static Body bodies[NB];

static void nbody_init(void) {
  /* A heavy central body and lighter bodies on roughly circular orbits. */
  bodies[0] = (Body){0, 0, 0, 0, 0, 0, 39.47841760435743};
  for (int i = 1; i < NB; i++) {
    double r = 1.5 * i + 0.25 * (i & 1);
    double v = __builtin_sqrt(bodies[0].m / r);
    double tilt = 0.01 * i;
    bodies[i].x = r;
    bodies[i].y = 0.1 * i;
    bodies[i].z = tilt * r;
    bodies[i].vx = -0.002 * i;
    bodies[i].vy = v;
    bodies[i].vz = -tilt * v * 0.5;
    bodies[i].m = 0.0003 / i + 0.00001 * i;
  }
  /* zero total momentum */
  double px = 0, py = 0, pz = 0;
  for (int i = 0; i < NB; i++) {
    px += bodies[i].vx * bodies[i].m;
    py += bodies[i].vy * bodies[i].m;
    pz += bodies[i].vz * bodies[i].m;
  }
  bodies[0].vx = -px / bodies[0].m;
  bodies[0].vy = -py / bodies[0].m;
  bodies[0].vz = -pz / bodies[0].m;
}

static void nbody_step(double dt) {
  for (int i = 0; i < NB; i++) {
    Body *a = &bodies[i];
    for (int j = i + 1; j < NB; j++) {
      Body *b = &bodies[j];
      double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
      double d2 = dx * dx + dy * dy + dz * dz;
      double d = __builtin_sqrt(d2);
      double mag = dt / (d2 * d);
      a->vx -= dx * b->m * mag;
      a->vy -= dy * b->m * mag;
      a->vz -= dz * b->m * mag;
      b->vx += dx * a->m * mag;
      b->vy += dy * a->m * mag;
      b->vz += dz * a->m * mag;
    }
  }
  for (int i = 0; i < NB; i++) {
    bodies[i].x += dt * bodies[i].vx;
    bodies[i].y += dt * bodies[i].vy;
    bodies[i].z += dt * bodies[i].vz;
  }
}

static double nbody_energy(void) {
  double e = 0;
  for (int i = 0; i < NB; i++) {
    Body *a = &bodies[i];
    e += 0.5 * a->m * (a->vx * a->vx + a->vy * a->vy + a->vz * a->vz);
    for (int j = i + 1; j < NB; j++) {
      Body *b = &bodies[j];
      double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
      e -= a->m * b->m / __builtin_sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  return e;
}

static u32 mandel(int w, int h, int maxit) {
  u32 total = 0;
  for (int py = 0; py < h; py++) {
    double ci = -1.25 + 2.5 * py / h;
    for (int px = 0; px < w; px++) {
      double cr = -2.1 + 2.8 * px / w;
      double zr = 0, zi = 0, zr2 = 0, zi2 = 0;
      int it = 0;
      while (it < maxit && zr2 + zi2 <= 4.0) {
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        zr2 = zr * zr;
        zi2 = zi * zi;
        it++;
      }
      total = total * 7u + (u32)it;
    }
  }
  return total;
}

static u64 bits(double d) {
  union { double d; u64 u; } c;
  c.d = d;
  return c.u;
}

EXPORT("run") i64 run(i32 n) {
  nbody_init();
  double e0 = nbody_energy();
  for (int i = 0; i < n * 8; i++) nbody_step(0.001);
  double e1 = nbody_energy();
  u32 m = mandel(n / 8, n / 16, 200);
  u64 h = bits(e0) ^ rotl64(bits(e1), 17) ^ ((u64)m << 32);
  double sx = 0;
  for (int i = 0; i < NB; i++) sx += bodies[i].x * (i + 1) - bodies[i].vz;
  return (i64)(h ^ bits(sx));
}
