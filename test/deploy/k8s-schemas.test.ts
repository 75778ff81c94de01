import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { repoRoot } from './deploy-facts.ts';
import { overlays, render } from './k8s-manifests.ts';

// Every manifest of both rendered overlays against the Kubernetes API's schemas (kubernetes-models)
// and KEDA's (@kubernetes-models/keda), through test/deploy/validate-manifests.mjs: both packages are
// ES modules only, which this CommonJS test runs in a child node.
interface Checked {
  kind: string;
  name: string;
  error: string | null;
}

function validate(yaml: string): Checked[] {
  const output = execFileSync(process.execPath, [join(repoRoot, 'test/deploy/validate-manifests.mjs')], {
    input: yaml,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(output) as Checked[];
}

describe('Kubernetes and KEDA schemas', () => {
  it.each(overlays.map((overlay) => [overlay]))('accepts every manifest of the %s overlay', (overlay) => {
    const resources = render(overlay);
    const checked = validate(resources.map((resource) => stringify(resource.body)).join('---\n'));
    expect(checked.map(({ kind, name }) => `${kind}/${name}`)).toEqual(
      resources.map(({ kind, name }) => `${kind}/${name}`),
    );
    expect(checked.filter((result) => result.error !== null)).toEqual([]);
    expect(new Set(checked.map((result) => result.kind))).toEqual(
      new Set([
        'Namespace',
        'ConfigMap',
        'Service',
        'Deployment',
        'PodDisruptionBudget',
        'HorizontalPodAutoscaler',
        'Job',
        'ScaledObject',
        'TriggerAuthentication',
        'NetworkPolicy',
      ]),
    );
  });

  it('refuses a manifest its schema does not allow, and a kind it has no schema for', () => {
    const checked = validate(
      [
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'broken' }, spec: { replicas: 'two' } },
        { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'broken' }, spec: { triggers: [] } },
        { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'unknown' } },
        { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'unknown' } },
      ]
        .map((body) => stringify(body))
        .join('---\n'),
    );
    expect(checked.map((result) => result.error)).toEqual([
      expect.stringContaining('replicas must be integer'),
      expect.stringContaining('scaleTargetRef'),
      'no schema for apiVersion example.com/v1',
      'no schema for v1 Widget',
    ]);
  });
});
