import { parse } from 'yaml';
import { dashboard, gateway, get, isObj, list, obj, readRepoFile, str, workers, type Obj } from './deploy-facts.ts';
import { clusterTarget, ofKind, resolved, type Resource } from './k8s-manifests.ts';

// The NetworkPolicies of the prod overlay, evaluated for each pod: who may reach it on which port,
// and where it may go. Peers are written `ns:<namespace>`, `pod:<name>` (this namespace),
// `ns:<namespace>/pod:<k8s-app>` or `cidr:<range>[ except ...]`.

const ranges = obj(
  get(parse(readRepoFile('k8s/overlays/prod/network-ranges.yaml')), 'data'),
  'network-ranges data',
) as Record<string, string>;

/** Whether a label selector (matchLabels, matchExpressions with In/NotIn) picks these labels. */
function selects(selector: unknown, labels: Obj): boolean {
  const matchLabels = isObj(get(selector, 'matchLabels')) ? obj(get(selector, 'matchLabels'), 'matchLabels') : {};
  if (Object.entries(matchLabels).some(([key, value]) => labels[key] !== value)) return false;
  for (const expression of (get(selector, 'matchExpressions') as unknown[] | undefined) ?? []) {
    const value = labels[str(get(expression, 'key'), 'key')];
    const values = list(get(expression, 'values'), 'values');
    const operator = get(expression, 'operator');
    if (operator === 'In' && !values.includes(value)) return false;
    if (operator === 'NotIn' && values.includes(value)) return false;
    if (operator !== 'In' && operator !== 'NotIn') throw new Error(`operator ${String(operator)} not evaluated here`);
  }
  return true;
}

function peer(entry: unknown): string {
  const namespace = get(entry, 'namespaceSelector.matchLabels');
  const pod = get(entry, 'podSelector.matchLabels');
  const block = get(entry, 'ipBlock');
  if (isObj(block)) {
    const except = (block.except as string[] | undefined) ?? [];
    return `cidr:${str(block.cidr, 'cidr')}${except.length > 0 ? ` except ${except.join(',')}` : ''}`;
  }
  const parts: string[] = [];
  if (isObj(namespace)) parts.push(`ns:${String(namespace['kubernetes.io/metadata.name'])}`);
  if (isObj(pod)) parts.push(`pod:${String(pod['app.kubernetes.io/name'] ?? pod['k8s-app'])}`);
  if (isObj(get(entry, 'podSelector.matchExpressions'))) throw new Error('peer expressions not evaluated here');
  return parts.join('/');
}

const workloads: Resource[] = [...ofKind('Deployment'), ...ofKind('Job')];
const policies = ofKind('NetworkPolicy');

/** Every `<peer> <port>` a direction's rules allow for a pod with these labels. */
function allowed(labels: Obj, direction: 'ingress' | 'egress'): string[] {
  const field = direction === 'ingress' ? 'from' : 'to';
  const found = new Set<string>();
  for (const policy of policies.filter((entry) => selects(get(entry.body, 'spec.podSelector'), labels))) {
    for (const rule of (get(policy.body, `spec.${direction}`) as unknown[] | undefined) ?? []) {
      const ports = ((get(rule, 'ports') as unknown[] | undefined) ?? []).map((port) =>
        String(get(port, 'port') ?? 'any'),
      );
      for (const entry of list(get(rule, field), `${policy.name} ${direction}`))
        for (const port of ports.length > 0 ? ports : ['any']) found.add(`${peer(entry)} ${port}`);
    }
  }
  return [...found].sort();
}

function podLabels(resource: Resource): Obj {
  return obj(get(resource.body, 'spec.template.metadata.labels'), `${resource.name} labels`);
}

const internet = `cidr:0.0.0.0/0 except 169.254.0.0/16,${ranges.CLUSTER_POD_CIDR},${ranges.CLUSTER_SERVICE_CIDR}`;
const callsOut = [
  'gateway',
  'accounts',
  'publisher',
  'publisher-deliver',
  'webhook-dispatcher',
  'analytics-sync',
  'billing',
];

describe('network policies (prod overlay)', () => {
  it('deny everything not allowed, in both directions, for every pod of the namespace', () => {
    const deny = policies.find((policy) => policy.name === 'default-deny')!.body;
    expect(get(deny, 'spec.podSelector')).toEqual({});
    expect(get(deny, 'spec.policyTypes')).toEqual(['Ingress', 'Egress']);
    expect(get(deny, 'spec.ingress')).toBeUndefined();
    expect(get(deny, 'spec.egress')).toBeUndefined();
  });

  it("carry the overlay's ranges and namespaces, no placeholder", () => {
    const text = JSON.stringify(policies.map((policy) => policy.body));
    for (const name of Object.keys(ranges)) expect(text).not.toContain(name);
  });

  it.each(workloads.map((resource) => [resource.name, resource] as const))(
    '%s is reached only from where its callers are',
    (name, resource) => {
      const labels = podLabels(resource);
      const metrics = [`ns:${ranges.MONITORING_NAMESPACE} probe`, `ns:${ranges.MONITORING_NAMESPACE} probes`];
      const expected: Record<string, string[]> = {
        gateway: [`ns:${ranges.INGRESS_NAMESPACE} http`, 'pod:dashboard http', 'pod:gateway http', ...metrics],
        dashboard: [`ns:${ranges.INGRESS_NAMESPACE} http`, 'pod:gateway http', ...metrics],
        'analytics-sync': [`ns:${ranges.KEDA_NAMESPACE} probe`, ...metrics],
      };
      const isJob = resource.kind === 'Job';
      expect(allowed(labels, 'ingress')).toEqual((expected[name] ?? (isJob ? [] : metrics)).sort());
    },
  );

  it.each(workloads.map((resource) => [resource.name, resource] as const))(
    '%s goes only to DNS, its infrastructure, the services it calls and (if it calls out) the internet',
    (name, resource) => {
      const labels = podLabels(resource);
      const isJob = resource.kind === 'Job';
      const expected = [
        'ns:kube-system/pod:kube-dns 53',
        `cidr:${ranges.POSTGRES_CIDR} 5432`,
        ...(isJob ? [] : [`cidr:${ranges.RABBITMQ_CIDR} 5671`]),
        ...(['gateway', 'dashboard'].includes(name) ? [`cidr:${ranges.REDIS_CIDR} 6379`] : []),
        ...(callsOut.includes(name) ? [`${internet} any`] : []),
        ...(name === 'gateway' ? ['pod:dashboard http', 'pod:gateway http'] : []),
        ...(name === 'dashboard' ? ['pod:gateway http'] : []),
      ];
      expect(allowed(labels, 'egress')).toEqual([...new Set(expected)].sort());
    },
  );

  it('let the APIs reach each other where their configuration points: /api/* and the signing keys', () => {
    expect(clusterTarget(resolved(dashboard, 'GATEWAY_URL') ?? '').workload).toBe('gateway');
    expect(clusterTarget(resolved(gateway, 'JWT_JWKS_URL') ?? '').workload).toBe('dashboard');
  });

  it('match the ports the pods name: http on the APIs, probe or probes wherever /metrics is served', () => {
    for (const resource of ofKind('Deployment')) {
      const names = list(get(resource.body, 'spec.template.spec.containers'), 'containers').flatMap((entry) =>
        list(get(entry, 'ports'), 'ports').map((port) => get(port, 'name')),
      );
      const worker = workers.some((facts) => facts.name === resource.name);
      expect(names).toEqual(worker ? ['probe'] : ['http', 'probes']);
    }
  });
});
