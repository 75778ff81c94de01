import { Badge, Group } from '@mantine/core';
import { networkLabel } from '../accounts/networks.ts';
import type { Counter } from './text-counter.ts';

const COLOR = { ok: 'gray', near: 'yellow', over: 'red' } as const;

/** The live per-network counters under the text; announced politely as they change. */
export function Counters({ counters }: { counters: Counter[] }) {
  return (
    <Group gap="xs" aria-live="polite" data-testid="counters">
      {counters.map((c) => (
        <Badge key={c.network} color={COLOR[c.state]} variant={c.state === 'ok' ? 'outline' : 'light'}>
          {networkLabel(c.network)}: {c.limit === null ? `${c.length}` : `${c.length} / ${c.limit}`}
          {c.state === 'over' && ` (${-c.remaining!} over)`}
        </Badge>
      ))}
    </Group>
  );
}
