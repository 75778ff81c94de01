import { get, hasCredentials, list, looksSecret, obj, productionServices, secretEnv, str } from './deploy-facts.ts';
import {
  configMapData,
  container,
  containerEnv,
  exampleSecret,
  exampleSecretKeys,
  exampleSecrets,
  ofKind,
  podSpec,
  resolved,
} from './k8s-manifests.ts';

// Secrets, ConfigMaps and what the pods get from them, in k8s/.

/** A Kubernetes quantity in bytes (`2560Mi`, `2Gi`). */
function bytesOf(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(quantity);
  if (match === null) throw new Error(`not a quantity: ${quantity}`);
  const units = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };
  return Number(match[1]) * units[(match[2] ?? '') as keyof typeof units];
}

describe('secrets and config', () => {
  it('keeps secrets out of ConfigMaps', () => {
    for (const configMap of ofKind('ConfigMap')) {
      for (const [key, value] of Object.entries(configMapData(configMap.name))) {
        expect({ configMap: configMap.name, key, secretName: looksSecret(key) }).toEqual({
          configMap: configMap.name,
          key,
          secretName: false,
        });
        expect({ configMap: configMap.name, key, credentials: hasCredentials(value) }).toEqual({
          configMap: configMap.name,
          key,
          credentials: false,
        });
      }
    }
  });

  it('applies no Secret: real ones are created by the operator from secret.example.yaml', () => {
    expect(ofKind('Secret')).toHaveLength(0);
  });

  it('ships only placeholder values in secret.example.yaml', () => {
    const values = exampleSecrets.flatMap((secret) =>
      Object.values(obj(secret.body.stringData, `${secret.name} stringData`)),
    );
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) expect(String(value)).toContain('CHANGE_ME');
    // AMQP_URL and DATABASE_URL come from one key per service: every service is its own broker user
    // and its own database role (the migrator's runs the migrations Job).
    const perService = (variable: string) =>
      productionServices.map((service) => `${variable}_${service.code.toUpperCase().replace(/-/g, '_')}`);
    expect(exampleSecrets.flatMap((secret) => Object.keys(obj(secret.body.stringData, 'stringData')))).toEqual(
      expect.arrayContaining([
        ...secretEnv.filter((name) => name !== 'AMQP_URL' && name !== 'DATABASE_URL'),
        ...perService('AMQP_URL'),
        ...perService('DATABASE_URL'),
        'DATABASE_URL_MIGRATOR',
      ]),
    );
  });

  it('keeps media in S3 for the gateway and the publisher (pods share no disk), with room to spool uploads', () => {
    const media = configMapData('social-media');
    expect(media).toMatchObject({ MEDIA_STORAGE: 's3', MEDIA_TMP_DIR: expect.stringMatching(/^\/tmp\//) });
    expect(media.MEDIA_PUBLIC_BASE_URL).toMatch(/^https:\/\//);
    for (const service of productionServices.filter(
      (facts) => facts.code === 'gateway' || facts.code === 'publisher',
    )) {
      const sources = list(container(service).envFrom, `${service.name} envFrom`).map((source) =>
        get(source, 'configMapRef.name'),
      );
      expect(sources).toContain('social-media');
      const env = containerEnv(service);
      for (const key of ['MEDIA_S3_ACCESS_KEY_ID', 'MEDIA_S3_SECRET_ACCESS_KEY'])
        expect(env.get(key)?.secret?.name).toBe('social-media');
      const tmp = list(podSpec(service).volumes, `${service.name} volumes`).find(
        (volume) => get(volume, 'name') === 'tmp',
      );
      const sizeLimit = bytesOf(str(get(tmp, 'emptyDir.sizeLimit'), `${service.name} tmp sizeLimit`));
      // What concurrent ingests can spool: MEDIA_INGEST_CONCURRENCY x the largest per-type limit.
      const ingests =
        resolved(service, 'PUBLISHER_ROLES') === 'deliver'
          ? 0
          : Number(resolved(service, 'MEDIA_INGEST_CONCURRENCY') ?? 4);
      const largest = Number(resolved(service, 'MEDIA_MAX_VIDEO_BYTES') ?? 512 * 1024 * 1024);
      expect({ service: service.name, fits: sizeLimit >= ingests * largest }).toEqual({
        service: service.name,
        fits: true,
      });
    }
  });

  it('connects every service to RabbitMQ as its own user, over TLS, with caller checks on', () => {
    const infra = obj(
      exampleSecrets.find((secret) => secret.name === 'social-infra')?.body.stringData,
      'social-infra stringData',
    );
    for (const service of productionServices) {
      const key = `AMQP_URL_${service.code.toUpperCase().replace(/-/g, '_')}`;
      const url = new URL(str(infra[key], `${service.name} AMQP URL`));
      expect({ service: service.name, protocol: url.protocol, user: url.username }).toEqual({
        service: service.name,
        protocol: 'amqps:',
        user: service.code,
      });
      expect(containerEnv(service).get('AMQP_URL')?.secret).toEqual({ name: 'social-infra', key });
    }
    expect(configMapData('social-common').BROKER_USER_PREFIX).toBe('');
  });

  it('gives each service DATABASE_URL as a server URL without a database name, as its own role (deploy/postgres)', () => {
    for (const service of productionServices) {
      const key = `DATABASE_URL_${service.code.toUpperCase().replace(/-/g, '_')}`;
      expect(containerEnv(service).get('DATABASE_URL')?.secret).toEqual({ name: 'social-infra', key });
      const url = new URL(str(exampleSecret('social-infra')[key], key));
      expect(url.protocol).toMatch(/^postgres(ql)?:$/);
      expect(['', '/']).toContain(url.pathname);
      expect(url.username).toBe(`social_${service.code.replace(/-/g, '_')}`);
      expect(exampleSecretKeys('social-postgres-provision')).toContain(
        `DB_PASSWORD_${service.code.toUpperCase().replace(/-/g, '_')}`,
      );
    }
    expect(new URL(str(exampleSecret('social-infra').DATABASE_URL_MIGRATOR, 'migrator')).username).toBe(
      'social_migrator',
    );
    // The services only check their migrations; the Job applies them.
    expect(configMapData('social-common').DATABASE_MIGRATE_ON_START).toBe('false');
  });

  // A workload without a Deployment fails the workload tests of k8s.test.ts, not this file's loading.
  const vaulted = productionServices.filter(
    (service) =>
      ofKind('Deployment').some((deployment) => deployment.name === service.name) &&
      containerEnv(service).has('VAULT_KEYS'),
  );

  it.each(vaulted.map((service) => [service.name, service] as const))(
    '%s names an active vault key that its example key list contains',
    (_name, service) => {
      const keys = containerEnv(service).get('VAULT_KEYS')?.secret;
      const ids = str(exampleSecret(keys?.name ?? '')[keys?.key ?? ''], 'VAULT_KEYS')
        .split(',')
        .map((entry) => entry.slice(0, entry.indexOf(':')));
      expect(ids).toContain(resolved(service, 'VAULT_ACTIVE_KEY_ID'));
    },
  );

  it('gives each service its own vault keys, in a Secret of its own', () => {
    const secrets = [...new Set(vaulted.map((service) => service.code))].map(
      (code) => containerEnv(vaulted.find((service) => service.code === code)!).get('VAULT_KEYS')?.secret?.name,
    );
    expect(secrets).toEqual(
      expect.arrayContaining(['social-accounts', 'social-webhook-dispatcher', 'social-dashboard']),
    );
    expect(new Set(secrets).size).toBe(secrets.length);
  });
});
