/**
 * `nextMacrotask(callback)`: runs `callback` after the event loop has had a turn — timers, I/O,
 * a page's input and painting — as Node's `setImmediate` does. Browsers have no `setImmediate`;
 * there each call posts a message on one `MessageChannel`, a task of its own, without the 4 ms
 * that browsers add to nested `setTimeout(0)`s.
 */
type Callback = () => void;

function messageChannelTasks(): (callback: Callback) => void {
  const queue: Callback[] = [];
  // Made at the first call, so that merely loading the library needs no MessageChannel.
  let channel: InstanceType<typeof MessageChannel> | null = null;
  return (callback) => {
    if (channel === null) {
      channel = new MessageChannel();
      // (Node's MessagePort typings know only its EventEmitter face; this runs where browsers' does.)
      (channel.port1 as unknown as { onmessage: () => void }).onmessage = () => queue.shift()?.();
    }
    queue.push(callback);
    channel.port2.postMessage(null);
  };
}

export const nextMacrotask: (callback: Callback) => void =
  typeof setImmediate === 'function' ? (callback) => void setImmediate(callback) : messageChannelTasks();
