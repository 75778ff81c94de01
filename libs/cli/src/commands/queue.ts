import type { RequestBody } from '@svc/sdk';
import type { Command } from 'commander';
import { action } from '../command-context.ts';
import { UsageError } from '../errors.ts';
import type { CliIo } from '../io.ts';

type Slot = RequestBody<'setQueue'>['slots'][number];
interface QueueView {
  timezone: string;
  slots: Slot[];
  next_slots: string[];
}

const SLOT = /^(mon|tue|wed|thu|fri|sat|sun)@(([01]\d|2[0-3]):[0-5]\d)$/;

/** `mon@09:00` -> `{day: 'mon', time: '09:00'}`; anything else is a usage error naming it. */
export function parseSlot(value: string): Slot {
  const match = SLOT.exec(value.trim().toLowerCase());
  if (match === null) throw new UsageError(`"${value}" is not a slot: write day@HH:MM, e.g. mon@09:00`);
  return { day: match[1] as Slot['day'], time: match[2]! };
}

function render(queue: QueueView): string {
  const slots = queue.slots.map((slot) => `${slot.day}@${slot.time}`).join(' ');
  return [
    `Time zone: ${queue.timezone}`,
    `Slots: ${slots === '' ? '(none)' : slots}`,
    'Next free times:',
    ...(queue.next_slots.length === 0 ? ['  (none)'] : queue.next_slots.map((at) => `  ${at}`)),
  ].join('\n');
}

/** The posting queue that `svc post --queue` fills (docs/api-queue.md). */
export function registerQueue(program: Command, io: CliIo): void {
  const queue = program.command('queue').description('the posting queue: weekly times that queued posts take');

  queue
    .command('get')
    .description('show the queue and its next free times')
    .action(
      action(io, async (ctx) => {
        const shown = (await (await ctx.session()).api().queue.get()) as QueueView;
        ctx.out.result(shown, () => render(shown));
      }),
    );

  queue
    .command('set')
    .description('replace the queue with these weekly times')
    .argument('<slots...>', 'day@HH:MM, e.g. mon@09:00 wed@17:30')
    .requiredOption('--timezone <zone>', 'IANA time zone the times are in, e.g. Europe/Berlin')
    .addHelpText(
      'after',
      ['', 'Example:', '  svc queue set --timezone Europe/Berlin mon@09:00 wed@09:00 fri@16:30'].join('\n'),
    )
    .action(
      action<{ timezone: string }>(io, async (ctx, [slots], options) => {
        const parsed = (slots as string[]).map(parseSlot);
        const saved = (await (await ctx.session()).api().queue.set({
          timezone: options.timezone,
          slots: parsed,
        })) as QueueView;
        ctx.out.result(saved, () => render(saved));
      }),
    );
}
