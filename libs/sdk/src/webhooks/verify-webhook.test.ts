import { createHmac } from 'node:crypto';
import { SvcWebhookVerificationError } from '../errors.ts';
import { verifyWebhook } from './verify-webhook.ts';

const NOW = 1_800_000_000;
const body = JSON.stringify({ id: 'd1', type: 'post.published', created_at: '2027-01-15T08:00:00.000Z', data: {} });
const sign = (secret: string, timestamp = NOW, raw = body) =>
  createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex');
const reason = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof SvcWebhookVerificationError ? error.reason : error),
  );

describe('verifyWebhook (docs/webhooks.md, "Verifying a delivery")', () => {
  it('accepts Shape A from a Headers object and a byte body, and returns the parsed event', async () => {
    const headers = new Headers({ 'X-Svc-Signature': `sha256=${sign('whsec_a')}`, 'X-Svc-Timestamp': String(NOW) });
    await expect(
      verifyWebhook(new TextEncoder().encode(body), headers, 'whsec_a', { nowSeconds: NOW }),
    ).resolves.toEqual(JSON.parse(body));
  });

  it('accepts Shape B with several signatures, from Node-style headers, holding any one secret', async () => {
    const headers = { 'svc-signature': `t=${NOW},v1=${sign('whsec_new')},v1=${sign('whsec_old')}` };
    await expect(
      reason(verifyWebhook(body, headers, ['whsec_unrelated', 'whsec_old'], { nowSeconds: NOW })),
    ).resolves.toBe('accepted');
  });

  it('refuses missing and malformed headers, stale timestamps, other secrets and tampered bodies', async () => {
    const valid = { 'x-svc-signature': `sha256=${sign('whsec_a')}`, 'x-svc-timestamp': String(NOW) };
    expect(await reason(verifyWebhook(body, {}, 'whsec_a', { nowSeconds: NOW }))).toBe('missing_signature');
    expect(await reason(verifyWebhook(body, { ...valid, 'x-svc-timestamp': 'soon' }, 'whsec_a'))).toBe(
      'malformed_signature',
    );
    expect(
      await reason(verifyWebhook(body, { ...valid, 'x-svc-signature': 'sha256=zz' }, 'whsec_a', { nowSeconds: NOW })),
    ).toBe('malformed_signature');
    expect(await reason(verifyWebhook(body, valid, 'whsec_a', { nowSeconds: NOW + 301 }))).toBe('stale_timestamp');
    expect(await reason(verifyWebhook(body, valid, 'whsec_a', { nowSeconds: NOW + 900, toleranceSeconds: 1000 }))).toBe(
      'accepted',
    );
    expect(await reason(verifyWebhook(body, valid, 'whsec_b', { nowSeconds: NOW }))).toBe('signature_mismatch');
    expect(await reason(verifyWebhook(`${body} `, valid, 'whsec_a', { nowSeconds: NOW }))).toBe('signature_mismatch');
  });
});
