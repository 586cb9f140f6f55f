/**
 * Work in steps. Compiling and instantiating are generators that yield between bounded steps
 * of their work; the sandbox drives them with an eye on the clock, giving the event loop its
 * turn between steps, while the engine API drives them straight through.
 */

/** A generator of steps that ends with a `T`. */
export type Steps<T> = Generator<void, T>;

/** Runs `steps` to the end and returns its result. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}
