/**
 * Runs `run` now (with `firstRunAfterInterval`, one interval from now) and then again `intervalMs`
 * after each run ends (never overlapping itself), until stopped; `stop()` waits for a run in
 * progress. `run` owns its errors: a throw is passed to `onError`.
 */
export interface PeriodicTask {
  stop(): Promise<void>;
}

export function startPeriodicTask(options: {
  intervalMs: number;
  run: () => Promise<void>;
  onError: (error: unknown) => void;
  firstRunAfterInterval?: boolean;
}): PeriodicTask {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    running = options
      .run()
      .catch(options.onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.intervalMs);
      });
  };
  timer = setTimeout(tick, options.firstRunAfterInterval === true ? options.intervalMs : 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
