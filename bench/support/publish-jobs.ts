// Accepting jobs through the API for the benchmarks, a few requests at a time, as clients would.
import type { BenchSystem } from './bench-system.ts';

export interface JobRequest {
  account_ids: string[];
  text: string;
  scheduled_at?: string;
}

/** POSTs every request (`concurrency` in flight, spread over the gateways) and returns the job ids in request order. */
export async function publishJobs(system: BenchSystem, requests: JobRequest[], concurrency: number): Promise<string[]> {
  const ids: string[] = new Array(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, requests.length) }, async () => {
      while (next < requests.length) {
        const n = next++;
        const res = await fetch(`${system.apis[n % system.apis.length]}/v1/publish`, {
          method: 'POST',
          headers: { authorization: system.auth, 'content-type': 'application/json' },
          body: JSON.stringify(requests[n]),
        });
        if (res.status !== 202) throw new Error(`job ${n} was not accepted: ${res.status} ${await res.text()}`);
        ids[n] = ((await res.json()) as { job_id: string }).job_id;
      }
    }),
  );
  return ids;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
