import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line of one request or message handling carries. */
export interface RequestContext {
  requestId: string;
  orgId?: string | undefined;
  /** The API key of an authenticated request made with one. */
  apiKeyId?: string | undefined;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}
