import { ConfigError } from '@svc/config';
import { loadGatewayConfig } from '../src/config.ts';

const pepper = 'p'.repeat(32);

describe('gateway configuration', () => {
  it('has working local defaults once the secrets are given', () => {
    const config = loadGatewayConfig({ JWT_SECRET: 's'.repeat(32), API_KEY_PEPPER: pepper });
    expect(config).toMatchObject({
      PORT: 8080,
      JWT_ALGORITHM: 'HS256',
      RATE_LIMIT_PER_KEY: 1200,
      RATE_LIMIT_PER_ORG: 3000,
      BODY_LIMIT_BYTES: 1_048_576,
    });
  });

  it('lists every problem at once', () => {
    try {
      loadGatewayConfig({ PORT: 'eighty', RATE_LIMIT_PER_KEY: '0' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const { problems } = error as ConfigError;
      expect(problems).toEqual(
        expect.arrayContaining([
          'API_KEY_PEPPER is required but not set',
          expect.stringMatching(/^PORT /),
          expect.stringMatching(/^RATE_LIMIT_PER_KEY /),
        ]),
      );
    }
  });

  it('needs the key material of the pinned algorithm', () => {
    expect(() => loadGatewayConfig({ API_KEY_PEPPER: pepper })).toThrow(
      /JWT_SECRET is required when JWT_ALGORITHM is HS256/,
    );
    expect(() => loadGatewayConfig({ API_KEY_PEPPER: pepper, JWT_ALGORITHM: 'RS256' })).toThrow(
      /JWT_JWKS_URL is required when JWT_ALGORITHM is RS256/,
    );
    expect(() => loadGatewayConfig({ API_KEY_PEPPER: pepper, JWT_ALGORITHM: 'none' })).toThrow(/JWT_ALGORITHM/);
    expect(() => loadGatewayConfig({ API_KEY_PEPPER: pepper, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
  });

  it('refuses the development secrets of docker-compose.yml and scripts/start in production', () => {
    const dev = {
      JWT_SECRET: 'dev-only-jwt-secret-not-for-production',
      API_KEY_PEPPER: 'dev-only-api-key-pepper-change-me-012345',
    };
    expect(() => loadGatewayConfig({ ...dev, NODE_ENV: 'production' })).toThrow(
      /JWT_SECRET is a development or placeholder value[\s\S]*API_KEY_PEPPER is a development/,
    );
    expect(loadGatewayConfig({ ...dev, NODE_ENV: 'development' }).JWT_SECRET).toBe(dev.JWT_SECRET);
    expect(() =>
      loadGatewayConfig({
        JWT_SECRET: 'a8Kd02mQz7Lx4Vb9Nf3Hr6Tc1Yw5Ge0J',
        API_KEY_PEPPER: 'Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc',
        NODE_ENV: 'production',
        AMQP_URL: 'amqps://svc:Xk29dLq7PzW4mVb8@mq.internal:5671',
      }),
    ).not.toThrow();
  });

  it("refuses the example secrets (CHANGE_ME), placeholder URL passwords and ALLOW_PRIVATE_URLS in production (RabbitMQ's guest default too)", () => {
    const example = 'CHANGE_ME_to_a_random_string_of_at_least_32_characters';
    let problems: string[] = [];
    try {
      loadGatewayConfig({
        NODE_ENV: 'production',
        JWT_SECRET: example,
        API_KEY_PEPPER: example,
        REDIS_URL: 'redis://:CHANGE_ME@redis.internal:6379',
        AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
        ALLOW_PRIVATE_URLS: 'true',
      });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([
      'JWT_SECRET is a development or placeholder value; set a real secret in production',
      'API_KEY_PEPPER is a development or placeholder value; set a real secret in production',
      'REDIS_URL carries a placeholder password; set a real secret in production',
      'AMQP_URL carries the well-known password "guest"; set a real secret in production',
      'ALLOW_PRIVATE_URLS must be false in production (it lets tenant URLs reach internal addresses)',
    ]);
  });
});
