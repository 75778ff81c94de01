import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig } from './index.ts';

const schema = Type.Object({
  PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 8080 }),
  JWT_SECRET: Type.String({ minLength: 32 }),
  API_URL: Type.String({ pattern: '^https?://' }),
  DEBUG: Type.Boolean({ default: false }),
});

describe('loadConfig', () => {
  it('applies defaults and coerces types', () => {
    const config = loadConfig(schema, { JWT_SECRET: 'x'.repeat(32), API_URL: 'http://a', DEBUG: 'true' });
    expect(config).toEqual({ PORT: 8080, JWT_SECRET: 'x'.repeat(32), API_URL: 'http://a', DEBUG: true });
  });

  it('lists every problem at once in a readable message', () => {
    let caught: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty', API_URL: 'ftp://x' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const { problems, message } = caught as ConfigError;
    expect(problems).toEqual(
      expect.arrayContaining([
        'JWT_SECRET is required but not set',
        'PORT must be integer',
        'API_URL must match pattern "^https?://"',
      ]),
    );
    expect(message).toContain('Invalid configuration:\n  - ');
  });

  it('runs cross-field rules after the schema passes', () => {
    expect(() =>
      loadConfig(schema, { JWT_SECRET: 'x'.repeat(32), API_URL: 'http://a' }, (c) =>
        c.DEBUG ? [] : ['DEBUG must be on'],
      ),
    ).toThrow('DEBUG must be on');
  });
});
