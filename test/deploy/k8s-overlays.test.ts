import {
  deployedServices,
  get,
  list,
  networkServices,
  networkUrls,
  productionServices,
  readRepoFile,
  str,
} from './deploy-facts.ts';
import { applied, appliedDev, overlayKustomization, overlays, render, type Resource } from './k8s-manifests.ts';

// What the overlays add to k8s/base: the migrations Job of each release, and in dev the sandbox.

function job(resources: Resource[]): Resource {
  const jobs = resources.filter((resource) => resource.kind === 'Job');
  expect(jobs).toHaveLength(1);
  return jobs[0]!;
}

/** A pod's first (here: only) container. */
function firstContainer(resource: Resource): unknown {
  return list(get(resource.body, 'spec.template.spec.containers'), `${resource.name} containers`)[0];
}

/** The service a migration step migrates: its command's last word. */
function migrated(step: unknown): string {
  return str(list(get(step, 'command'), 'command').at(-1), 'service');
}

function steps(resource: Resource): unknown[] {
  return [
    ...list(get(resource.body, 'spec.template.spec.initContainers'), 'initContainers'),
    ...list(get(resource.body, 'spec.template.spec.containers'), 'containers'),
  ];
}

describe('the migrations Job', () => {
  it.each(overlays.map((overlay) => [overlay]))('is named after the release tag of the %s overlay', (overlay) => {
    const tags = new Set(list(overlayKustomization(overlay).images, 'images').map((image) => get(image, 'newTag')));
    expect(tags.size).toBe(1);
    const resource = job(render(overlay));
    expect(resource.name).toBe(`migrate-${String([...tags][0])}`);
    expect(get(resource.body, 'spec.ttlSecondsAfterFinished')).toEqual(expect.any(Number));
    expect(get(resource.body, 'spec.template.spec.restartPolicy')).toBe('Never');
  });

  it('makes the roles first, then migrates every deployed service in its own image as the migrator', () => {
    const resource = job(applied);
    const [roles, ...migrations] = steps(resource);
    expect(get(roles, 'command')).toEqual(['sh', '/provision/provision.sh']);
    const provision = list(get(resource.body, 'spec.template.spec.volumes'), 'volumes').find(
      (volume) => get(volume, 'name') === 'provision',
    );
    const configMap = applied.find(
      (entry) => entry.kind === 'ConfigMap' && entry.name === get(provision, 'configMap.name'),
    );
    expect(Object.keys(get(configMap?.body, 'data') as object).sort()).toEqual([
      'provision-role.sql',
      'provision-service.sql',
      'provision.sh',
    ]);
    expect(migrations.map((step) => migrated(step)).sort()).toEqual(deployedServices);
    for (const step of migrations) {
      const service = migrated(step);
      expect(get(step, 'command')).toEqual(['node', 'libs/db/dist/migrate-main.js', service]);
      expect(str(get(step, 'image'), 'image')).toMatch(new RegExp(`/social-publishing/${service}:[^:/]+$`));
      const env = list(get(step, 'env'), 'env');
      expect(env.find((entry) => get(entry, 'name') === 'DATABASE_URL')).toEqual({
        name: 'DATABASE_URL',
        valueFrom: { secretKeyRef: { name: 'social-infra', key: 'DATABASE_URL_MIGRATOR' } },
      });
    }
  });
});

describe('the dev overlay', () => {
  const deployments = (resources: Resource[]) => resources.filter((resource) => resource.kind === 'Deployment');

  it('runs the sandbox beside every production workload; prod does not', () => {
    expect(
      deployments(appliedDev)
        .map((resource) => resource.name)
        .sort(),
    ).toEqual([...productionServices.map((service) => service.name), 'sandbox'].sort());
    expect(deployments(applied).map((resource) => resource.name)).not.toContain('sandbox');
  });

  it("points the network adapters at the sandbox's Service, where it listens on every address", () => {
    const urls = appliedDev.find((resource) => resource.name === 'social-sandbox-urls')?.body;
    expect(Object.keys(get(urls, 'data') as object).sort()).toEqual(Object.keys(networkUrls).sort());
    for (const value of Object.values(get(urls, 'data') as Record<string, string>))
      expect(new URL(value).origin).toBe('http://sandbox.social.svc.cluster.local:4010');
    const callers = deployments(appliedDev).filter((resource) =>
      list(get(firstContainer(resource), 'envFrom') ?? [], 'envFrom').some(
        (source) => get(source, 'configMapRef.name') === 'social-sandbox-urls',
      ),
    );
    expect(callers.map((resource) => resource.name).sort()).toEqual(
      productionServices
        .filter((service) => networkServices.includes(service.code))
        .map((s) => s.name)
        .sort(),
    );
    const sandbox = deployments(appliedDev).find((resource) => resource.name === 'sandbox')!;
    const env = list(get(firstContainer(sandbox), 'env'), 'env');
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'SANDBOX_HOST', value: '0.0.0.0' },
        { name: 'PORT', value: '4010' },
      ]),
    );
  });

  it('asks for less than prod, and never more than its limits', () => {
    for (const resource of deployments(appliedDev)) {
      const requests = get(firstContainer(resource), 'resources.requests');
      expect({ name: resource.name, requests }).toEqual({
        name: resource.name,
        requests: { cpu: '10m', memory: '96Mi' },
      });
    }
  });
});

describe('resource requests', () => {
  // deploy/README.md, "Resource requests": each workload's measured idle RSS and the request set from it.
  const table = [
    ...readRepoFile('deploy/README.md').matchAll(/^\|\s*([a-z-]+)\s*\|\s*(\d+)\s*\|\s*(\d+)Mi\s*\|\s*(\d+)Mi\s*\|$/gm),
  ].map((row) => ({ workload: row[1]!, rss: Number(row[2]), request: Number(row[3]), limit: Number(row[4]) }));

  it('lists every production workload', () => {
    expect(table.map((row) => row.workload).sort()).toEqual(productionServices.map((service) => service.name).sort());
  });

  it.each(table.map((row) => [row.workload, row] as const))(
    "asks in prod for %s's measured idle RSS plus a quarter, under its limit",
    (name, row) => {
      expect(row.request).toBe(Math.ceil((row.rss * 1.25) / 16) * 16);
      const resources = get(
        firstContainer(applied.find((entry) => entry.kind === 'Deployment' && entry.name === name)!),
        'resources',
      );
      expect(get(resources, 'requests.memory')).toBe(`${row.request}Mi`);
      expect(get(resources, 'limits.memory')).toBe(`${row.limit}Mi`);
      expect(row.limit).toBeGreaterThanOrEqual(2 * row.request - 64);
    },
  );
});
