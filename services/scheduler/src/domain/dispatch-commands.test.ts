import { randomUUID } from 'node:crypto';
import { assertPayload, publisherJobDispatchBatch } from '@svc/contracts';
import { dispatchCommands, type DispatchRow } from './dispatch-commands.ts';

const row = (orgId: string, requestId: string | null = `req-${orgId}`): DispatchRow => ({
  job_id: randomUUID(),
  org_id: orgId,
  run_at: new Date('2026-11-22T16:00:00Z'),
  request_id: requestId,
});
type Jobs = { jobs: { job_id: string; scheduled_at: string }[] };

describe('dispatch commands of jobs claimed together', () => {
  it('carries every job exactly once, at most the given number a command, each a valid v2 payload', () => {
    const rows = Array.from({ length: 45 }, (_, n) => row(`org_${n % 3}`));
    const envelopes = dispatchCommands(rows, 10);
    const carried = envelopes.flatMap((envelope) => (envelope.payload as Jobs).jobs);
    expect(carried.map((job) => job.job_id).sort()).toEqual(rows.map((r) => r.job_id).sort());
    expect(envelopes.every((envelope) => envelope.type === 'publisher.job_dispatch.v2')).toBe(true);
    expect(envelopes.map((envelope) => (envelope.payload as Jobs).jobs.length).sort((a, b) => b - a)[0]).toBe(10);
    expect(envelopes).toHaveLength(5);
    for (const envelope of envelopes)
      expect(() => assertPayload(publisherJobDispatchBatch, envelope.payload)).not.toThrow();
    expect(carried[0]!.scheduled_at).toBe('2026-11-22T16:00:00.000Z');
  });

  it('names the organization only when every job of a command belongs to it, the request only for a lone job', () => {
    // 15 jobs of each of two organizations, 10 a command: org_a 10 | org_a 5 + org_b 5 | org_b 10.
    const rows = [...Array.from({ length: 15 }, () => row('org_b')), ...Array.from({ length: 15 }, () => row('org_a'))];
    const envelopes = dispatchCommands(rows, 10);
    expect(envelopes.map((envelope) => envelope.org_id)).toEqual(['org_a', null, 'org_b']);
    expect(envelopes.every((envelope) => envelope.request_id === null)).toBe(true);
    const [lone] = dispatchCommands([row('org_c', 'req-1')], 10);
    expect(lone).toMatchObject({ org_id: 'org_c', request_id: 'req-1' });
    // A row stored without an organization (a schedule command without one) names none.
    expect(dispatchCommands([row('')], 10)[0]!.org_id).toBeNull();
  });
});
