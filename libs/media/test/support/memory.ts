/**
 * How far this process's resident memory rose above where it started while `work` ran: sampled every
 * few milliseconds on the event loop, which keeps turning while sharp decodes on libuv's threads.
 */
export async function rssGrowthDuring<T>(work: () => Promise<T>): Promise<{ result: T; growthBytes: number }> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthBytes: peak - start };
  } finally {
    clearInterval(sample);
  }
}

export const MB = 1024 * 1024;
