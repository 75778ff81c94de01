/** Every name the broker uses, derived from the namespace in one place so tests and docs agree. */
export interface Names {
  prefix: string;
  events: string;
  commands: string;
  /** Headers exchange routing retry copies to their tier queue by the `retry-tier` header. */
  retry: string;
  parking: string;
  retryQueue(tierMs: number): string;
  workQueue(queue: string): string;
  parkingQueue(queue: string): string;
  rpcQueue(service: string): string;
}

export function createNames(namespace: string): Names {
  const prefix = namespace === '' ? 'svc' : namespace;
  return {
    prefix,
    events: `${prefix}.events`,
    commands: `${prefix}.commands`,
    retry: `${prefix}.retry`,
    parking: `${prefix}.parking`,
    retryQueue: (tierMs) => `${prefix}.retry.${tierMs}`,
    workQueue: (queue) => `${prefix}.${queue}`,
    parkingQueue: (queue) => `${prefix}.${queue}.parking`,
    rpcQueue: (service) => `${prefix}.${service}.rpc`,
  };
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(unparseable AMQP URL)';
  }
}
