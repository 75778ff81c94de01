import { randomBytes } from 'node:crypto';
import { privateUrlsProblems, productionSecretProblems } from './production-secrets.ts';

const real = randomBytes(32).toString('base64url');
const names = ['JWT_SECRET', 'API_KEY_PEPPER', 'VAULT_KEYS', 'OAUTH_STATE_SECRET', 'X_CLIENT_SECRET'];

describe('productionSecretProblems', () => {
  it('refuses the compose and scripts/start development values in production', () => {
    const problems = productionSecretProblems(
      {
        NODE_ENV: 'production',
        JWT_SECRET: 'dev-only-jwt-secret-not-for-production',
        API_KEY_PEPPER: 'dev-only-api-key-pepper-change-me-012345',
        VAULT_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        OAUTH_STATE_SECRET: 'x'.repeat(40),
        X_CLIENT_SECRET: 'sandbox-x-secret',
      },
      names,
    );
    expect(problems).toEqual([
      'JWT_SECRET is a development or placeholder value; set a real secret in production',
      'API_KEY_PEPPER is a development or placeholder value; set a real secret in production',
      'VAULT_KEYS key "k1" is all zeros; set a real secret in production',
      'OAUTH_STATE_SECRET has too little variety to be a random secret; set a real secret in production',
      'X_CLIENT_SECRET is a development or placeholder value; set a real secret in production',
    ]);
    expect(
      productionSecretProblems(
        {
          NODE_ENV: 'production',
          VAULT_KEYS: `old:${randomBytes(32).toString('base64')},dev1:ZGV2LW9ubHktdmF1bHQta2V5LTMyLWJ5dGVzLWxvbmc=`,
        },
        names,
      ),
    ).toEqual(['VAULT_KEYS holds the development key "dev1"; set a real secret in production']);
  });

  it('accepts random secrets in production and anything outside it', () => {
    expect(
      productionSecretProblems(
        { NODE_ENV: 'production', JWT_SECRET: real, VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}` },
        names,
      ),
    ).toEqual([]);
    expect(
      productionSecretProblems(
        { NODE_ENV: 'development', JWT_SECRET: 'dev-only-jwt-secret-not-for-production' },
        names,
      ),
    ).toEqual([]);
  });

  it.each([
    'CHANGE_ME',
    'change_me',
    'ChangeMe',
    'changeme',
    'change-me',
    'CHANGE ME',
    'replace_me',
    'your-secret-here',
  ])('refuses the placeholder spelling %s anywhere in a secret', (marker) => {
    const value = `${real.slice(0, 20)}${marker}${real.slice(20)}`;
    expect(productionSecretProblems({ NODE_ENV: 'production', JWT_SECRET: value }, names)).toEqual([
      'JWT_SECRET is a development or placeholder value; set a real secret in production',
    ]);
  });

  it('refuses a vault key of one repeated byte (32 bytes of 0x01, publicly known) and a placeholder key', () => {
    expect(
      productionSecretProblems(
        { NODE_ENV: 'production', VAULT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` },
        names,
      ),
    ).toEqual(['VAULT_KEYS key "k1" is one repeated byte; set a real secret in production']);
    expect(
      productionSecretProblems({ NODE_ENV: 'production', VAULT_KEYS: 'k1:CHANGE_ME_base64_of_32_random_bytes' }, names),
    ).toEqual(['VAULT_KEYS key "k1" is a placeholder; set a real secret in production']);
  });

  it('checks the password of connection URLs for placeholders and well-known defaults only', () => {
    const urls = ['DATABASE_URL', 'AMQP_URL'];
    expect(
      productionSecretProblems(
        {
          NODE_ENV: 'production',
          DATABASE_URL: 'postgresql://social:CHANGE_ME@db.internal:5432',
          AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
        },
        urls,
      ),
    ).toEqual([
      'DATABASE_URL carries a placeholder password; set a real secret in production',
      'AMQP_URL carries the well-known password "guest"; set a real secret in production',
    ]);
    expect(
      productionSecretProblems(
        {
          NODE_ENV: 'production',
          DATABASE_URL: 'postgresql://social@db.example.internal:5432',
          AMQP_URL: `amqps://gateway:${real}@mq.internal:5671`,
        },
        urls,
      ),
    ).toEqual([]);
  });

  it('requires the settings named as required, in production only', () => {
    const options = { required: ['STRIPE_SECRET_KEY'] };
    expect(productionSecretProblems({ NODE_ENV: 'production' }, [], options)).toEqual([
      'STRIPE_SECRET_KEY is required in production',
    ]);
    expect(productionSecretProblems({ NODE_ENV: 'development' }, [], options)).toEqual([]);
  });
});

describe('privateUrlsProblems', () => {
  it('refuses ALLOW_PRIVATE_URLS=true in production only', () => {
    expect(privateUrlsProblems({ NODE_ENV: 'production', ALLOW_PRIVATE_URLS: true })).toHaveLength(1);
    expect(privateUrlsProblems({ NODE_ENV: 'production', ALLOW_PRIVATE_URLS: false })).toEqual([]);
    expect(privateUrlsProblems({ NODE_ENV: 'test', ALLOW_PRIVATE_URLS: true })).toEqual([]);
  });
});
