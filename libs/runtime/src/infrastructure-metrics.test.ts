import { Registry } from 'prom-client';
import { registerPoolGauges, registerQueueGauges } from './infrastructure-metrics.ts';

describe('queue gauges', () => {
  it('reads the broker once per scrape for both gauges, labelled by queue', async () => {
    const registry = new Registry();
    let reads = 0;
    registerQueueGauges(registry, async () => {
      reads += 1;
      return [{ queue: 'svc.publisher.work', ready: 7, consumers: 2 }];
    });
    const text = await registry.metrics();
    expect(text).toContain('svc_queue_messages_ready{queue="svc.publisher.work"} 7');
    expect(text).toContain('svc_queue_consumers{queue="svc.publisher.work"} 2');
    expect(reads).toBe(1);
  });

  it('reports no sample, rather than a false zero, when the broker cannot be read', async () => {
    const registry = new Registry();
    registerQueueGauges(registry, () => Promise.reject(new Error('broker unreachable')));
    const text = await registry.metrics();
    expect(text).toContain('# TYPE svc_queue_messages_ready gauge');
    expect(text).not.toMatch(/^svc_queue_messages_ready\{/m);
  });
});

describe('pool gauges', () => {
  it('reports each pool in use, idle, waiting and its limit', async () => {
    const registry = new Registry();
    registerPoolGauges(registry, new Map([['main', () => ({ max: 10, inUse: 9, idle: 1, waiting: 3 })]]));
    const text = await registry.metrics();
    expect(text).toContain('svc_db_pool_connections{pool="main",state="in_use"} 9');
    expect(text).toContain('svc_db_pool_connections{pool="main",state="idle"} 1');
    expect(text).toContain('svc_db_pool_max{pool="main"} 10');
    expect(text).toContain('svc_db_pool_waiting{pool="main"} 3');
  });
});
