import { providerConfigSchema } from './config.ts';
import { ProviderError } from './errors/provider-error.ts';
import { networks } from './types.ts';

describe('providerConfigSchema', () => {
  it('defaults to the real production hosts', () => {
    expect(providerConfigSchema.GRAPH_API_URL.default).toBe('https://graph.facebook.com');
    expect(providerConfigSchema.X_API_URL.default).toBe('https://api.x.com');
    expect(providerConfigSchema.X_AUTHORIZE_URL.default).toBe('https://x.com/i/oauth2/authorize');
    expect(providerConfigSchema.LINKEDIN_API_URL.default).toBe('https://api.linkedin.com');
    expect(providerConfigSchema.LINKEDIN_AUTH_URL.default).toBe('https://www.linkedin.com');
    expect(providerConfigSchema.TIKTOK_API_URL.default).toBe('https://open.tiktokapis.com');
    expect(providerConfigSchema.TIKTOK_AUTH_URL.default).toBe('https://www.tiktok.com');
    expect(networks).toEqual(['instagram', 'facebook', 'x', 'linkedin', 'tiktok']);
  });
});

describe('ProviderError', () => {
  it('converts to the public AppError with a Retry-After header and keeps the network words', () => {
    const error = new ProviderError({
      network: 'x',
      kind: 'rate_limited',
      retryAfterMs: 90_500,
      status: 429,
      networkCode: '429',
      networkMessage: 'Too Many Requests',
    });
    expect(error.retryable).toBe(true);
    const app = error.toAppError();
    expect(app).toMatchObject({ code: 'rate_limited', status: 429, retryable: true, headers: { 'Retry-After': '91' } });
    expect(app.message).toBe('X refused the request: Too Many Requests');
    expect(
      new ProviderError({ network: 'tiktok', kind: 'auth_revoked', networkMessage: 'gone' }).toAppError().code,
    ).toBe('unauthorized');
  });
});
