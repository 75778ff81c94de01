import { randomBytes, randomUUID } from 'node:crypto';
import { vaultFromConfig } from '@svc/crypto';
import { reencryptSecrets } from '../src/domain/reencrypt-secrets.ts';
import { SecretBox } from '../src/domain/secrets.ts';
import { useDispatcherDatabase } from './dispatcher-database.ts';

const k1 = randomBytes(32).toString('base64');
const vault = vaultFromConfig(`k1:${k1}`);
const secrets = new SecretBox(vault);
const state = useDispatcherDatabase('dispatcher_secrets');

async function endpoint(orgId: string, secretCipher: (id: string) => string) {
  const id = randomUUID();
  const row = await state.endpoints.create(
    {
      id,
      orgId,
      url: 'https://receiver.example/hooks',
      events: [],
      payloadFormat: 'default',
      secretCipher: secretCipher(id),
    },
    100,
  );
  if (row === 'full') throw new Error('unexpected: full');
  return row;
}

describe('signing secrets at rest', () => {
  it('are bound to the organization: an endpoint moved to another one no longer opens', async () => {
    const row = await endpoint('org_a', (id) => secrets.seal('org_a', id, 'current', 'whsec_a'));
    expect(secrets.open('org_a', row.id, 'current', row.secretCipher)).toBe('whsec_a');
    await state.db.$executeRawUnsafe(`UPDATE webhook_endpoints SET org_id = 'org_b' WHERE id = $1::uuid`, row.id);
    const moved = (await state.endpoints.find('org_b', row.id))!;
    expect(() => secrets.open(moved.orgId, moved.id, 'current', moved.secretCipher)).toThrow(/could not be decrypted/);
    // reencrypt-secrets cannot make it readable either: it lists it and leaves it.
    expect((await reencryptSecrets({ endpoints: state.endpoints, secrets })).unreadable).toContain(row.id);
    expect((await state.endpoints.find('org_b', row.id))!.secretCipher).toBe(row.secretCipher);
  });

  it('are sealed anew by reencrypt-secrets: from the binding without the organization, and under a new key', async () => {
    const former = await endpoint('org_c', (id) => vault.encrypt('whsec_c', `webhook_endpoint:${id}:current_secret`));
    await state.endpoints.update('org_c', former.id, {
      previousSecrets: [
        {
          cipher: vault.encrypt('whsec_old', `webhook_endpoint:${former.id}:previous_secret`),
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
      ],
    });
    const current = await endpoint('org_c', (id) => secrets.seal('org_c', id, 'current', 'whsec_d'));
    expect(() => secrets.open('org_c', former.id, 'current', former.secretCipher)).toThrow();

    const first = await reencryptSecrets({ endpoints: state.endpoints, secrets });
    expect(first.endpoints).toBeGreaterThanOrEqual(1);
    expect(first.unreadable).not.toContain(former.id);
    const resealed = (await state.endpoints.find('org_c', former.id))!;
    expect(secrets.open('org_c', former.id, 'current', resealed.secretCipher)).toBe('whsec_c');
    expect(secrets.open('org_c', former.id, 'previous', resealed.previousSecrets[0]!.cipher)).toBe('whsec_old');
    expect((await state.endpoints.find('org_c', current.id))!.secretCipher).toBe(current.secretCipher);
    expect((await reencryptSecrets({ endpoints: state.endpoints, secrets })).endpoints).toBe(0);

    const rotated = new SecretBox(vaultFromConfig(`k1:${k1},k2:${randomBytes(32).toString('base64')}`));
    await reencryptSecrets({ endpoints: state.endpoints, secrets: rotated });
    const underK2 = (await state.endpoints.find('org_c', current.id))!;
    expect(underK2.secretCipher.startsWith('v1.k2.')).toBe(true);
    expect(rotated.open('org_c', current.id, 'current', underK2.secretCipher)).toBe('whsec_d');
  });
});
