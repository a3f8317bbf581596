// A background pass run every interval, never two at once (the lifecycle worker, the renewal of
// WALRUS blobs): `runOnce` starts one now or joins the running one; `stop` ends the timer and
// waits for a running pass, whose loops check `stopped` to end early.

export interface PeriodicPass<T> {
  /** Runs one pass now (tests, and the timer), or answers the one running. */
  runOnce(arg?: T): Promise<void>;
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
  readonly stopped: boolean;
}

export function periodicPass<T>(pass: (arg?: T) => Promise<void>, intervalMs: number): PeriodicPass<T> {
  let running: Promise<void> | undefined;
  let stopped = false;
  // cleared in a later microtask, so a pass that finishes synchronously cannot stick
  const runOnce = (arg?: T): Promise<void> => {
    running ??= pass(arg).finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void runOnce(), intervalMs);
  timer.unref();
  return {
    runOnce,
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
