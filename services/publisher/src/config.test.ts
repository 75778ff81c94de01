import { loadServiceConfig } from './config.ts';

describe('publisher configuration', () => {
  it('runs both roles in one process unless PUBLISHER_ROLES names one', () => {
    expect(loadServiceConfig({}).PUBLISHER_ROLES).toBe('accept,deliver');
    for (const roles of ['accept', 'deliver', 'deliver,accept']) expect(loadServiceConfig({ PUBLISHER_ROLES: roles }).PUBLISHER_ROLES).toBe(roles);
  });

  it('refuses a role it does not know rather than start a publisher that does nothing', () => {
    for (const roles of ['acept', 'accept,', 'accept deliver', 'accept,deliver,accept']) {
      expect(() => loadServiceConfig({ PUBLISHER_ROLES: roles })).toThrow(/PUBLISHER_ROLES/);
    }
  });
});
