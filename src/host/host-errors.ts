/**
 * What a host function throws to stop the guest on purpose: a trap (the guest did something
 * wrong) or an exit (the guest asked to end). Kept apart from abi.ts so that the capabilities
 * abi.ts grants (src/host/wasi) can use them without importing the ABI itself.
 */

/**
 * Thrown by a host function to make the guest trap: the run fails with `SandboxError` kind
 * `Trap` and message `guest trap: <message>`. Use it when the guest is at fault (bad input).
 */
export class HostTrap extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostTrap';
  }
}

/**
 * Thrown by a host function to end the run at once because the guest asked to exit (WASI's
 * `proc_exit`): the run then resolves, without values, with `exitCode` in its output.
 */
export class GuestExit extends Error {
  constructor(readonly code: number) {
    super(`the guest exited with code ${code}`);
    this.name = 'GuestExit';
  }
}
