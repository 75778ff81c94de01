export interface WaitForOptions {
  /** What is awaited, named in the error when it does not come: "the second job waits for the slot". */
  what: string;
  /** How long to wait before failing (default 15 s: long enough for a loaded machine). */
  timeoutMs?: number;
  /** How often to look again (default 25 ms). */
  intervalMs?: number;
}

/**
 * Waits until `condition` holds (returns true, or any value but false/undefined/null for a read),
 * polling it, and returns its last value; fails naming what was awaited and what was last seen.
 * Tests wait on the condition they need instead of sleeping a guess at how long it takes.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: WaitForOptions,
): Promise<Exclude<T, false | null | undefined>> {
  const { what, timeoutMs = 15_000, intervalMs = 25 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== false && value !== null && value !== undefined) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what} (last seen: ${JSON.stringify(value)}).`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
