import { FaultQueue } from './fault-queue.ts';
import { TokenStore } from './token-store.ts';
import { type NetworkName, type OutcomeFaultKind, type RecordedPost } from './types.ts';

export type MetricValue = number | Record<string, number>;

/**
 * Everything the sandbox remembers, in memory. Each network keeps its own objects (containers,
 * uploads, publish jobs) in a map of its own under `objects`, keyed by a network-specific name.
 */
export class SandboxState {
  readonly faults = new FaultQueue();
  /** `lost_response` / `slow_response`, consumed only by calls that create a post (`retryAfterSeconds` = the delay). */
  readonly outcomeFaults = new FaultQueue<OutcomeFaultKind>();
  readonly tokens: TokenStore;
  readonly posts: RecordedPost[] = [];
  /**
   * How long each network takes to answer a call that creates a post (ms; none by default), as a
   * real network does (0.2-1 s for text, more with media). Benchmarks set it to measure what a
   * publisher does while its calls wait (docs/performance.md, "Scale-out").
   */
  readonly createLatencyMs = new Map<NetworkName, number>();
  private readonly metrics = new Map<string, Record<string, MetricValue>>();
  private readonly objects = new Map<string, Map<string, unknown>>();

  constructor(readonly now: () => number = Date.now) {
    this.tokens = new TokenStore(now);
  }

  /** A typed store for one kind of network object; each network module owns its record type. */
  store<T>(name: string): Map<string, T> {
    let map = this.objects.get(name);
    if (!map) {
      map = new Map<string, unknown>();
      this.objects.set(name, map);
    }
    return map as Map<string, T>;
  }

  recordPost(post: RecordedPost): void {
    this.posts.push(post);
  }

  postsOf(network: NetworkName | undefined): RecordedPost[] {
    return network === undefined ? [...this.posts] : this.posts.filter((post) => post.network === network);
  }

  setMetrics(network: NetworkName, postId: string, metrics: Record<string, MetricValue>): void {
    this.metrics.set(`${network}:${postId}`, metrics);
  }

  metricsOf(network: NetworkName, postId: string): Record<string, MetricValue> | undefined {
    return this.metrics.get(`${network}:${postId}`);
  }

  reset(): void {
    this.faults.clear();
    this.outcomeFaults.clear();
    this.createLatencyMs.clear();
    this.tokens.clear();
    this.posts.length = 0;
    this.metrics.clear();
    for (const map of this.objects.values()) map.clear();
  }
}
