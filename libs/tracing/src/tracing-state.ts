/**
 * Whether this process exports traces. The OpenTelemetry API registers its provider process-wide;
 * this flag mirrors that registration so the messaging hot paths skip every span (and the header
 * work) with one boolean check when tracing is off.
 */
let enabled = false;

export function tracingEnabled(): boolean {
  return enabled;
}

let stopCurrent: (() => Promise<void>) | undefined;

/** Set by startTracing once the provider is registered, with how to stop it. */
export function setTracingEnabled(stop: () => Promise<void>): void {
  enabled = true;
  stopCurrent = stop;
}

/**
 * Exports the spans still buffered and turns tracing off: the last step of a service's shutdown
 * (the runtime's stop), so the spans of the work it drained still leave. Nothing when tracing is off.
 */
export async function stopTracing(): Promise<void> {
  const stop = stopCurrent;
  enabled = false;
  stopCurrent = undefined;
  await stop?.();
}
