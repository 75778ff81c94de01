import { loadServiceConfig } from './config.ts';

describe('publisher configuration', () => {
  it('runs both roles in one process unless PUBLISHER_ROLES names one', () => {
    expect(loadServiceConfig({}).PUBLISHER_ROLES).toBe('accept,deliver');
    for (const roles of ['accept', 'deliver', 'deliver,accept'])
      expect(loadServiceConfig({ PUBLISHER_ROLES: roles }).PUBLISHER_ROLES).toBe(roles);
  });

  it('refuses a role it does not know rather than start a publisher that does nothing', () => {
    for (const roles of ['acept', 'accept,', 'accept deliver', 'accept,deliver,accept']) {
      expect(() => loadServiceConfig({ PUBLISHER_ROLES: roles })).toThrow(/PUBLISHER_ROLES/);
    }
  });

  it('refuses ALLOW_PRIVATE_URLS and placeholder credentials in production only', () => {
    expect(() => loadServiceConfig({ NODE_ENV: 'production', ALLOW_PRIVATE_URLS: 'true' })).toThrow(
      /ALLOW_PRIVATE_URLS must be false in production/,
    );
    expect(() => loadServiceConfig({ NODE_ENV: 'production', MEDIA_S3_SECRET_ACCESS_KEY: 'CHANGE_ME' })).toThrow(
      /MEDIA_S3_SECRET_ACCESS_KEY is a development or placeholder value/,
    );
    expect(() =>
      loadServiceConfig({ NODE_ENV: 'production', AMQP_URL: 'amqps://publisher:CHANGE_ME@rabbitmq.internal:5671' }),
    ).toThrow(/AMQP_URL carries a placeholder password/);
    expect(
      loadServiceConfig({
        NODE_ENV: 'development',
        ALLOW_PRIVATE_URLS: 'true',
        MEDIA_S3_SECRET_ACCESS_KEY: 'CHANGE_ME',
      }).ALLOW_PRIVATE_URLS,
    ).toBe(true);
  });
});
