import { randomBytes } from 'node:crypto';
import { productionSecretProblems } from './production-secrets.ts';

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
    expect(productionSecretProblems({ NODE_ENV: 'production', VAULT_KEYS: `old:${randomBytes(32).toString('base64')},dev1:ZGV2LW9ubHktdmF1bHQta2V5LTMyLWJ5dGVzLWxvbmc=` }, names)).toEqual([
      'VAULT_KEYS holds the development key "dev1"; set a real secret in production',
    ]);
  });

  it('accepts random secrets in production and anything outside it', () => {
    expect(productionSecretProblems({ NODE_ENV: 'production', JWT_SECRET: real, VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}` }, names)).toEqual([]);
    expect(productionSecretProblems({ NODE_ENV: 'development', JWT_SECRET: 'dev-only-jwt-secret-not-for-production' }, names)).toEqual([]);
  });
});
